/* memif frames in place (vf_port.h, struct vf_slot_ops), copy mode: the
 * caller writes its frames straight into the ring's buffers and reads
 * received ones where the peer put them.  Against the mbuf bursts this
 * saves, per frame and side, an mbuf from and back to the pool, its header
 * lines, and one copy of the frame.
 *
 * The same checks as memif_rxtx.c, on the same single-fetch copies of the
 * descriptors (memif_ring.h): a buffer or frame that cannot be done in
 * place (a chain, a bad descriptor, a buffer too small) stops the burst,
 * and the caller's next mbuf burst deals with it (counted, or the queue
 * latched broken) exactly as before. */
#include <rte_branch_prediction.h>

#include "memif.h"
#include "memif_ring.h"

/* ---- client: our buffers, slot s at buf_base + s * bsize ---- */

static inline uint8_t *client_buf(const struct memif_queue *q, uint16_t s)
{
	return q->region0 + q->buf_base + (uint64_t)(s & q->mask) * q->bsize;
}

/* The port's counters for k frames handed over or taken back. */
static inline void count_slots(struct memif_queue *q, const struct vf_slot *s, uint16_t k)
{
	uint64_t bytes = 0;

	for (uint16_t i = 0; i < k; i++)
		bytes += s[i].len;
	vf_ctr_add(q->pkts, k);
	vf_ctr_add(q->bytes, bytes);
}

/* Hands k filled buffers to the peer.  The client writes whole
 * descriptors (its own buffers) and moves head; the server writes only
 * length and flags (the buffer stays where the client posted it, and each
 * len is within what tx_get checked) and moves tail. */
static inline void tx_put(struct memif_queue *q, const struct vf_slot *s, uint16_t k, bool server)
{
	uint16_t p = q->last;

	if (k == 0)
		return;
	for (uint16_t i = 0; i < k; i++, p++) {
		struct memif_desc *d = &q->ring->desc[p & q->mask];

		if (!server) {
			desc_set16(&d->region, 0);
			desc_set32(&d->offset, q->buf_base + (uint32_t)(p & q->mask) * q->bsize);
		}
		desc_set32(&d->length, s[i].len);
		desc_set16(&d->flags, 0);
	}
	q->last = p;
	/* Release: descriptors and payload before the new index. */
	vf_store_rel16(server ? &q->ring->tail : &q->ring->head, p);
	notify_peer(q);
	count_slots(q, s, k);
}

static uint16_t client_tx_get(void *qv, struct vf_slot *s, uint16_t n, uint32_t room, bool *other)
{
	struct memif_queue *q = qv;
	uint16_t tail, inflight, free;

	if (unlikely(!q_ready(q) || q->broken))
		return 0;
	if (unlikely(room > q->bsize)) {
		*other = true;	/* the mbuf burst chains it over slots */
		return 0;
	}
	/* Acquire: the server has finished reading the slots before tail. */
	tail = vf_load_acq16(&q->ring->tail);
	inflight = q->last - tail;
	if (unlikely(inflight > q->size)) {
		q_broken(q, "C2S tail beyond what we produced");
		return 0;
	}
	free = q->size - inflight;
	if (n > free)
		n = free;
	for (uint16_t i = 0; i < n; i++) {
		s[i].data = client_buf(q, q->last + i);
		__builtin_prefetch(s[i].data, 1, 3);	/* last read by the server */
	}
	return n;
}

static void client_tx_put(void *qv, const struct vf_slot *s, uint16_t k)
{
	tx_put(qv, s, k, false);
}

static uint16_t client_rx_get(void *qv, struct vf_slot *s, uint16_t n, bool *other)
{
	struct memif_queue *q = qv;
	uint16_t tail, avail, i;

	if (unlikely(!q_ready(q) || q->broken))
		return 0;
	/* Acquire: the server filled the slots up to tail. */
	tail = vf_load_acq16(&q->ring->tail);
	avail = tail - q->last;
	if (unlikely(avail > (uint16_t)(q->posted - q->last))) {
		q_broken(q, "S2C tail beyond the buffers we posted");
		return 0;
	}
	if (avail == 0) {
		memif_client_refill(q);	/* the first posting after a connect */
		return 0;
	}
	if (n > avail)
		n = avail;
	desc_prefetch(q, q->last, n, true);	/* rx_put reposts them */
	for (i = 0; i < n; i++) {
		struct slot sl;

		slot_client(q, (q->last + i) & q->mask, &sl);
		if (unlikely(sl.next || sl.bad))
			break;
		s[i].data = (uint8_t *)sl.data;	/* our own buffer */
		s[i].len = sl.len;
		rte_prefetch0(sl.data);	/* the server just wrote it */
	}
	if (i == 0)
		*other = true;
	return i;
}

