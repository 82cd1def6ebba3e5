#include "vf_fwd_mode.h"
#include "vf_pkt.h"

/* Answers ARP requests and ICMP echo requests; everything else is dropped
 * (and counted as fwd_dropped). Only linear frames are answered. */
static void icmpecho_fwd(struct vf_stream *fs)
{
	struct rte_mbuf *pkts[VF_MAX_BURST], *drop[VF_MAX_BURST];
	uint16_t n = fwd_rx(fs, pkts), keep = 0, nd = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (m->nb_segs == 1 &&
		    vf_pkt_icmpecho(rte_pktmbuf_mtod(m, uint8_t *),
				    rte_pktmbuf_data_len(m), fs->tx_port->mac))
			pkts[keep++] = m;
		else
			drop[nd++] = m;
	}
	if (nd) {
		vf_ctr_add(fs->fwd_dropped, nd);
		vf_mbuf_free_bulk(drop, nd);
	}
	fwd_tx(fs, pkts, keep);
}

const struct vf_fwd_mode vf_fwd_icmpecho = {
	.name = "icmpecho",
	.help = "answer ARP and ICMP echo requests",
	.fwd = icmpecho_fwd,
	.sleeps = true,
};
