#include "vf_fwd_mode.h"
#include "vf_pkt.h"

static void macswap_fwd(struct vf_stream *fs)
{
	struct rte_mbuf *pkts[VF_MAX_BURST];
	uint16_t n = fwd_rx(fs, pkts);

	for (uint16_t i = 0; i < n; i++) {
		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		vf_pkt_macswap(rte_pktmbuf_mtod(pkts[i], uint8_t *),
			       rte_pktmbuf_data_len(pkts[i]));
	}
	fwd_tx(fs, pkts, n);
}

const struct vf_fwd_mode vf_fwd_macswap = {
	.name = "macswap",
	.help = "swap source and destination MAC",
	.fwd = macswap_fwd,
	.sleeps = true,
};
