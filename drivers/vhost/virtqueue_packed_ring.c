/* Packed rings (virtqueue_packed.h), control side: the ring's addresses
 * translated and checked, and its (re)start (protocols.md §1.3, §2.3). */
#include "virtqueue_packed.h"

#include <errno.h>

#include "common/vring_sync.h"
#include "vf_log.h"
#include "vhost_mem.h"

int vh_packed_map(struct vh_vq *vq, const struct vh_mem *mem, const char **why)
{
	uint64_t n = vq->size;
	void *d, *drv, *dev;

	vq->pdesc = NULL;
	vq->drv_ev = vq->dev_ev = NULL;
	if (!n) {
		*why = "ring size not set";
		return -EINVAL;
	}
	d = vh_uva(mem, vq->addr.desc_user_addr, 16 * n);
	drv = vh_uva(mem, vq->addr.avail_user_addr, sizeof(struct vring_packed_desc_event));
	dev = vh_uva(mem, vq->addr.used_user_addr, sizeof(struct vring_packed_desc_event));
	if (!d || !drv || !dev) {
		*why = "ring address outside the memory table";
		return -EINVAL;
	}
	if ((uintptr_t)d % 16 || (uintptr_t)drv % 4 || (uintptr_t)dev % 4) {
		*why = "misaligned ring";
		return -EINVAL;
	}
	vq->pdesc = d;
	vq->drv_ev = drv;
	vq->dev_ev = dev;
	vq->mem = mem;
	return 0;
}

void vh_packed_start(struct vh_vq *vq)
{
	vq->mask = vq->size - 1;
	if (vq->last_avail >= vq->size) {
		VF_WARN("%s: vring %u: packed base index %u >= ring size %u: starting at 0",
			vq->port_name ? vq->port_name : "vhost", vq->idx, vq->last_avail,
			vq->size);
		vq->last_avail = 0;
		vq->avail_wrap = true;
	}
	if (!vq->base_exact)
		vh_packed_resume(vq);
	vq->base_exact = false;
	/* SET_VRING_BASE carries our avail position; buffers the previous
	 * back-end had taken but not returned are lost (pitfall 11). */
	vq->last_used = vq->last_avail;
	vq->used_wrap = vq->avail_wrap;
	vq->dp_broken = false;
	vq->log_broken = false;
	/* We poll: the front-end never needs to kick us. */
	__atomic_store_n(&vq->dev_ev->off_wrap, 0, __ATOMIC_RELAXED);
	vf_store_rel16(&vq->dev_ev->flags, VRING_PACKED_EVENT_FLAG_DISABLE);
}
