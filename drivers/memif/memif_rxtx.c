/* memif data path, copy mode.  Four burst functions, one per role and
 * direction, installed once at start:
 *
 *   client tx: C2S ring, we produce at head, server frees up to tail
 *   client rx: S2C ring, server fills up to tail, we repost buffers at head
 *   server rx: C2S ring, client produced up to head, we release to tail
 *   server tx: S2C ring, client posted buffers up to head, we fill to tail
 *
 * Every descriptor the peer can write is copied once into a local and
 * validated there (region, offset+length inside the region, length within
 * the buffer).  A bad descriptor drops its packet (counted); an index that
 * jumps further than the ring latches the queue broken and the control
 * thread disconnects (its health timer).  No syscall unless the peer's ring
 * flags ask for an interrupt. */
#include <string.h>
#include <unistd.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_prefetch.h>

#include "common/vring_sync.h"
#include "memif.h"
#include "memif_ring.h"
#include "vf_mbuf.h"
#include "vf_log.h"

#define RX_MAX_SLOTS 1024	/* descriptors examined per rx burst */

void memif_queue_reset(struct memif_queue *q)
{
	q->last = 0;
	q->posted = 0;
	q->broken = 0;
	q->log_bad_desc = false;
	q->log_ring = false;
}

/* ---- receive: slots -> mbufs ---- */

#define RX_MAX_PKT_BYTES 65535u	/* larger chains are dropped */

/* Consumes up to n packets from [q->last, q->last + avail); avail is
 * already checked <= ring size.  Returns the packets delivered; *consumed =
 * slots used (complete packets only, dropped ones included). */
static inline uint16_t
rx_slots(struct memif_queue *q, struct rte_mbuf **pkts, uint16_t n, uint16_t avail,
	 bool server, uint16_t *consumed)
{
	struct slot sl[RX_MAX_SLOTS];
	struct rte_mbuf *mb[RX_MAX_SLOTS];
	uint16_t mask = q->mask, room = q->mbuf_room;
	unsigned int i, first = 0, nslots = 0, npkts = 0, nmb = 0, need = 0;
	unsigned int pkt_need = 0;
	uint64_t pkt_bytes = 0, bytes = 0;
	bool pkt_bad = false;

	if (avail > RX_MAX_SLOTS)
		avail = RX_MAX_SLOTS;
	desc_prefetch(q, q->last, RTE_MIN(avail, n), !server);	/* the client reposts them */
	/* Pass 1: fetch and validate descriptors once, find complete packets,
	 * count the mbufs they need.  A bad packet keeps sl[first].bad set
	 * and needs no mbuf. */
	for (i = 0; i < avail && npkts < n; i++) {
		struct slot *s = &sl[i];

		if (server)
			slot_server(q, (q->last + i) & mask, s);
		else
			slot_client(q, (q->last + i) & mask, s);
		if (likely(!s->bad))
			rte_prefetch0(s->data);	/* the peer just wrote it: start the miss */
		pkt_bad |= s->bad;
		pkt_bytes += s->len;
		if (!s->bad)
			pkt_need += likely(s->len <= room) ? 1 : (s->len + room - 1) / room;
		if (s->next)
			continue;
		if (pkt_bad || pkt_bytes > RX_MAX_PKT_BYTES) {
			sl[first].bad = true;
			pkt_need = 0;
		}
		if (need + pkt_need > RX_MAX_SLOTS)
			break;
		need += pkt_need;
		npkts++;
		nslots = i + 1;
		first = i + 1;
		pkt_need = 0;
		pkt_bytes = 0;
		pkt_bad = false;
	}
	*consumed = 0;
	if (npkts == 0) {
		/* A chain that fills the whole ring can never complete. */
		if (avail == q->size && i == avail)
			q_broken(q, "descriptor chain longer than the ring");
		return 0;
	}
	if (need > 0 && vf_mbuf_alloc_bulk_len(q->pool, mb, need, q->port_id, 0) != 0) {
		vf_ctr_add(q->nombuf, npkts);
		return 0;
	}

	/* Pass 2: copy packet by packet from the validated copies. */
	npkts = 0;
	for (i = 0; i < nslots; ) {
		struct rte_mbuf *head = NULL, *tail = NULL;
		unsigned int j = i;

		while (sl[j].next)
			j++;
		if (unlikely(sl[i].bad)) {
			vf_ctr_add(q->bad_desc, 1);
			VF_LOG_ONCE(q->log_bad_desc, VF_LOG_WARN,
				    "memif %s: queue %u: bad descriptor (outside the shared memory or too long); packet dropped",
				    q->mif->cfg.if_name, q->qid);
			i = j + 1;
			continue;
		}
		for (; i <= j; i++) {
			const uint8_t *src = sl[i].data;
			uint32_t left = sl[i].len;

			if (likely(left <= room && tail == NULL)) {
				/* Fast path: one slot, one mbuf, one copy. */
				head = tail = mb[nmb++];
				rte_memcpy(rte_pktmbuf_mtod(head, uint8_t *), src, left);
				head->data_len = left;
				head->pkt_len = left;
				continue;
			}
			do {
				struct rte_mbuf *m = tail;
				uint16_t c;

				if (m == NULL || rte_pktmbuf_tailroom(m) == 0) {
					m = mb[nmb++];
					if (head == NULL) {
						head = m;
					} else {
						tail->next = m;
						head->nb_segs++;
					}
					tail = m;
				}
				c = RTE_MIN(left, (uint32_t)rte_pktmbuf_tailroom(m));
				memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, m->data_len), src, c);
				m->data_len += c;
				head->pkt_len += c;
				src += c;
				left -= c;
			} while (left > 0);
		}
		bytes += head->pkt_len;
		pkts[npkts++] = head;
	}
	/* Filling tails can save mbufs counted in pass 1. */
	if (nmb < need)
		vf_mbuf_free_bulk(&mb[nmb], need - nmb);
	vf_ctr_add(q->pkts, npkts);
	vf_ctr_add(q->bytes, bytes);
	*consumed = nslots;
	return npkts;
}

