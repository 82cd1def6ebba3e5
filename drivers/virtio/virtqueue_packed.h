/* Packed virtqueue (VIRTIO_F_RING_PACKED), driver side: posting chains,
 * reading completions, event suppression.
 *
 * Ring block (ours, inside the memory the backend got in SET_MEM_TABLE):
 *
 *   +0        desc[N]        16*N B  both write (we: available, device: used)
 *   +16N      driver area     4 B    we write: device->driver calls (always
 *                                    DISABLE: we poll)
 *   +16N+64   device area     4 B    device writes: our kicks
 *
 * Each side walks the ring in slot order with its own wrap counter
 * (starting at 1).  We make a slot available with AVAIL = our wrap and
 * USED = !wrap; the device marks a buffer used with AVAIL = USED = its wrap
 * at *its* next used slot and we skip the slots of that chain
 * (protocols.md §2.3).
 *
 * Buffer ids index private per-buffer state (struct vqp_slot):
 *  - in-order (VIRTIO_F_IN_ORDER): id = slot of the chain's head.  The
 *    device may complete a batch of chains with one used descriptor naming
 *    the last of them, written at the batch's first slot (§2.4); the tx
 *    reclaim counts the chains up to that id with no free list and no
 *    per-chain read of the ring.
 *  - out of order: ids come from a free list through vqp_slot.next.
 *
 * Everything the device writes (flags, id, len, the device area) is read
 * once into locals and checked against our private state.  At our next
 * used slot, while descriptors are outstanding, the flags can only be our
 * own "available" pattern or the device's "used" pattern for this lap;
 * anything else, or an id that is not outstanding, latches `broken`
 * (hardening.md D1-D3 as for split); a length over the posted buffer is
 * counted and the buffer dropped by the caller.
 *
 * Publishing: the head flags of the *first* chain posted since the last
 * vqp_publish() are held back and stored last (release), so the device
 * never sees a partial chain; later heads can be written directly, the
 * device cannot reach them before the first.  vqp_post1() also publishes
 * each time it completes a cache line of descriptors (four): with few
 * packets in flight the device, idle at our first head, starts on the
 * first line while we write the rest (32 in flight, ours<->ours: 5.7 ->
 * 8.4 Mpps), and it never reads a line we are still writing, which
 * publishing every descriptor (DPDK's order) costs with many in flight
 * (256: -11%; per line: even).
 *
 * No DPDK dependency so the unit tests can play the device in plain
 * memory. */
#ifndef VIRTQUEUE_PACKED_H
#define VIRTQUEUE_PACKED_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/virtio_ring.h>

#include "common/vring_sync.h"

#define VQP_MAX_SIZE 32768u
/* The UAPI gives bit numbers, not masks (protocols.md pitfall 12). */
#define VQP_F_AVAIL ((uint16_t)(1u << VRING_PACKED_DESC_F_AVAIL))
#define VQP_F_USED ((uint16_t)(1u << VRING_PACKED_DESC_F_USED))
#define VQP_WRAP_BIT ((uint16_t)(1u << VRING_PACKED_EVENT_F_WRAP_CTR))
#define VQP_NONE 0xffffu

enum vqp_err {
	VQP_ERR_BAD_ID,		/* used id out of range / not outstanding */
	VQP_ERR_BAD_LEN,	/* used len larger than the posted buffer */
	VQP_ERR_BAD_FLAGS,	/* used slot flags match neither pattern of this lap */
	VQP_ERR_MAX
};

/* Private state per buffer id; never shared with the device. */
struct vqp_slot {
	void *cookie;		/* NULL: id not outstanding */
	uint32_t len;		/* device-writable bytes posted */
	uint16_t ndesc;		/* descriptors in the chain */
	uint16_t next;		/* out-of-order id free list */
};

struct vqp_seg {
	uint64_t addr;
	uint32_t len;
};

