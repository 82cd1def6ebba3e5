/* Split virtqueue, driver side: posting chains, reading completions.
 *
 * Ring block (ours, in memory the backend was given by SET_MEM_TABLE):
 *
 *   +0                 desc[N]     16*N B   driver writes, device reads
 *   +16N               avail       4+2N B   driver writes (flags, idx, ring[])
 *   +align64(..)       used        4+8N B   device writes (flags, idx, ring[])
 *
 * Everything the device writes (used->idx, used->ring[].id/len, used->flags)
 * is untrusted: it is read once into locals, checked against our private
 * per-descriptor state (struct vqs_slot) and never used as a raw index.  A
 * structural error latches `broken`; the caller stops touching the ring.
 *
 * Two ways to hand out descriptors, chosen once at init:
 *  - in-order (VIRTIO_F_IN_ORDER negotiated): descriptors are used in ring
 *    order, chains are contiguous, completions come back oldest first, so a
 *    batch of n completions is taken from `tail` without any free list; only
 *    the last used entry of the batch is checked (the device may write just
 *    that one, virtio 1.1 "In-order feature").
 *  - out of order: a private free list through vqs_slot.next; every used
 *    entry names its chain head.
 *
 * No EVENT_IDX: we never negotiate it, so notification suppression is the
 * flags words only (used->flags NO_NOTIFY for our kicks, avail->flags
 * NO_INTERRUPT for the device's calls, which we suppress while we poll:
 * a core about to sleep in an rx mode clears it, virtio_intr.c).
 *
 * The code has no DPDK dependency so the unit tests can play the device in
 * plain memory. */
#ifndef VIRTQUEUE_SPLIT_H
#define VIRTQUEUE_SPLIT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/virtio_ring.h>

#include "common/vring_sync.h"

#define VQS_MAX_SIZE 32768u

enum vqs_err {
	VQS_ERR_BAD_ID,		/* used id out of range / not outstanding (D1) */
	VQS_ERR_BAD_LEN,	/* used len larger than the posted buffer (D2) */
	VQS_ERR_IDX_JUMP,	/* used idx advanced past what is outstanding (D3) */
	VQS_ERR_MAX
};

/* Private state per descriptor; never shared with the device. */
struct vqs_slot {
	void *cookie;		/* chain head: what it carries; NULL: not outstanding */
	uint32_t len;		/* chain head: device-writable bytes posted */
	uint16_t ndesc;		/* chain head: descriptors in the chain */
	uint16_t next;		/* out-of-order free list link */
};

struct vqs_seg {
	uint64_t addr;
	uint32_t len;
};

struct vq_split {
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	struct vqs_slot *slot;
	uint16_t size, mask;
	uint16_t avail_idx;	/* next avail->idx value (published by vqs_publish) */
	uint16_t used_idx;	/* next used entry to read */
	uint16_t nfree;		/* free descriptors */
	uint16_t head;		/* next descriptor: ring order or free-list head */
	uint16_t tail;		/* in-order: head of the oldest outstanding chain */
	uint16_t inflight;	/* chains posted, not completed */
	bool in_order;
	bool broken;
	uint64_t err[VQS_ERR_MAX];
};

/* Bytes of the ring block for a ring of `size` entries. */
size_t vqs_mem_size(uint16_t size);

/* Lays the ring out in mem (vqs_mem_size(size) bytes, 64-byte aligned,
 * zeroed here) with slots[size] as private state.  The device's calls are
 * suppressed (avail->flags = NO_INTERRUPT; virtio_intr.c asks for them).  Returns 0 or -EINVAL (size not
 * a power of two in 1..32768). */
int vqs_init(struct vq_split *vq, void *mem, uint16_t size, bool in_order,
	     struct vqs_slot *slots);

/* Hands every outstanding cookie to fn and makes the ring empty again (the
 * device must not be using the ring any more).  Clears `broken`. */
void vqs_drain(struct vq_split *vq, void (*fn)(void *cookie, void *arg), void *arg);

static inline void vqs_break(struct vq_split *vq, enum vqs_err e)
{
	vq->err[e]++;
	vq->broken = true;
}

/* Descriptor address from a pointer: descriptors carry our virtual
 * addresses (guest_phys_addr == userspace_addr == our VA in the table). */
static inline uint64_t vqs_addr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* Takes the next descriptor index for a chain being built. */
static inline uint16_t vqs__take(struct vq_split *vq, uint16_t cur)
{
	return vq->in_order ? (uint16_t)((cur + 1) & vq->mask) : vq->slot[cur].next;
}

static inline void vqs__add_head(struct vq_split *vq, uint16_t head, uint16_t n,
				 void *cookie, uint32_t wlen)
{
	struct vqs_slot *s = &vq->slot[head];

	s->cookie = cookie;
	s->len = wlen;
	s->ndesc = n;
	uint16_t *a = &vq->avail->ring[vq->avail_idx & vq->mask];

	/* In steady state (in-order, one descriptor per chain) the entry
	 * already holds this head: leaving it unwritten keeps the line shared
	 * with the device instead of pulling it back on every pass. */
	if (*a != head)
		*a = head;
	vq->avail_idx++;
	vq->inflight++;
	vq->nfree -= n;
}

/* Posts a one-descriptor chain (caller checked nfree >= 1).  flags:
 * VRING_DESC_F_WRITE for a receive buffer.  Not visible to the device before
 * vqs_publish(). */
static inline void vqs_post1(struct vq_split *vq, uint64_t addr, uint32_t len,
			     uint16_t flags, void *cookie)
{
	uint16_t h = vq->head;
	struct vring_desc *d = &vq->desc[h];

	d->addr = addr;
	d->len = len;
	d->flags = flags;
	vq->head = vqs__take(vq, h);
	vqs__add_head(vq, h, 1, cookie, (flags & VRING_DESC_F_WRITE) ? len : 0);
}

