/* memif zero-copy, client side: descriptors point straight into our mbufs,
 * which live in DPDK memory that we hand to the server as regions 1..k
 * (lib/core/vf_mem.h).  No packet byte is copied on our side.
 *
 *   tx (C2S): each mbuf segment becomes one descriptor; the packet's head
 *             mbuf is parked at its last slot and freed once the server's
 *             tail has passed it.
 *   rx (S2C): fresh mbufs' data rooms are posted; a filled slot's mbuf is
 *             handed up with the length the server wrote (checked against
 *             the room).
 *
 * The server side is the same as in copy mode (it honours each
 * descriptor's region and offset), as in DPDK. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "common/vring_sync.h"
#include "memif.h"
#include "vf_log.h"
#include "vf_mem.h"

struct chunk_ctx {
	struct vf_mem_region regs[VF_MEM_MAX_REGIONS];
	int n;
};

int memif_zc_check(struct rte_mempool *pool, char *why, size_t len)
{
	struct chunk_ctx c;

	c.n = vf_mem_regions(c.regs, VF_MEM_MAX_REGIONS);
	if (c.n <= 0) {
		snprintf(why, len, "DPDK memory cannot be shared by fd (%s)",
			 c.n < 0 ? strerror(-c.n) : "no region");
		return -ENOTSUP;
	}
	if (c.n > MEMIF_MAX_ZREGIONS) {
		snprintf(why, len, "DPDK memory is in %d pieces, at most %d can be shared",
			 c.n, MEMIF_MAX_ZREGIONS);
		return -E2BIG;
	}
	for (int i = 0; i < c.n; i++) {
		if (c.regs[i].offset + c.regs[i].len > UINT32_MAX) {
			snprintf(why, len, "a DPDK memory region is larger than 4 GiB "
				 "(memif offsets are 32 bits)");
			return -E2BIG;
		}
	}
	if (pool == NULL) {
		snprintf(why, len, "no mbuf pool");
		return -EINVAL;
	}
	if (!vf_mem_pool_in(c.regs, c.n, pool)) {
		snprintf(why, len, "the mbuf pool is not in fd-backed DPDK memory");
		return -ENOTSUP;
	}
	return 0;
}

/* The region holding [p, p+len): a few compares, k is 1 or 2 in practice. */
static inline const struct memif_zregion *
zr_find(const struct memif_queue *q, uintptr_t p, uint32_t len)
{
	for (uint8_t i = 0; i < q->nzr; i++)
		if (p >= q->zr[i].lo && p + len <= q->zr[i].hi)
			return &q->zr[i];
	return NULL;
}

void memif_queue_reclaim(struct memif_queue *q)
{
	if (q->zc_mbufs == NULL)
		return;
	for (uint32_t i = 0; i < q->size; i++) {
		if (q->zc_mbufs[i] != NULL) {
			rte_pktmbuf_free(q->zc_mbufs[i]);
			q->zc_mbufs[i] = NULL;
		}
	}
}

uint16_t memif_tx_client_zc(void *qv, struct rte_mbuf **pkts, uint16_t n)
{
	struct memif_queue *q = qv;
	struct rte_mbuf *done[64];
	uint16_t tail, pos, i, nd = 0, sent = 0;
	uint64_t bytes = 0;

	if (unlikely(!__atomic_load_n(&q->ready, __ATOMIC_ACQUIRE) || q->broken)) {
		vf_ctr_add(q->nopeer, n);	/* no peer to send to: dropped */
		return 0;
	}
	/* Acquire: the server has finished with the slots before tail. */
	tail = vf_load_acq16(&q->ring->tail);
	if (unlikely((uint16_t)(q->last - tail) > q->size ||
		     (uint16_t)(tail - q->zc_freed) > (uint16_t)(q->last - q->zc_freed))) {
		vf_ctr_add(q->ring_err, 1);
		__atomic_store_n(&q->broken, 1, __ATOMIC_RELEASE);
		return 0;
	}
	/* Release the mbufs of the slots the server has consumed. */
	for (uint16_t s = q->zc_freed; s != tail; s++) {
		struct rte_mbuf **slot = &q->zc_mbufs[s & q->mask];

		if (*slot != NULL) {
			done[nd++] = *slot;
			*slot = NULL;
			if (nd == RTE_DIM(done)) {
				rte_pktmbuf_free_bulk(done, nd);
				nd = 0;
			}
		}
	}
	if (nd)
		rte_pktmbuf_free_bulk(done, nd);
	q->zc_freed = tail;

	pos = q->last;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i], *seg;
		uint16_t p = pos;

		if (m->nb_segs > (uint16_t)(tail + q->size - pos))
			break;	/* does not fit: the caller keeps it */
		for (seg = m; seg != NULL; seg = seg->next) {
			uintptr_t data = rte_pktmbuf_mtod(seg, uintptr_t);
			const struct memif_zregion *r = zr_find(q, data, seg->data_len);
			struct memif_desc *d = &q->ring->desc[p & q->mask];

			if (unlikely(r == NULL))
				break;
			d->region = r->index;
			d->offset = data - r->base;
			d->length = seg->data_len;
			d->flags = seg->next ? MEMIF_DESC_FLAG_NEXT : 0;
			q->zc_mbufs[p & q->mask] = NULL;
			p++;
		}
		if (unlikely(seg != NULL)) {
			/* memory we cannot share (another pool): dropped */
			vf_ctr_add(q->errors, 1);
			rte_pktmbuf_free(m);
			continue;
		}
		/* the whole chain goes back when the last slot is released */
		q->zc_mbufs[(p - 1) & q->mask] = m;
		bytes += m->pkt_len;
		pos = p;
		sent++;
	}
	if (pos != q->last) {
		q->last = pos;
		/* Release: descriptors before the new head. */
		vf_store_rel16(&q->ring->head, pos);
		vf_mb();	/* head store -> flags load */
		if (!(vf_load_acq16(&q->ring->flags) & MEMIF_RING_FLAG_MASK_INT)) {
			uint64_t one = 1;

			if (write(q->intr_fd, &one, sizeof(one)) < 0) {
				/* counter saturated: the peer is awake anyway */
			}
		}
	}
	vf_ctr_add(q->pkts, sent);
	vf_ctr_add(q->bytes, bytes);
	/* taken: sent or dropped; the rest stays with the caller */
	return i;
}

