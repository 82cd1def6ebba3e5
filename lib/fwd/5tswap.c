#include "vf_fwd_mode.h"
#include "vf_pkt.h"

static void fivetswap_fwd(struct vf_stream *fs)
{
	struct rte_mbuf *pkts[VF_MAX_BURST];
	uint16_t n = fwd_rx(fs, pkts);

	for (uint16_t i = 0; i < n; i++)
		vf_pkt_5tswap(rte_pktmbuf_mtod(pkts[i], uint8_t *),
			      rte_pktmbuf_data_len(pkts[i]));
	fwd_tx(fs, pkts, n);
}

const struct vf_fwd_mode vf_fwd_5tswap = {
	.name = "5tswap",
	.help = "swap MACs, IP addresses and L4 ports",
	.fwd = fivetswap_fwd,
	.sleeps = true,
};