uint16_t memif_rx_server(void *qv, struct rte_mbuf **pkts, uint16_t n)
{
	struct memif_queue *q = qv;
	uint16_t head, avail, got, used;

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
	got = rx_slots(q, pkts, n, avail, true, &used);
	if (used) {
		/* Relaxed: memif_if_drain() watches it from the control thread. */
		__atomic_store_n(&q->last, (uint16_t)(q->last + used), __ATOMIC_RELAXED);
		/* Release: we are done reading those slots and their buffers. */
		vf_store_rel16(&q->ring->tail, q->last);
	}
	return got;
}

/* Client: repost every consumed buffer, capacity bsize, at our offsets. */
void memif_client_refill(struct memif_queue *q)
{
	uint16_t target = q->last + q->size, s;

	if (q->posted == target)
		return;
	for (s = q->posted; s != target; s++) {
		struct memif_desc *d = &q->ring->desc[s & q->mask];

		desc_set16(&d->flags, 0);
		desc_set16(&d->region, 0);
		desc_set32(&d->length, q->bsize);
		desc_set32(&d->offset, q->buf_base + (uint32_t)(s & q->mask) * q->bsize);
	}
	q->posted = target;
	/* Release: the descriptors above are written before the server sees
	 * the new head. */
	vf_store_rel16(&q->ring->head, target);
}

