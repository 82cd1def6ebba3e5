/* memif ring helpers shared by the two data paths over our own copies of
 * the descriptors: the mbuf bursts (memif_rxtx.c) and the frames read and
 * written in place (memif_inplace.c).  Not a public header. */
#ifndef MEMIF_RING_H
#define MEMIF_RING_H

#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include <rte_branch_prediction.h>
#include <rte_prefetch.h>

#include "common/vring_sync.h"
#include "memif.h"
#include "vf_log.h"

static inline bool q_ready(const struct memif_queue *q)
{
	/* Pairs with the release in memif_if_connected(): ring pointers and
	 * region addresses are valid once ready reads 1. */
	return __atomic_load_n(&q->ready, __ATOMIC_ACQUIRE) != 0;
}

static inline void q_broken(struct memif_queue *q, const char *what)
{
	vf_ctr_add(q->ring_err, 1);
	__atomic_store_n(&q->broken, 1, __ATOMIC_RELEASE);
	VF_LOG_ONCE(q->log_ring, VF_LOG_ERR, "memif %s: queue %u: %s; disconnecting",
		    q->mif->cfg.if_name, q->qid, what);
}

/* Descriptor stores that leave the line alone when it already holds the
 * value.  In a steady loop most fields are rewritten with what they hold
 * (our region and offsets, flags 0, the same length), and a store would take
 * the line from the peer's cache only for the peer to fetch it back on its
 * next read; a line both sides only read stays shared.  The load is of a
 * line we wrote or read last time round, so it usually hits. */
static inline void desc_set16(uint16_t *p, uint16_t v)
{
	if (*p != v)
		*p = v;
}

static inline void desc_set32(uint32_t *p, uint32_t v)
{
	if (*p != v)
		*p = v;
}

/* Asks for the descriptor lines of slots [from, from + n) at once, four
 * slots to a line: the peer wrote them, so each is a miss, and issued
 * together the misses overlap instead of coming one per four packets. */
static inline void desc_prefetch(const struct memif_queue *q, uint16_t from, uint16_t n, bool write)
{
	for (uint16_t i = 0; i < n; i += 4) {
		const struct memif_desc *d = &q->ring->desc[(uint16_t)(from + i) & q->mask];

		if (write)
			__builtin_prefetch(d, 1, 3);	/* rte_prefetch0_write: experimental in 22.11 */
		else
			rte_prefetch0(d);
	}
}

/* After publishing head/tail: wake the peer only if it asked for it. */
static inline void notify_peer(struct memif_queue *q)
{
	uint64_t one = 1;

	/* Store (head/tail) -> load (flags) ordering, else a peer that clears
	 * MASK_INT and then re-checks the ring could miss our update. */
	vf_mb();
	if (!(vf_load_acq16(&q->ring->flags) & MEMIF_RING_FLAG_MASK_INT)) {
		if (write(q->intr_fd, &one, sizeof(one)) < 0) {
			/* EAGAIN: counter saturated, the peer is awake anyway. */
		}
	}
}

struct slot {
	const uint8_t *data;
	uint32_t len;
	bool next;
	bool bad;
};

/* Validates a server-side descriptor against the peer's regions. */
static inline void slot_server(const struct memif_queue *q, uint16_t s, struct slot *out)
{
	struct memif_desc d = q->ring->desc[s];	/* single fetch */
	const struct memif_region *r;

	out->next = d.flags & MEMIF_DESC_FLAG_NEXT;
	out->len = d.length;
	if (unlikely(d.region >= q->nregions)) {
		out->bad = true;
		return;
	}
	r = &q->regions[d.region];
	if (unlikely((uint64_t)d.offset + d.length > r->size)) {
		out->bad = true;
		return;
	}
	out->bad = false;
	out->data = (const uint8_t *)r->addr + d.offset;
}

/* Client side: the buffer is ours (slot index), only the length and flags
 * come from the peer. */
static inline void slot_client(const struct memif_queue *q, uint16_t s, struct slot *out)
{
	struct memif_desc d = q->ring->desc[s];

	out->next = d.flags & MEMIF_DESC_FLAG_NEXT;
	out->len = d.length;
	out->bad = d.length > q->bsize;
	out->data = q->region0 + q->buf_base + (uint64_t)s * q->bsize;
}

#endif
