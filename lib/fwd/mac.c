#include "vf_fwd_mode.h"
#include "vf_pkt.h"

/* Source MAC := the tx port's, destination := its --eth-peer. */
static void mac_fwd(struct vf_stream *fs)
{
	struct rte_mbuf *pkts[VF_MAX_BURST];
	uint16_t n = fwd_rx(fs, pkts);
	const uint8_t *src = fs->tx_port->mac;
	const uint8_t *dst = fs->cfg->peer[fs->tx_port->id].addr_bytes;

	for (uint16_t i = 0; i < n; i++) {
		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		vf_pkt_set_macs(rte_pktmbuf_mtod(pkts[i], uint8_t *),
				rte_pktmbuf_data_len(pkts[i]), src, dst);
	}
	fwd_tx(fs, pkts, n);
}

const struct vf_fwd_mode vf_fwd_mac = {
	.name = "mac",
	.help = "set source MAC to the tx port's and destination to --eth-peer",
	.fwd = mac_fwd,
	.sleeps = true,
};