uint16_t memif_rx_client(void *qv, struct rte_mbuf **pkts, uint16_t n)
{
	struct memif_queue *q = qv;
	uint16_t tail, avail, got = 0, used = 0;

	if (unlikely(!q_ready(q) || q->broken))
		return 0;
	/* Acquire: the server filled the slots up to tail. */
	tail = vf_load_acq16(&q->ring->tail);
	avail = tail - q->last;
	if (unlikely(avail > (uint16_t)(q->posted - q->last))) {
		q_broken(q, "S2C tail beyond the buffers we posted");
		return 0;
	}
	if (avail) {
		got = rx_slots(q, pkts, n, avail, false, &used);
		/* Relaxed: memif_if_drain() watches it from the control thread. */
		__atomic_store_n(&q->last, (uint16_t)(q->last + used), __ATOMIC_RELAXED);
	}
	memif_client_refill(q);
	return got;
}

/* ---- transmit: mbufs -> slots ---- */

/* Copies m into slots starting at *pos, buffer capacity and address given
 * by the role; returns false (nothing published) when it does not fit in
 * the slots up to end. */
static inline bool
tx_copy(struct memif_queue *q, struct rte_mbuf *m, uint16_t *pos, uint16_t end, bool server)
{
	uint16_t p = *pos, mask = q->mask;
	struct memif_desc *d;
	uint8_t *dst;
	uint32_t cap, used = 0;

	if (p == end)
		return false;
#define SLOT_OPEN() do {						\
		d = &q->ring->desc[p & mask];				\
		if (server) {						\
			struct memif_desc dc = *d;	/* single fetch */ \
			const struct memif_region *r;			\
			if (unlikely(dc.region >= q->nregions ||	\
				     dc.length == 0)) {			\
				q_broken(q, "bad S2C buffer descriptor"); \
				return false;				\
			}						\
			r = &q->regions[dc.region];			\
			if (unlikely((uint64_t)dc.offset + dc.length > r->size)) { \
				q_broken(q, "S2C buffer outside the shared memory"); \
				return false;				\
			}						\
			dst = (uint8_t *)r->addr + dc.offset;		\
			cap = dc.length;				\
		} else {						\
			dst = q->region0 + q->buf_base + (uint64_t)(p & mask) * q->bsize; \
			cap = q->bsize;					\
			desc_set16(&d->region, 0);			\
			desc_set32(&d->offset, q->buf_base + (uint32_t)(p & mask) * q->bsize); \
		}							\
		used = 0;						\
	} while (0)

	SLOT_OPEN();
	for (struct rte_mbuf *seg = m; seg != NULL; seg = seg->next) {
		const uint8_t *src = rte_pktmbuf_mtod(seg, const uint8_t *);
		uint32_t left = seg->data_len;

		while (left > 0) {
			uint32_t c;

			if (used == cap) {
				/* This slot is full: the packet continues. */
				desc_set32(&d->length, used);
				desc_set16(&d->flags, MEMIF_DESC_FLAG_NEXT);
				if (++p == end)
					return false;
				SLOT_OPEN();
			}
			c = left < cap - used ? left : cap - used;
			memcpy(dst + used, src, c);
			used += c;
			src += c;
			left -= c;
		}
	}
	/* Always set flags: a stale NEXT would glue packets together. */
	desc_set32(&d->length, used);
	desc_set16(&d->flags, 0);
	*pos = p + 1;
	return true;
#undef SLOT_OPEN
}

static inline uint16_t
tx_finish(struct memif_queue *q, struct rte_mbuf **pkts, uint16_t sent)
{
	uint64_t bytes = 0;

	for (uint16_t i = 0; i < sent; i++)
		bytes += pkts[i]->pkt_len;
	vf_ctr_add(q->pkts, sent);
	vf_ctr_add(q->bytes, bytes);
	/* Copy mode: the data is in the ring, the mbufs go back to their
	 * pool(s) in one call. */
	vf_mbuf_free_bulk(pkts, sent);
	return sent;
}

