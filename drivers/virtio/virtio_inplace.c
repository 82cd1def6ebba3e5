/* virtio-net frames in place over split rings (vf_port.h, struct
 * vf_slot_ops): the caller builds its frames straight in pool buffers that
 * go out as descriptors, and reads received ones in the buffers the device
 * wrote, which then go back into the ring as they are.  Against the mbuf
 * bursts this saves, per frame, the mbuf header's writes on both sides and
 * its checks on free, and on receive a pool get and put: the buffers stay
 * posted.
 *
 * Buffers are raw pool objects, as the rx ring's always were
 * (vio_rx_post_body): their mbuf fields are never set.  A tx one is posted
 * with its cookie tagged VIO_COOKIE_RAW, so reclaim puts it back in the
 * pool instead of freeing it as a packet (vio_tx_free).
 *
 * The same checks as the mbuf bursts, on single fetches of the used
 * entries (vqs_peek): an entry that cannot be read in place (a bad id or
 * length, a packet over several buffers) stops the burst before it is
 * taken, and the caller's next mbuf burst deals with it (counted, or the
 * ring latched broken) exactly as before.  Queues with receive offloads
 * negotiated always take the mbuf bursts (their headers ask for work). */
#include "virtio_inplace.h"

#include <rte_branch_prediction.h>
#include <rte_prefetch.h>

#include "virtio_rxtx.h"
#include "virtio_rxtx_body.h"

/* The frame in a pool buffer: after the headroom, the header before it
 * (where vio_rx_post_body posts rx buffers). */
static inline uint8_t *buf_frame(const struct rte_mbuf *m)
{
	return (uint8_t *)m->buf_addr + RTE_PKTMBUF_HEADROOM;
}

/* ---- tx ---- */

static uint16_t tx_get(void *qp, struct vf_slot *s, uint16_t n, uint32_t room, bool *other)
{
	struct vio_queue *q = qp;
	struct vq_split *vq = &q->vq;

	if (unlikely(!vio_ready(q)))
		return 0;
	if (unlikely(room > q->room)) {
		*other = true;	/* the mbuf burst chains it */
		return 0;
	}
	if (n > q->held_max)
		n = q->held_max;
	/* Raw objects: the buffer is all this path uses of them.  Taken
	 * before the reclaim below puts the device's last reads on top of
	 * the pool's cache: on top now are the buffers rx_put just gave
	 * back, which this core read last (a write to them stays here).  An
	 * empty pool may be one whose buffers wait in this ring, done. */
	if (n == 0)
		return 0;
	if (unlikely(rte_mempool_get_bulk(q->pool, (void **)q->held, n) != 0)) {
		vio_tx_reclaim(q);
		if (rte_mempool_get_bulk(q->pool, (void **)q->held, n) != 0)
			return 0;
	}
	if (vq->nfree < q->tx_reclaim_below || vq->nfree < n)
		vio_tx_reclaim(q);
	if (unlikely(vq->broken || vq->nfree < n)) {
		uint16_t k = vq->broken ? 0 : vq->nfree;

		rte_mempool_put_bulk(q->pool, (void **)q->held + k, n - k);
		n = k;
	}
	q->nheld = n;
	for (uint16_t i = 0; i < n; i++) {
		s[i].data = buf_frame(q->held[i]);
		__builtin_prefetch(s[i].data, 1, 3);	/* the device read it last */
	}
	return n;
}

static void tx_put(void *qp, const struct vf_slot *s, uint16_t k)
{
	struct vio_queue *q = qp;
	struct vq_split *vq = &q->vq;
	uint64_t bytes = 0;

	for (uint16_t i = 0; i < k; i++) {
		struct virtio_net_hdr_mrg_rxbuf *h = (void *)(s[i].data - VIO_HDR_LEN);

		vio_hdr_clear(h);
		vqs_post1(vq, vqs_addr(h), s[i].len + VIO_HDR_LEN, 0,
			  (void *)((uintptr_t)q->held[i] | VIO_COOKIE_RAW));
		bytes += s[i].len;
	}
	if (k < q->nheld)
		rte_mempool_put_bulk(q->pool, (void **)q->held + k, q->nheld - k);
	q->nheld = 0;
	if (k == 0)
		return;
	vqs_publish(vq);
	vio_kick_if_asked(q, false);
	vf_ctr_add(q->st.packets, k);
	vf_ctr_add(q->st.in_place, k);
	vf_ctr_add(q->st.bytes, bytes);
}

/* ---- rx ---- */

#define USED_PER_LINE (64 / sizeof(struct vring_used_elem))

