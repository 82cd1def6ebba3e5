/* virtio_user bursts with checksum/TSO offloads negotiated: received
 * headers taken into the mbufs (they sit in the headroom, where the
 * backend wrote them), transmitted requests the backend does not take
 * finished in software first (vf_offload.h, vnet_ol.h). */
#include "virtio_rxtx.h"

static inline uint16_t rx_ol(struct vio_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t db = q->ol_rx.dropped_bytes;
	uint16_t k;

	if (n == 0 || q->ol_rx_allowed == 0)
		return n;
	k = vnet_ol_rx(pkts, n, VIO_HDR_LEN, q->ol_rx_allowed, true, &q->ol_rx);
	if (unlikely(k != n)) {
		/* refused frames are not received ones (ierrors has them) */
		vf_ctr_add(q->st.packets, -((uint64_t)(n - k)));
		vf_ctr_add(q->st.bytes, -(q->ol_rx.dropped_bytes - db));
	}
	return k;
}

uint16_t vio_rx_burst_ol(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	return rx_ol(q, pkts, vio_rx_burst(q, pkts, n));
}

uint16_t vio_rx_burst_packed_ol(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	return rx_ol(q, pkts, vio_rx_burst_packed(q, pkts, n));
}

uint16_t vio_tx_burst_ol(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	return vf_ol_tx_burst(q, vio_tx_burst, &((struct vio_queue *)q)->ol_tx, pkts, n);
}

uint16_t vio_tx_burst_packed_ol(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	return vf_ol_tx_burst(q, vio_tx_burst_packed, &((struct vio_queue *)q)->ol_tx, pkts, n);
}