static void client_rx_put(void *qv, const struct vf_slot *s, uint16_t n)
{
	struct memif_queue *q = qv;

	count_slots(q, s, n);
	/* Relaxed: memif_if_drain() watches it from the control thread. */
	__atomic_store_n(&q->last, (uint16_t)(q->last + n), __ATOMIC_RELAXED);
	memif_client_refill(q);
}

const struct vf_slot_ops memif_slots_client = {
	.tx_get = client_tx_get,
	.tx_put = client_tx_put,
	.rx_get = client_rx_get,
	.rx_put = client_rx_put,
};

/* ---- server: the client's buffers, wherever its descriptors say ---- */

static uint16_t server_tx_get(void *qv, struct vf_slot *s, uint16_t n, uint32_t room, bool *other)
{
	struct memif_queue *q = qv;
	uint16_t head, avail, i;

	if (unlikely(!q_ready(q) || q->broken))
		return 0;
	/* Acquire: the client's posted descriptors up to head. */
	head = vf_load_acq16(&q->ring->head);
	avail = head - q->last;
	if (unlikely(avail > q->size)) {
		q_broken(q, "S2C head jumped beyond the ring");
		return 0;
	}
	if (n > avail)
		n = avail;
	desc_prefetch(q, q->last, n, true);	/* read, then length written */
	for (i = 0; i < n; i++) {
		struct memif_desc d = q->ring->desc[(uint16_t)(q->last + i) & q->mask];
		const struct memif_region *r;

		/* single fetch; the mbuf burst latches a bad one broken */
		if (unlikely(d.region >= q->nregions || d.length < room))
			break;
		r = &q->regions[d.region];
		if (unlikely((uint64_t)d.offset + d.length > r->size))
			break;
		s[i].data = (uint8_t *)r->addr + d.offset;
		__builtin_prefetch(s[i].data, 1, 3);	/* last read by the client */
	}
	if (i == 0 && avail)
		*other = true;
	return i;
}

static void server_tx_put(void *qv, const struct vf_slot *s, uint16_t k)
{
	tx_put(qv, s, k, true);
}

static uint16_t server_rx_get(void *qv, struct vf_slot *s, uint16_t n, bool *other)
{
	struct memif_queue *q = qv;
	uint16_t head, avail, i;

	if (unlikely(!q_ready(q) || q->broken))
		return 0;
	/* Acquire: the descriptors and data up to head are the client's. */
	head = vf_load_acq16(&q->ring->head);
	avail = head - q->last;
	if (avail == 0)
		return 0;
	if (unlikely(avail > q->size)) {
		q_broken(q, "C2S head jumped beyond the ring");
		return 0;
	}
	if (n > avail)
		n = avail;
	desc_prefetch(q, q->last, n, false);
	for (i = 0; i < n; i++) {
		struct slot sl = { .data = NULL };	/* set unless bad */

		slot_server(q, (q->last + i) & q->mask, &sl);
		if (unlikely(sl.next || sl.bad))
			break;
		s[i].data = (uint8_t *)sl.data;
		s[i].len = sl.len;
		rte_prefetch0(sl.data);	/* the client just wrote it */
	}
	if (i == 0)
		*other = true;
	return i;
}

static void server_rx_put(void *qv, const struct vf_slot *s, uint16_t n)
{
	struct memif_queue *q = qv;

	if (n == 0)
		return;
	count_slots(q, s, n);
	/* Relaxed: memif_if_drain() watches it from the control thread. */
	__atomic_store_n(&q->last, (uint16_t)(q->last + n), __ATOMIC_RELAXED);
	/* Release: we are done reading those slots and their buffers. */
	vf_store_rel16(&q->ring->tail, q->last);
}

const struct vf_slot_ops memif_slots_server = {
	.tx_get = server_tx_get,
	.tx_put = server_tx_put,
	.rx_get = server_rx_get,
	.rx_put = server_rx_put,
};