/* Posts a device-readable chain of n segments (1 <= n <= nfree). */
static inline void vqs_postv(struct vq_split *vq, const struct vqs_seg *seg,
			     uint16_t n, void *cookie)
{
	uint16_t h = vq->head, x = h, i;

	for (i = 0; i < n; i++) {
		struct vring_desc *d = &vq->desc[x];
		uint16_t nx = vqs__take(vq, x);

		d->addr = seg[i].addr;
		d->len = seg[i].len;
		d->flags = i + 1 < n ? VRING_DESC_F_NEXT : 0;
		d->next = nx;
		x = nx;
	}
	vq->head = x;
	vqs__add_head(vq, h, n, cookie, 0);
}

/* Makes everything posted so far visible to the device. */
static inline void vqs_publish(struct vq_split *vq)
{
	/* Pairs with the device's acquire of avail->idx: descriptors and avail
	 * entries written above are visible before the new index. */
	vf_store_rel16(&vq->avail->idx, vq->avail_idx);
}

/* After vqs_publish(): does the device want a kick? */
static inline bool vqs_need_kick(struct vq_split *vq)
{
	/* Store (avail->idx) -> load (used->flags): without a full fence a
	 * device that just cleared NO_NOTIFY and re-checked avail->idx could
	 * miss our update and sleep forever. */
	vf_mb();
	return !(__atomic_load_n(&vq->used->flags, __ATOMIC_RELAXED) & VRING_USED_F_NO_NOTIFY);
}

/* New used entries, at most `inflight` (else the ring is broken: D3).
 * Returns the count (0 when broken). */
static inline uint16_t vqs_used_count(struct vq_split *vq)
{
	uint16_t n;

	if (__builtin_expect(vq->broken, 0))
		return 0;
	/* Pairs with the device's release of used->idx: the entries and the
	 * buffer contents are read after this. */
	n = (uint16_t)(vf_load_acq16(&vq->used->idx) - vq->used_idx);
	if (__builtin_expect(n > vq->inflight, 0)) {
		vqs_break(vq, VQS_ERR_IDX_JUMP);
		return 0;
	}
	return n;
}

/* In-order: checks that the last of the next n used entries (n from
 * vqs_used_count) names the head of the n-th oldest chain.  On mismatch the
 * ring is broken (D1) and false is returned. */
bool vqs_inorder_check(struct vq_split *vq, uint16_t n);

/* In-order: completes the n oldest chains (after vqs_inorder_check of a
 * count >= n) and stores their cookies.  No per-entry reads of the used
 * ring. */
static inline void vqs_inorder_take(struct vq_split *vq, uint16_t n, void **cookies)
{
	uint16_t t = vq->tail, freed = 0, i;

	for (i = 0; i < n; i++) {
		struct vqs_slot *s = &vq->slot[t];

		cookies[i] = s->cookie;
		s->cookie = NULL;
		freed += s->ndesc;
		t = (t + s->ndesc) & vq->mask;
	}
	vq->tail = t;
	vq->nfree += freed;
	vq->inflight -= n;
	vq->used_idx += n;
}

/* The next used entry (one of those counted by vqs_used_count), read once
 * and not completed: the chain head it names and the length it claims.
 * -EPROTO when it names no outstanding chain (nothing changed: vqs_get on
 * it breaks the ring). */
static inline int vqs_peek(const struct vq_split *vq, uint16_t *id, uint32_t *len)
{
	const volatile struct vring_used_elem *e = &vq->used->ring[vq->used_idx & vq->mask];
	uint32_t i = e->id, l = e->len;	/* single fetch of device data */

	if (vq->in_order ? i != vq->tail : i >= vq->size || vq->slot[i].cookie == NULL)
		return -EPROTO;
	*id = (uint16_t)i;
	*len = l;
	return 0;
}

/* Completes the chain of the next used entry, head id (from vqs_peek), and
 * returns its cookie. */
static inline void *vqs_complete(struct vq_split *vq, uint16_t id)
{
	struct vqs_slot *s = &vq->slot[id];
	void *cookie = s->cookie;

	s->cookie = NULL;
	vq->nfree += s->ndesc;
	vq->inflight--;
	vq->used_idx++;
	if (vq->in_order) {
		vq->tail = (vq->tail + s->ndesc) & vq->mask;
	} else {
		uint16_t last = id, k;

		for (k = 1; k < s->ndesc; k++)
			last = vq->slot[last].next;
		vq->slot[last].next = vq->head;
		vq->head = id;
	}
	return cookie;
}

/* Reads the next used entry (one of those counted by vqs_used_count),
 * completes its chain and returns its cookie and the used length.
 * Returns 0; -EMSGSIZE when the device claims more bytes than posted (the
 * chain is completed anyway, *len is the claimed length, counted: D2); or
 * -EPROTO when the entry names no outstanding chain (ring broken: D1;
 * nothing completed). */
static inline int vqs_get(struct vq_split *vq, void **cookie, uint32_t *len)
{
	uint16_t id;
	uint32_t posted;

	if (__builtin_expect(vqs_peek(vq, &id, len) != 0, 0)) {
		vqs_break(vq, VQS_ERR_BAD_ID);
		return -EPROTO;
	}
	posted = vq->slot[id].len;
	*cookie = vqs_complete(vq, id);
	if (__builtin_expect(*len > posted, 0)) {
		vq->err[VQS_ERR_BAD_LEN]++;
		return -EMSGSIZE;
	}
	return 0;
}

#endif