void memif_client_refill_zc(struct memif_queue *q)
{
	uint16_t target = q->last + q->size, want = target - q->posted, got;
	struct rte_mbuf *mb[512];

	while (want > 0) {
		got = RTE_MIN(want, (uint16_t)RTE_DIM(mb));
		if (rte_pktmbuf_alloc_bulk(q->pool, mb, got) != 0) {
			vf_ctr_add(q->nombuf, 1);
			break;
		}
		for (uint16_t i = 0; i < got; i++) {
			struct rte_mbuf *m = mb[i];
			uintptr_t data = rte_pktmbuf_mtod(m, uintptr_t);
			const struct memif_zregion *r = zr_find(q, data, q->mbuf_room);
			struct memif_desc *d = &q->ring->desc[q->posted & q->mask];

			if (unlikely(r == NULL)) {
				/* checked at start: the pool is in shared memory */
				rte_pktmbuf_free_bulk(mb + i, got - i);
				vf_ctr_add(q->errors, 1);
				goto publish;
			}
			d->region = r->index;
			d->offset = data - r->base;
			d->length = q->mbuf_room;
			d->flags = 0;
			q->zc_mbufs[q->posted & q->mask] = m;
			q->posted++;
		}
		want -= got;
	}
publish:
	/* Release: the posted descriptors before the new head. */
	vf_store_rel16(&q->ring->head, q->posted);
}

uint16_t memif_rx_client_zc(void *qv, struct rte_mbuf **pkts, uint16_t n)
{
	struct memif_queue *q = qv;
	uint16_t tail, avail, i, first, npkts = 0;
	uint64_t bytes = 0;

	if (unlikely(!__atomic_load_n(&q->ready, __ATOMIC_ACQUIRE) || q->broken))
		return 0;
	/* Acquire: the server filled the slots up to tail. */
	tail = vf_load_acq16(&q->ring->tail);
	avail = tail - q->last;
	if (unlikely(avail > (uint16_t)(q->posted - q->last))) {
		vf_ctr_add(q->ring_err, 1);
		__atomic_store_n(&q->broken, 1, __ATOMIC_RELEASE);
		return 0;
	}
	first = 0;
	for (i = 0; i < avail && npkts < n; i++) {
		struct memif_desc d = q->ring->desc[(q->last + i) & q->mask];	/* single fetch */

		if (d.flags & MEMIF_DESC_FLAG_NEXT)
			continue;
		/* slots [first, i] are one packet */
		struct rte_mbuf *head = NULL, *tail_m = NULL;
		bool bad = false;

		for (uint16_t k = first; k <= i; k++) {
			uint16_t s = (q->last + k) & q->mask;
			struct rte_mbuf *m = q->zc_mbufs[s];
			uint32_t len = q->ring->desc[s].length;

			q->zc_mbufs[s] = NULL;
			if (k == i)
				len = d.length;
			if (unlikely(len > q->mbuf_room))
				bad = true;
			m->data_len = bad ? 0 : len;
			m->pkt_len = m->data_len;
			m->nb_segs = 1;
			m->next = NULL;
			if (head == NULL) {
				head = m;
			} else {
				tail_m->next = m;
				head->nb_segs++;
				head->pkt_len += m->data_len;
			}
			tail_m = m;
		}
		first = i + 1;
		if (unlikely(bad)) {
			vf_ctr_add(q->bad_desc, 1);
			rte_pktmbuf_free(head);
			continue;
		}
		bytes += head->pkt_len;
		pkts[npkts++] = head;
	}
	/* Relaxed: memif_if_drain() watches it from the control thread. */
	__atomic_store_n(&q->last, (uint16_t)(q->last + first), __ATOMIC_RELAXED);
	vf_ctr_add(q->pkts, npkts);
	vf_ctr_add(q->bytes, bytes);
	if (first == 0 && avail == q->size)
		__atomic_store_n(&q->broken, 1, __ATOMIC_RELEASE);	/* endless chain */
	memif_client_refill_zc(q);
	return npkts;
}
