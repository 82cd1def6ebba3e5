/* The device side of a split ring, in plain memory, for the unit tests:
 * what a vhost backend does (pop avail chains, write used entries), plus
 * the ways a hostile one misbehaves. */
#ifndef VDEV_EMU_H
#define VDEV_EMU_H

#include <stdint.h>
#include <string.h>

#include "virtqueue_split.h"

struct vdev {
	struct vq_split *vq;
	uint16_t last_avail;
	uint16_t used_idx;
};

struct vdev_chain {
	uint16_t head;
	uint16_t n;
	struct vring_desc d[64];
};

static inline void vdev_init(struct vdev *v, struct vq_split *vq)
{
	v->vq = vq;
	v->last_avail = vq->avail->idx;
	v->used_idx = vq->used->idx;
}

static inline uint16_t vdev_avail(const struct vdev *v)
{
	return (uint16_t)(v->vq->avail->idx - v->last_avail);
}

/* Pops the next available chain; returns 0 or -1 when none. */
static inline int vdev_pop(struct vdev *v, struct vdev_chain *c)
{
	struct vq_split *vq = v->vq;
	uint16_t x;

	if (vdev_avail(v) == 0)
		return -1;
	c->head = vq->avail->ring[v->last_avail & vq->mask];
	v->last_avail++;
	x = c->head;
	for (c->n = 0; c->n < 64; ) {
		struct vring_desc d = vq->desc[x];

		c->d[c->n++] = d;
		if (!(d.flags & VRING_DESC_F_NEXT))
			break;
		x = d.next & vq->mask;
	}
	return 0;
}

/* Writes a used entry at the device's next slot, not yet published. */
static inline void vdev_used_put(struct vdev *v, uint16_t off, uint32_t id, uint32_t len)
{
	struct vring_used_elem *e = &v->vq->used->ring[(uint16_t)(v->used_idx + off) & v->vq->mask];

	e->id = id;
	e->len = len;
}

static inline void vdev_used_publish(struct vdev *v, uint16_t n)
{
	v->used_idx += n;
	__atomic_store_n(&v->vq->used->idx, v->used_idx, __ATOMIC_RELEASE);
}

static inline void vdev_used(struct vdev *v, uint32_t id, uint32_t len)
{
	vdev_used_put(v, 0, id, len);
	vdev_used_publish(v, 1);
}

#endif