struct vq_packed {
	struct vring_packed_desc *desc;
	struct vring_packed_desc_event *drv;	/* driver area (ours) */
	struct vring_packed_desc_event *dev;	/* device area (untrusted) */
	struct vqp_slot *slot;
	uint16_t size;
	uint16_t avail_slot;	/* next slot we write */
	uint16_t avail_flags;	/* AVAIL/USED bits for avail_slot's lap */
	uint16_t used_slot;	/* next slot the device writes a used desc */
	uint16_t nfree;		/* free descriptors */
	uint16_t free_id;	/* out of order: free id list head */
	uint16_t tail;		/* in-order: id (head slot) of the oldest chain */
	uint16_t inflight;	/* chains posted and not taken back */
	uint16_t done;		/* in-order: chains seen used, not yet taken */
	uint16_t done_desc;	/* ... and their descriptors */
	uint16_t pend;		/* slot whose head flags are held back (VQP_NONE) */
	uint16_t pend_flags;
	uint16_t added;		/* descriptors published since the last kick check */
	bool avail_wrap, used_wrap;
	bool in_order;
	bool event_idx;		/* VIRTIO_RING_F_EVENT_IDX: DESC mode kicks */
	bool broken;
	uint64_t err[VQP_ERR_MAX];
};

/* Bytes of the ring block for a ring of `size` entries. */
size_t vqp_mem_size(uint16_t size);

/* Lays the ring out in mem (vqp_mem_size(size) bytes, 64-byte aligned,
 * zeroed here) with slots[size] as private state; wrap counters 1, driver
 * area DISABLE.  Returns 0 or -EINVAL (size not in 1..32768). */
int vqp_init(struct vq_packed *vq, void *mem, uint16_t size, bool in_order, bool event_idx,
	     struct vqp_slot *slots);

/* Hands every outstanding cookie to fn and makes the ring empty again (the
 * device must not be using the ring any more).  Counters survive. */
void vqp_drain(struct vq_packed *vq, void (*fn)(void *cookie, void *arg), void *arg);

/* SET_VRING_BASE form (bits 0-14 slot, bit 15 wrap counter) of where the
 * device starts reading: the oldest slot it has not consumed.  Rings are
 * reset before every start, so it is slot 0 with wrap 1 (0x8000), whatever
 * was posted since the reset (rx buffers are). */
static inline uint32_t vqp_base(const struct vq_packed *vq)
{
	return vq->used_slot | (vq->used_wrap ? VQP_WRAP_BIT : 0);
}

static inline void vqp_break(struct vq_packed *vq, enum vqp_err e)
{
	vq->err[e]++;
	vq->broken = true;
}

static inline uint64_t vqp_addr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static inline uint16_t vqp__adv(const struct vq_packed *vq, uint16_t x, uint16_t n)
{
	uint32_t s = (uint32_t)x + n;

	return (uint16_t)(s >= vq->size ? s - vq->size : s);
}

/* The id the next posted chain gets (tx: its header slot). */
static inline uint16_t vqp_next_id(const struct vq_packed *vq)
{
	return vq->in_order ? vq->avail_slot : vq->free_id;
}

/* Moves avail_slot on by one, flipping the wrap counter and the flag
 * pattern at the end of the ring. */
static inline void vqp__step(struct vq_packed *vq)
{
	if (++vq->avail_slot == vq->size) {
		vq->avail_slot = 0;
		vq->avail_wrap = !vq->avail_wrap;
		vq->avail_flags ^= VQP_F_AVAIL | VQP_F_USED;
	}
}

static inline void vqp__head_flags(struct vq_packed *vq, uint16_t slot, uint16_t flags)
{
	if (vq->pend == VQP_NONE) {
		vq->pend = slot;
		vq->pend_flags = flags;
	} else {
		/* The device stops at `pend`, so it cannot see this one yet;
		 * release anyway: the body is written above. */
		__atomic_store_n(&vq->desc[slot].flags, flags, __ATOMIC_RELEASE);
	}
}

static inline uint16_t vqp__take_id(struct vq_packed *vq, void *cookie, uint32_t wlen,
				    uint16_t n)
{
	uint16_t id = vqp_next_id(vq);
	struct vqp_slot *s = &vq->slot[id];

	if (!vq->in_order)
		vq->free_id = s->next;
	s->cookie = cookie;
	s->len = wlen;
	s->ndesc = n;
	vq->inflight++;
	vq->nfree -= n;
	vq->added += n;
	return id;
}

static inline void vqp_publish(struct vq_packed *vq);

/* Posts a one-descriptor buffer (caller checked nfree >= 1).  flags:
 * VRING_DESC_F_WRITE for a receive buffer.  Visible to the device once its
 * cache line of descriptors is complete, the rest at vqp_publish(). */
