/* Split virtqueue, driver side: layout, reset and the in-order batch check.
 * The per-packet operations are inline in virtqueue_split.h. */
#include "virtqueue_split.h"

#include <string.h>

static size_t align64(size_t x)
{
	return (x + 63) & ~(size_t)63;
}

static size_t used_off(uint16_t size)
{
	/* avail: flags, idx, ring[size], used_event (reserved even without
	 * EVENT_IDX so a backend that maps it finds it inside the block). */
	return align64((size_t)16 * size + 6 + (size_t)2 * size);
}

size_t vqs_mem_size(uint16_t size)
{
	return align64(used_off(size) + 6 + (size_t)8 * size);
}

int vqs_init(struct vq_split *vq, void *mem, uint16_t size, bool in_order,
	     struct vqs_slot *slots)
{
	uint16_t i;

	if (size == 0 || size > VQS_MAX_SIZE || (size & (size - 1)))
		return -EINVAL;
	memset(mem, 0, vqs_mem_size(size));
	memset(slots, 0, sizeof(*slots) * size);
	memset(vq, 0, sizeof(*vq));
	vq->desc = mem;
	vq->avail = (struct vring_avail *)((char *)mem + (size_t)16 * size);
	vq->used = (struct vring_used *)((char *)mem + used_off(size));
	vq->slot = slots;
	vq->size = size;
	vq->mask = size - 1;
	vq->nfree = size;
	vq->in_order = in_order;
	for (i = 0; i < size; i++)
		slots[i].next = (i + 1) & vq->mask;
	/* We poll: ask the device not to signal the call eventfd. */
	vq->avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	return 0;
}

void vqs_drain(struct vq_split *vq, void (*fn)(void *cookie, void *arg), void *arg)
{
	uint64_t err[VQS_ERR_MAX];
	uint16_t i;

	/* Private state only: every chain head with a cookie is outstanding. */
	for (i = 0; i < vq->size; i++) {
		if (vq->slot[i].cookie != NULL) {
			fn(vq->slot[i].cookie, arg);
			vq->slot[i].cookie = NULL;
		}
	}
	memcpy(err, vq->err, sizeof(err));	/* counters survive a reset */
	vqs_init(vq, vq->desc, vq->size, vq->in_order, vq->slot);
	memcpy(vq->err, err, sizeof(err));
}

bool vqs_inorder_check(struct vq_split *vq, uint16_t n)
{
	const volatile struct vring_used_elem *e;
	uint16_t last;

	if (n == 0)
		return true;
	if ((uint16_t)(vq->size - vq->nfree) == vq->inflight) {
		/* Every outstanding chain is one descriptor. */
		last = (vq->tail + n - 1) & vq->mask;
	} else {
		uint16_t i;

		last = vq->tail;
		for (i = 1; i < n; i++)
			last = (last + vq->slot[last].ndesc) & vq->mask;
	}
	e = &vq->used->ring[(uint16_t)(vq->used_idx + n - 1) & vq->mask];
	if (e->id != last) {
		vqs_break(vq, VQS_ERR_BAD_ID);
		return false;
	}
	return true;
}
