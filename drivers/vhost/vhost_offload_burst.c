/* The vhost port's burst functions with offloads (vhost_offload.h): above
 * the layout dispatch, which they call. */
#include "vhost_offload.h"

#include <string.h>

#include "virtqueue.h"

uint16_t vh_ol_dequeue(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct vh_vq *vq = q;
	uint16_t got = vh_vq_dequeue(q, pkts, n), k = 0;

	/* The copies noted whether any header of the burst asks for
	 * something (never, when nothing was negotiated): one test. */
	if (likely(!vq->ol.asked))
		return got;
	vq->ol.asked = false;
	uint64_t db = vq->ol.rx.dropped_bytes;

	for (uint16_t i = 0; i < got; i++) {
		struct rte_mbuf *m = pkts[i];

		if (m->hash.usr == VH_OL_MARK) {
			struct virtio_net_hdr h;

			m->hash.usr = 0;
			memcpy(&h, vnet_ol_hdr_of(m, sizeof(h)), sizeof(h));
			if (!vnet_ol_take(&h, vq->ol.rx_allowed, false, m, &vq->ol.rx))
				continue;	/* freed and counted */
		}
		pkts[k++] = m;
	}

	if (unlikely(k != got)) {
		/* refused frames are not received ones (ierrors has them) */
		vf_ctr_add(vq->st.packets, -((uint64_t)(got - k)));
		vf_ctr_add(vq->st.bytes, -(vq->ol.rx.dropped_bytes - db));
	}
	return k;
}

uint16_t vh_ol_enqueue(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct vh_vq *vq = q;

	return vf_ol_tx_burst(q, vh_vq_enqueue, &vq->ol.tx, pkts, n);
}
