#include "fwd_priv.h"

/* UDP/IPv4 frames of --txpkts bytes, paced by --rate, bounded by --count. */
static void txonly_fwd(struct vf_stream *fs)
{
	struct rte_mbuf *pkts[VF_MAX_BURST];
	uint16_t n = vf_fwd_gen_budget(fs);

	n = vf_fwd_gen_fill(fs, pkts, n, false);
	if (fs->cfg->count)
		fs->gen_left -= n;	/* n <= gen_left: the budget saw to it */
	fwd_tx(fs, pkts, n);
}

const struct vf_fwd_mode vf_fwd_txonly = {
	.name = "txonly",
	.help = "generate UDP/IPv4 packets of --txpkts bytes",
	.fwd = txonly_fwd,
	.stream_init = vf_fwd_gen_init,
	.generates = true,
};
