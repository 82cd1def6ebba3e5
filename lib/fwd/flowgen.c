#include "vf_fwd_mode.h"

/* txonly over --flows flows: by default the source address (then port)
 * varies per frame; --flow-* choose the fields (vf_flow.h). */
static void flowgen_fwd(struct vf_stream *fs)
{
	vf_fwd_gen_send(fs);
}

const struct vf_fwd_mode vf_fwd_flowgen = {
	.name = "flowgen",
	.help = "generate UDP/IPv4 packets over many flows",
	.fwd = flowgen_fwd,
	.stream_init = vf_fwd_gen_init,
	.generates = true,
	.spreads = true,
};