static inline void vqp_post1(struct vq_packed *vq, uint64_t addr, uint32_t len,
			     uint16_t flags, void *cookie)
{
	uint16_t slot = vq->avail_slot;
	struct vring_packed_desc *d = &vq->desc[slot];
	uint16_t id = vqp__take_id(vq, cookie, (flags & VRING_DESC_F_WRITE) ? len : 0, 1);

	d->addr = addr;
	d->len = len;
	d->id = id;
	vqp__head_flags(vq, slot, flags | vq->avail_flags);
	vqp__step(vq);
	/* A cache line of descriptors is complete: let the device have it
	 * now instead of at the end of the burst (see Publishing above). */
	if ((vq->avail_slot & 3) == 0)
		vqp_publish(vq);
}

/* Posts a device-readable chain of n segments (1 <= n <= nfree). */
static inline void vqp_postv(struct vq_packed *vq, const struct vqp_seg *seg, uint16_t n,
			     void *cookie)
{
	uint16_t head = vq->avail_slot, hflags = vq->avail_flags | (n > 1 ? VRING_DESC_F_NEXT : 0);
	uint16_t id = vqp__take_id(vq, cookie, 0, n), i;

	vq->desc[head].addr = seg[0].addr;
	vq->desc[head].len = seg[0].len;
	vq->desc[head].id = id;
	vqp__step(vq);
	for (i = 1; i < n; i++) {
		struct vring_packed_desc *d = &vq->desc[vq->avail_slot];

		d->addr = seg[i].addr;
		d->len = seg[i].len;
		d->id = id;	/* the device reads it from the last one */
		/* Plain store: the head is not available yet. */
		d->flags = vq->avail_flags | (i + 1 < n ? VRING_DESC_F_NEXT : 0);
		vqp__step(vq);
	}
	vqp__head_flags(vq, head, hflags);
}

/* Makes everything posted so far visible to the device. */
static inline void vqp_publish(struct vq_packed *vq)
{
	if (vq->pend != VQP_NONE) {
		/* Pairs with the device's acquire of the head flags: every
		 * body (and every later head) is visible first. */
		vf_store_rel16(&vq->desc[vq->pend].flags, vq->pend_flags);
		vq->pend = VQP_NONE;
	}
}

/* After vqp_publish(): does the device want a kick for what was published
 * since the last call?  Device area: DISABLE no, ENABLE yes, DESC (with
 * EVENT_IDX) iff the published range passed the slot it names. */
static inline bool vqp_need_kick(struct vq_packed *vq)
{
	uint16_t added = vq->added, flags, ow, off, newp, oldp;

	vq->added = 0;
	/* Store (head flags) -> load (device area): a device that just
	 * enabled kicks and re-checked the ring must not be missed. */
	vf_mb();
	flags = __atomic_load_n(&vq->dev->flags, __ATOMIC_RELAXED);
	if (flags == VRING_PACKED_EVENT_FLAG_DISABLE)
		return false;
	if (flags != VRING_PACKED_EVENT_FLAG_DESC || !vq->event_idx)
		return true;	/* ENABLE, or anything we do not know: kick */
	ow = __atomic_load_n(&vq->dev->off_wrap, __ATOMIC_RELAXED);
	off = ow & (uint16_t)~VQP_WRAP_BIT;
	newp = vq->avail_slot;
	oldp = (uint16_t)(newp - added);
	/* One linear lap: an event in the previous lap sits N below. */
	if (!!(ow & VQP_WRAP_BIT) != vq->avail_wrap)
		off = (uint16_t)(off - vq->size);
	return vring_need_event(off, newp, oldp);
}

/* Is the descriptor at used_slot used?  1 yes, 0 not yet, -1 bad flags
 * (ring broken).  Only called while descriptors are outstanding. */
static inline int vqp__used_at(struct vq_packed *vq)
{
	uint16_t f;
	bool a, u;

	if (vq->used_slot == vq->pend)
		return 0;	/* not even published */
	/* Pairs with the device's release of the flags: id, len and the
	 * buffer are read after this. */
	f = vf_load_acq16(&vq->desc[vq->used_slot].flags);
	a = f & VQP_F_AVAIL;
	u = f & VQP_F_USED;
	if (a == vq->used_wrap && u == vq->used_wrap)
		return 1;
	if (a == vq->used_wrap && u != vq->used_wrap)
		return 0;	/* still what we wrote */
	vqp_break(vq, VQP_ERR_BAD_FLAGS);
	return -1;
}