uint16_t memif_tx_client(void *qv, struct rte_mbuf **pkts, uint16_t n)
{
	struct memif_queue *q = qv;
	uint16_t tail, inflight, pos, end, i;

	if (unlikely(!q_ready(q) || q->broken)) {
		vf_ctr_add(q->nopeer, n);	/* no peer to send to: dropped */
		return 0;
	}
	/* Acquire: the server has finished reading the slots before tail. */
	tail = vf_load_acq16(&q->ring->tail);
	inflight = q->last - tail;
	if (unlikely(inflight > q->size)) {
		q_broken(q, "C2S tail beyond what we produced");
		return 0;
	}
	pos = q->last;
	end = tail + q->size;
	/* Our buffers, last read by the server: asked for, for writing, before
	 * the copies, so that the ownership requests overlap. */
	for (i = 0; i < RTE_MIN(n, (uint16_t)(end - pos)); i++)
		__builtin_prefetch(q->region0 + q->buf_base + (uint64_t)((pos + i) & q->mask) * q->bsize, 1, 3);
	/* The server has taken everything we gave it, so it is idle: each
	 * completed line of descriptors (four slots) is published at once, and
	 * the server starts on it while we copy the rest.  With few packets in
	 * flight that overlaps the two sides' copies (32 in flight,
	 * ours<->ours: 5.6 -> 8.7 Mpps); a busy server would only fetch the
	 * head line more often, so then head moves once per burst. */
	for (i = 0; i < n; i++) {
		if (!tx_copy(q, pkts[i], &pos, end, false))
			break;
		/* Release: the line's descriptors and payload before head. */
		if (inflight == 0 && (pos & 3) == 0 && i + 1 < n)
			vf_store_rel16(&q->ring->head, pos);
	}
	if (i == 0)
		return 0;
	q->last = pos;
	/* Release: descriptors and payload before the new head. */
	vf_store_rel16(&q->ring->head, pos);
	notify_peer(q);
	return tx_finish(q, pkts, i);
}

uint16_t memif_tx_server(void *qv, struct rte_mbuf **pkts, uint16_t n)
{
	struct memif_queue *q = qv;
	uint16_t head, avail, pos, i;

	if (unlikely(!q_ready(q) || q->broken)) {
		vf_ctr_add(q->nopeer, n);	/* no peer to send to: dropped */
		return 0;
	}
	/* Acquire: the client's posted descriptors up to head. */
	head = vf_load_acq16(&q->ring->head);
	avail = head - q->last;
	if (unlikely(avail > q->size)) {
		q_broken(q, "S2C head jumped beyond the ring");
		return 0;
	}
	pos = q->last;
	desc_prefetch(q, pos, RTE_MIN(avail, n), true);	/* read, then length written */
	/* The client's buffers, last read by it: asked for, for writing, as
	 * soon as their descriptors arrive.  Without this each copy's store
	 * waits in the store buffer for its line, and the buffer fills (256
	 * in flight: ours<->ours 9.8 -> 12.8 Mpps together with PREFETCHW;
	 * alone, with a DPDK client, unresolved: bench/RESULTS.md).  Only a
	 * hint: the descriptor is checked again where it is used, and an
	 * offset outside its region is not prefetched. */
	for (i = 0; i < RTE_MIN(avail, n); i++) {
		const struct memif_desc *d = &q->ring->desc[(uint16_t)(pos + i) & q->mask];
		uint16_t rg = d->region;
		uint32_t off = d->offset;

		if (rg < q->nregions && off < q->regions[rg].size)
			__builtin_prefetch((const uint8_t *)q->regions[rg].addr + off, 1, 3);
	}
	/* No early publishing here (see memif_tx_client): the same on the
	 * server's side only cut the loop into bursts of four (7.8 Mpps
	 * against 8.7 with the client's alone). */
	for (i = 0; i < n; i++)
		if (!tx_copy(q, pkts[i], &pos, head, true))
			break;
	if (i == 0)
		return 0;
	q->last = pos;
	/* Release: the filled buffers and descriptors before tail. */
	vf_store_rel16(&q->ring->tail, pos);
	notify_peer(q);
	return tx_finish(q, pkts, i);
}
