/* Packed virtqueue, driver side: layout, reset and the in-order batch
 * walk.  The per-packet operations are inline in virtqueue_packed.h. */
#include "virtqueue_packed.h"

#include <string.h>

/* Each event area in its own cache line: the device polls neither, but
 * our writes to one must not bounce the line the device writes. */
static size_t drv_off(uint16_t size)
{
	return (size_t)16 * size;
}

static size_t dev_off(uint16_t size)
{
	return drv_off(size) + 64;
}

size_t vqp_mem_size(uint16_t size)
{
	return dev_off(size) + 64;
}

int vqp_init(struct vq_packed *vq, void *mem, uint16_t size, bool in_order, bool event_idx,
	     struct vqp_slot *slots)
{
	uint16_t i;

	if (size == 0 || size > VQP_MAX_SIZE)
		return -EINVAL;
	memset(mem, 0, vqp_mem_size(size));
	memset(slots, 0, sizeof(*slots) * size);
	memset(vq, 0, sizeof(*vq));
	vq->desc = mem;
	vq->drv = (struct vring_packed_desc_event *)((char *)mem + drv_off(size));
	vq->dev = (struct vring_packed_desc_event *)((char *)mem + dev_off(size));
	vq->slot = slots;
	vq->size = size;
	vq->nfree = size;
	vq->in_order = in_order;
	vq->event_idx = event_idx;
	vq->avail_wrap = vq->used_wrap = true;
	vq->avail_flags = VQP_F_AVAIL;	/* wrap 1: AVAIL set, USED clear */
	vq->pend = VQP_NONE;
	for (i = 0; i < size; i++)
		slots[i].next = (uint16_t)(i + 1 < size ? i + 1 : 0);
	/* We poll: the device never needs to signal the call eventfd. */
	vq->drv->flags = VRING_PACKED_EVENT_FLAG_DISABLE;
	return 0;
}

void vqp_drain(struct vq_packed *vq, void (*fn)(void *cookie, void *arg), void *arg)
{
	uint64_t err[VQP_ERR_MAX];
	uint16_t i;

	for (i = 0; i < vq->size; i++) {
		if (vq->slot[i].cookie != NULL) {
			fn(vq->slot[i].cookie, arg);
			vq->slot[i].cookie = NULL;
		}
	}
	memcpy(err, vq->err, sizeof(err));
	vqp_init(vq, vq->desc, vq->size, vq->in_order, vq->event_idx, vq->slot);
	memcpy(vq->err, err, sizeof(err));
}

uint16_t vqp_inorder_count(struct vq_packed *vq)
{
	/* Every outstanding chain one descriptor (the usual tx): a used id's
	 * distance from the first unseen chain is its chain count. */
	bool single = (uint16_t)(vq->size - vq->nfree) == vq->inflight;

	while (!vq->broken && vq->inflight != vq->done) {
		const volatile struct vring_packed_desc *d;
		uint16_t left = vq->inflight - vq->done, k, nd, id;

		if (vqp__used_at(vq) <= 0)
			break;
		d = &vq->desc[vq->used_slot];
		id = d->id;	/* single fetch */
		if (id >= vq->size || vq->slot[id].cookie == NULL)
			goto bad_id;
		if (single) {
			/* in-order ids are head slots: used_slot is the
			 * first unseen chain */
			k = (uint16_t)(id >= vq->used_slot ? id - vq->used_slot
							  : id + vq->size - vq->used_slot) + 1;
			if (k > left)
				goto bad_id;
			nd = k;
		} else {
			uint16_t x = vq->used_slot;

			for (k = 1, nd = 0;; k++) {
				nd += vq->slot[x].ndesc;
				if (x == id)
					break;
				if (k == left)
					goto bad_id;
				x = vqp__adv(vq, x, vq->slot[x].ndesc);
			}
		}
		vq->done += k;
		vq->done_desc += nd;
		vqp__used_adv(vq, nd);
	}
	return vq->done;
bad_id:
	vqp_break(vq, VQP_ERR_BAD_ID);
	return vq->done;
}