static inline void vqp__used_adv(struct vq_packed *vq, uint16_t n)
{
	uint32_t s = (uint32_t)vq->used_slot + n;

	if (s >= vq->size) {
		s -= vq->size;
		vq->used_wrap = !vq->used_wrap;
	}
	vq->used_slot = (uint16_t)s;
}

/* Reads the next used descriptor, completes its chain and returns its
 * cookie and used length.  Returns 0; -EAGAIN when nothing is used; -EMSGSIZE
 * when the device claims more bytes than posted (completed anyway, *len is
 * the claim, counted); -EPROTO when the ring is (now) broken (bad flags, or
 * an id that is not outstanding; in-order: not the oldest chain). */
static inline int vqp_get(struct vq_packed *vq, void **cookie, uint32_t *len)
{
	const volatile struct vring_packed_desc *d;
	struct vqp_slot *s;
	uint16_t id;
	uint32_t l;
	int r;

	if (__builtin_expect(vq->broken, 0))
		return -EPROTO;
	if (vq->inflight == vq->done)
		return -EAGAIN;
	r = vqp__used_at(vq);
	if (r <= 0)
		return r < 0 ? -EPROTO : -EAGAIN;
	d = &vq->desc[vq->used_slot];
	id = d->id;
	l = d->len;		/* single fetch of device data */
	if (vq->in_order) {
		if (__builtin_expect(id != vq->tail || vq->done != 0, 0))
			goto bad_id;
	} else if (__builtin_expect(id >= vq->size || vq->slot[id].cookie == NULL, 0)) {
		goto bad_id;
	}
	s = &vq->slot[id];
	*cookie = s->cookie;
	*len = l;
	s->cookie = NULL;
	vqp__used_adv(vq, s->ndesc);
	vq->nfree += s->ndesc;
	vq->inflight--;
	if (vq->in_order) {
		vq->tail = vqp__adv(vq, vq->tail, s->ndesc);
	} else {
		s->next = vq->free_id;
		vq->free_id = id;
	}
	if (__builtin_expect(l > s->len, 0)) {
		vq->err[VQP_ERR_BAD_LEN]++;
		return -EMSGSIZE;
	}
	return 0;
bad_id:
	vqp_break(vq, VQP_ERR_BAD_ID);
	return -EPROTO;
}

/* The flags of the four descriptors from d, for the batched paths below.
 * Single-copy atomic aligned 16-bit loads (volatile: the compiler keeps them
 * as they are; __atomic loads cost 7 Ir/packet more here).  Pairs with the
 * device's release of each flags word: one acquire fence after the four
 * loads orders the reads of id/len/buffers that follow. */
static inline void vqp__flags4(const volatile struct vring_packed_desc *d, uint16_t *f)
{
	for (uint16_t i = 0; i < 4; i++)
		f[i] = d[i].flags;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
}

/* Batched fast path (in-order, one-descriptor buffers, the rx case): the
 * next four used descriptors, when they share one cache line (slot a
 * multiple of 4, no wrap inside), are all used, name the four oldest
 * buffers in order and claim no more than was posted, are taken at once.
 * Returns 4, or 0 when any of that does not hold: the caller then goes
 * one at a time with vqp_get(), which also does the error handling. */
static inline uint16_t vqp_get4_inorder(struct vq_packed *vq, void **cookies, uint32_t *lens)
{
	const uint16_t s = vq->used_slot;
	const uint16_t want = vq->used_wrap ? VQP_F_AVAIL | VQP_F_USED : 0;
	const volatile struct vring_packed_desc *d = &vq->desc[s];
	uint16_t f[4], i;

	if ((s & 3) || (uint32_t)s + 4 > vq->size || vq->inflight < 4 || vq->done ||
	    (uint16_t)(vq->pend - s) < 4 || vq->broken)
		return 0;
	vqp__flags4(d, f);
	for (i = 0; i < 4; i++) {
		struct vqp_slot *sl = &vq->slot[s + i];
		uint32_t l = d[i].len;

		if ((f[i] & (VQP_F_AVAIL | VQP_F_USED)) != want || d[i].id != s + i ||
		    sl->ndesc != 1 || l > sl->len)
			return 0;
		lens[i] = l;
	}
	for (i = 0; i < 4; i++) {
		cookies[i] = vq->slot[s + i].cookie;
		vq->slot[s + i].cookie = NULL;
	}
	vqp__used_adv(vq, 4);
	vq->tail = vqp__adv(vq, vq->tail, 4);
	vq->nfree += 4;
	vq->inflight -= 4;
	return 4;
}