/* Starts loading the header and frame lines of the next n used buffers.
 * Only a hint: the ids are the device's, read here without a check beyond
 * the bound that keeps the slot read inside our array. */
static inline void rx_prefetch(const struct vio_queue *q, uint16_t n)
{
	const struct vq_split *vq = &q->vq;

	for (uint16_t i = 0; i < n; i++) {
		uint32_t id = vq->used->ring[(uint16_t)(vq->used_idx + i) & vq->mask].id;
		const struct rte_mbuf *m = id < vq->size ? vq->slot[id].cookie : NULL;

		if (m) {
			rte_prefetch0(buf_frame(m) - VIO_HDR_LEN);
			rte_prefetch0(buf_frame(m));
		}
	}
}

static uint16_t rx_get(void *qp, struct vf_slot *s, uint16_t n, bool *other)
{
	struct vio_queue *q = qp;
	struct vq_split *vq = &q->vq;
	uint16_t avail, k;
	uint32_t dreq;

	if (unlikely(!vio_ready(q)))
		return 0;
	if (unlikely(q->mrg_left != 0 || q->ol_rx_allowed != 0)) {
		*other = true;	/* a packet half assembled, or offloads */
		return 0;
	}
	/* Before the used index: an empty ring then answers a drain. */
	dreq = __atomic_load_n(&q->drain_req, __ATOMIC_ACQUIRE);
	avail = vqs_used_count(vq);
	if (avail == 0) {
		vf_drain_ack(&q->drain_ack, dreq);
		return 0;
	}
	if (n > avail)
		n = avail;
	if (n > q->held_max)
		n = q->held_max;
	/* A line of the used ring the device is still filling is left for
	 * the next burst (as vio_rx_burst does). */
	if (n > USED_PER_LINE && n < avail)
		n -= (uint16_t)((vq->used_idx + n) & (USED_PER_LINE - 1));
	rx_prefetch(q, n);
	for (k = 0; k < n; k++) {
		struct rte_mbuf *m;
		uint16_t id;
		uint32_t len;

		if (unlikely(vqs_peek(vq, &id, &len) != 0 || len > vq->slot[id].len ||
			     len < VIO_HDR_LEN))
			break;
		m = vq->slot[id].cookie;
		if (q->mrg) {
			const struct virtio_net_hdr_mrg_rxbuf *h =
				(const void *)(buf_frame(m) - VIO_HDR_LEN);

			if (unlikely(*(const volatile uint16_t *)&h->num_buffers != 1))
				break;
		}
		vqs_complete(vq, id);
		q->held[k] = m;
		s[k].data = buf_frame(m);
		s[k].len = len - VIO_HDR_LEN;
	}
	if (k == 0)
		*other = true;
	q->nheld = k;
	return k;
}

/* The ring gets fresh buffers from the pool, and the ones just read go on
 * top of the pool's cache, where the next tx_get on this core takes them:
 * written next by the core that holds their lines, as the mbuf path's
 * frames are built in the mbufs that came back.  Without fresh ones the
 * buffers read go back into the ring. */
static void rx_put(void *qp, const struct vf_slot *s, uint16_t n)
{
	struct vio_queue *q = qp;
	struct vq_split *vq = &q->vq;
	uint64_t bytes = 0;
	uint16_t fresh;

	for (uint16_t i = 0; i < n; i++)
		bytes += s[i].len;
	/* Every buffer rx_get took, whatever n says: none may leak.  rx_get
	 * freed nheld descriptors, so fresh and held fit together. */
	fresh = vio_rx_post_body(q, q->nheld, false);
	if (fresh)
		rte_mempool_put_bulk(q->pool, (void **)q->held, fresh);
	for (uint16_t i = fresh; i < q->nheld; i++) {
		const struct rte_mbuf *m = q->held[i];

		vqs_post1(vq, (uint64_t)(uintptr_t)buf_frame(m) - VIO_HDR_LEN,
			  m->buf_len - RTE_PKTMBUF_HEADROOM + VIO_HDR_LEN, VRING_DESC_F_WRITE, q->held[i]);
	}
	q->nheld = 0;
	if (vq->nfree >= VIO_RX_REFILL_MIN && !vq->broken)
		vio_rx_post_body(q, vq->nfree, false);
	vqs_publish(vq);
	vio_kick_if_asked(q, false);
	vf_ctr_add(q->st.packets, n);
	vf_ctr_add(q->st.in_place, n);
	vf_ctr_add(q->st.bytes, bytes);
}

const struct vf_slot_ops vio_slots_split = {
	.tx_get = tx_get,
	.tx_put = tx_put,
	.rx_get = rx_get,
	.rx_put = rx_put,
};
