#include "vf_fwd_mode.h"

static void rxonly_fwd(struct vf_stream *fs)
{
	struct rte_mbuf *pkts[VF_MAX_BURST];
	uint16_t n = fwd_rx(fs, pkts);

	if (n)
		vf_mbuf_free_bulk(pkts, n);
}

const struct vf_fwd_mode vf_fwd_rxonly = {
	.name = "rxonly",
	.help = "receive and drop (a sink)",
	.fwd = rxonly_fwd,
	.sleeps = true,
};