/* Batched fast path without in-order (one-descriptor buffers: rx, and tx
 * with the header pushed): the next four used descriptors, when they share
 * one cache line (slot a multiple of 4, no wrap inside), are all used, name
 * four distinct outstanding one-descriptor buffers and claim no more than
 * was posted, are taken at once, their ids back on the free list.  Returns
 * 4, or 0 when any of that does not hold (nothing taken): the caller then
 * goes one at a time with vqp_get(), which does the error handling. */
static inline uint16_t vqp_get4(struct vq_packed *vq, void **cookies, uint32_t *lens)
{
	const uint16_t s = vq->used_slot;
	const uint16_t want = vq->used_wrap ? VQP_F_AVAIL | VQP_F_USED : 0;
	const volatile struct vring_packed_desc *d = &vq->desc[s];
	uint16_t f[4], id[4], i;

	/* Four outstanding descriptors: slots s..s+3 are ours, posted. */
	if ((s & 3) || (uint32_t)s + 4 > vq->size || (uint16_t)(vq->size - vq->nfree) < 4 ||
	    (uint16_t)(vq->pend - s) < 4 || vq->broken)
		return 0;
	vqp__flags4(d, f);
	for (i = 0; i < 4; i++) {
		uint32_t l = d[i].len;		/* single fetch of id and len */
		const struct vqp_slot *sl;

		id[i] = d[i].id;
		if ((f[i] & (VQP_F_AVAIL | VQP_F_USED)) != want || id[i] >= vq->size)
			return 0;
		sl = &vq->slot[id[i]];
		if (sl->cookie == NULL || sl->ndesc != 1 || l > sl->len)
			return 0;
		lens[i] = l;
	}
	/* The same id twice would hand out one buffer twice. */
	if (id[0] == id[1] || id[0] == id[2] || id[0] == id[3] || id[1] == id[2] ||
	    id[1] == id[3] || id[2] == id[3])
		return 0;
	for (i = 0; i < 4; i++) {
		struct vqp_slot *sl = &vq->slot[id[i]];

		cookies[i] = sl->cookie;
		sl->cookie = NULL;
		sl->next = vq->free_id;
		vq->free_id = id[i];
	}
	vqp__used_adv(vq, 4);
	vq->nfree += 4;
	vq->inflight -= 4;
	return 4;
}

/* In-order: reads every used descriptor there is (each may complete a
 * batch of chains, up to the id it names) and returns how many chains are
 * complete and not yet taken.  A used id that is not an outstanding chain
 * head breaks the ring (the count so far stays valid). */
uint16_t vqp_inorder_count(struct vq_packed *vq);

/* In-order: takes the n oldest complete chains (n <= the last
 * vqp_inorder_count()) and stores their cookies. */
static inline void vqp_inorder_take(struct vq_packed *vq, uint16_t n, void **cookies)
{
	uint16_t t = vq->tail, freed = 0, i;

	if ((uint16_t)(vq->size - vq->nfree) == vq->inflight) {
		/* Every outstanding chain one descriptor: consecutive slots,
		 * no walk through ndesc. */
		for (i = 0; i < n; i++) {
			struct vqp_slot *s = &vq->slot[t];

			cookies[i] = s->cookie;
			s->cookie = NULL;
			if (++t == vq->size)
				t = 0;
		}
		vq->tail = t;
		vq->nfree += n;
		vq->inflight -= n;
		vq->done -= n;
		vq->done_desc -= n;
		return;
	}
	for (i = 0; i < n; i++) {
		struct vqp_slot *s = &vq->slot[t];

		cookies[i] = s->cookie;
		s->cookie = NULL;
		freed += s->ndesc;
		t = vqp__adv(vq, t, s->ndesc);
	}
	vq->tail = t;
	vq->nfree += freed;
	vq->inflight -= n;
	vq->done -= n;
	vq->done_desc -= freed;
}

#endif
