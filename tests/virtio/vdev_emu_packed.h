/* The device side of a packed ring, in plain memory, for the unit tests:
 * what a vhost backend does (take available chains in slot order, write
 * used descriptors at its own used slot with its own wrap counter), plus
 * raw writes for the ways a hostile one misbehaves.  Written from the spec
 * (protocols.md §2.3), independently of virtqueue_packed.h's logic. */
#ifndef VDEV_EMU_PACKED_H
#define VDEV_EMU_PACKED_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "virtqueue_packed.h"

#define PD_AVAIL (1u << 7)
#define PD_USED (1u << 15)

struct vpdev {
	struct vq_packed *vq;
	uint16_t avail_slot, used_slot;
	bool avail_wrap, used_wrap;
};

struct vpdev_chain {
	uint16_t slot;		/* head slot */
	uint16_t id;		/* from the last descriptor */
	uint16_t n;
	struct vring_packed_desc d[64];
};

static inline void vpdev_init(struct vpdev *v, struct vq_packed *vq)
{
	memset(v, 0, sizeof(*v));
	v->vq = vq;
	v->avail_wrap = v->used_wrap = true;
}

static inline bool vpdev_is_avail(const struct vpdev *v, uint16_t slot, bool wrap)
{
	uint16_t f = __atomic_load_n(&v->vq->desc[slot].flags, __ATOMIC_ACQUIRE);

	return !!(f & PD_AVAIL) == wrap && !!(f & PD_USED) != wrap;
}

static inline void vpdev_adv(const struct vpdev *v, uint16_t *slot, bool *wrap, uint16_t n)
{
	while (n--) {
		if (++*slot == v->vq->size) {
			*slot = 0;
			*wrap = !*wrap;
		}
	}
}

/* Takes the next available chain; 0 or -1 when none.  Every descriptor of
 * the chain must carry this lap's available pattern (else -2). */
static inline int vpdev_pop(struct vpdev *v, struct vpdev_chain *c)
{
	uint16_t s = v->avail_slot;
	bool w = v->avail_wrap;

	if (!vpdev_is_avail(v, s, w))
		return -1;
	c->slot = s;
	for (c->n = 0; c->n < 64;) {
		struct vring_packed_desc d = v->vq->desc[s];

		if (!vpdev_is_avail(v, s, w))
			return -2;
		c->d[c->n++] = d;
		vpdev_adv(v, &s, &w, 1);
		if (!(d.flags & VRING_DESC_F_NEXT))
			break;
	}
	c->id = c->d[c->n - 1].id;
	v->avail_slot = s;
	v->avail_wrap = w;
	return 0;
}

/* Raw used-descriptor write at slot (flags as given, release). */
static inline void vpdev_raw(struct vpdev *v, uint16_t slot, uint16_t id, uint32_t len,
			     uint16_t flags)
{
	struct vring_packed_desc *d = &v->vq->desc[slot];

	d->id = id;
	d->len = len;
	__atomic_store_n(&d->flags, flags, __ATOMIC_RELEASE);
}

/* Marks buffer `id` (a chain of ndesc descriptors, or an in-order batch of
 * that many) used at the device's next used slot. */
static inline void vpdev_used(struct vpdev *v, uint16_t id, uint32_t len, uint16_t ndesc)
{
	vpdev_raw(v, v->used_slot, id, len,
		  (uint16_t)((v->used_wrap ? PD_AVAIL | PD_USED : 0) | (len ? VRING_DESC_F_WRITE : 0)));
	vpdev_adv(v, &v->used_slot, &v->used_wrap, ndesc);
}

#endif
