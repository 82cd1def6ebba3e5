#include "fwd_priv.h"

/* txonly over --flows flows (source address and port vary per packet). */
static void flowgen_fwd(struct vf_stream *fs)
{
	struct rte_mbuf *pkts[VF_MAX_BURST];
	uint16_t n = vf_fwd_gen_budget(fs);

	n = vf_fwd_gen_fill(fs, pkts, n, true);
	if (fs->cfg->count)
		fs->gen_left -= n;	/* n <= gen_left: the budget saw to it */
	fwd_tx(fs, pkts, n);
}

const struct vf_fwd_mode vf_fwd_flowgen = {
	.name = "flowgen",
	.help = "generate UDP/IPv4 packets over many flows",
	.fwd = flowgen_fwd,
	.stream_init = vf_fwd_gen_init,
	.generates = true,
};
