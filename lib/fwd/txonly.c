#include "vf_fwd_mode.h"

/* UDP/IPv4 frames of --txpkts bytes, paced by --rate, bounded by --count. */
static void txonly_fwd(struct vf_stream *fs)
{
	vf_fwd_gen_send(fs);
}

const struct vf_fwd_mode vf_fwd_txonly = {
	.name = "txonly",
	.help = "generate UDP/IPv4 packets of --txpkts bytes",
	.fwd = txonly_fwd,
	.stream_init = vf_fwd_gen_init,
	.generates = true,
};
