/* The packed ring's primitives (VIRTIO_F_RING_PACKED, protocols.md §2.3):
 * descriptor flag bits, availability in a lap, slot arithmetic, and the
 * availability tests of the four-descriptor fast path.  Included by
 * virtqueue_packed.c only (static inline: no calls). */
#ifndef VH_VQ_PACKED_H
#define VH_VQ_PACKED_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_ring.h>

#include "common/vring_sync.h"
#include "vq_types.h"

/* The UAPI gives bit numbers, not masks (pitfall 12). */
#define PK_AVAIL (1u << VRING_PACKED_DESC_F_AVAIL)
#define PK_USED (1u << VRING_PACKED_DESC_F_USED)
#define PK_WRAP_BIT (1u << VRING_PACKED_EVENT_F_WRAP_CTR)

static inline bool desc_avail(uint16_t flags, bool wrap)
{
	return !!(flags & PK_AVAIL) == wrap && !!(flags & PK_USED) != wrap;
}

static inline void slot_advance(const struct vh_vq *vq, uint16_t *slot, bool *wrap,
				uint16_t n)
{
	uint32_t s = (uint32_t)*slot + n;

	if (s >= vq->size) {
		s -= vq->size;
		*wrap = !*wrap;
	}
	*slot = (uint16_t)s;
}

/* ---- the four-descriptor fast path (issue 7) --------------------------- */

/* Whether the four slots from slot (one cache line when the ring is
 * 64-byte aligned) all hold an available single-descriptor buffer of this
 * lap: flags exactly the lap's avail bits plus want (0 or WRITE), so no
 * NEXT and no INDIRECT.  A group that would cross the ring's end is never
 * taken whole.  The flags are read first, the bodies after (acquire). */
static inline bool batch4_avail(const struct vh_vq *vq, uint16_t slot, bool wrap, uint16_t want)
{
	const volatile struct vring_packed_desc *d = &vq->pdesc[slot];
	uint16_t f = (uint16_t)((wrap ? PK_AVAIL : PK_USED) | want);

	if ((slot & 3) || (uint32_t)slot + 4 > vq->size)
		return false;
	if (__atomic_load_n(&d[0].flags, __ATOMIC_RELAXED) != f ||
	    __atomic_load_n(&d[1].flags, __ATOMIC_RELAXED) != f ||
	    __atomic_load_n(&d[2].flags, __ATOMIC_RELAXED) != f ||
	    __atomic_load_n(&d[3].flags, __ATOMIC_RELAXED) != f)
		return false;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return true;
}

/* The same for the one slot at slot (groups that are not aligned, not
 * all posted yet, or cross the ring's end). */
static inline bool single_avail(const struct vh_vq *vq, uint16_t slot, bool wrap, uint16_t want)
{
	uint16_t f = (uint16_t)((wrap ? PK_AVAIL : PK_USED) | want);

	return vf_load_acq16(&vq->pdesc[slot].flags) == f;
}

/* Simple buffers to take next from (slot, wrap): 4, 1, or 0. */
static inline uint16_t simple_avail(const struct vh_vq *vq, uint16_t slot, bool wrap,
				    uint16_t want, uint16_t left)
{
	if (left >= 4 && batch4_avail(vq, slot, wrap, want))
		return 4;
	return left && single_avail(vq, slot, wrap, want) ? 1 : 0;
}

#endif
