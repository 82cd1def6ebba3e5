/* Rx notifications of the front-end, for the rx modes (vf_port.h): asking
 * the back-end to signal a receive ring's call fd when it next uses a
 * buffer, and no more.
 *
 * While we poll, calls are suppressed (vqs_init, vqp_init): split rings
 * carry VRING_AVAIL_F_NO_INTERRUPT in the avail flags (we never negotiate
 * EVENT_IDX on split rings), packed rings say DISABLE in the driver event
 * area.  A core about to sleep arms: split, the flag cleared; packed,
 * ENABLE, or with EVENT_IDX DESC at the next slot the device writes a used
 * descriptor to and its wrap counter.  Then a full barrier, and the core
 * looks at the ring once more (its next burst) before it sleeps on the call
 * fd.  The back-end, after publishing used buffers, has a barrier and then
 * reads the suppression: one of the two sees the other's store, so no
 * buffer used while we go to sleep is left unseen.
 *
 * The call fd is ours (an eventfd, non-blocking) for the queue's life;
 * the ring is touched only while ready (acquire), on the core that polls
 * it, which the control thread waits for before it resets the ring. */
#include <unistd.h>

#include "virtio_rxtx.h"

int vio_rx_intr_arm(struct vio_queue *q)
{
	if (!vio_ready(q) || q->callfd < 0)
		return -1;
	if (q->packed) {
		struct vq_packed *pq = &q->pq;
		uint16_t flags = VRING_PACKED_EVENT_FLAG_ENABLE;

		/* Broken, or no buffer posted (the pool ran dry): nothing can
		 * come, look again soon. */
		if (pq->broken || pq->nfree == pq->size)
			return -1;
		if (pq->event_idx) {
			__atomic_store_n(&pq->drv->off_wrap,
					 (uint16_t)(pq->used_slot | (pq->used_wrap ? VQP_WRAP_BIT : 0)),
					 __ATOMIC_RELAXED);
			flags = VRING_PACKED_EVENT_FLAG_DESC;
		}
		/* Release: a device that reads DESC reads this offset. */
		vf_store_rel16(&pq->drv->flags, flags);
	} else {
		if (q->vq.broken || q->vq.nfree == q->vq.size)
			return -1;
		__atomic_store_n(&q->vq.avail->flags, 0, __ATOMIC_RELAXED);
	}
	/* Store (the request) -> load (the core's last look at the ring). */
	vf_mb();
	return q->callfd;
}

void vio_rx_intr_disarm(struct vio_queue *q)
{
	uint64_t v;

	if (!vio_ready(q))
		return;
	if (q->packed)
		__atomic_store_n(&q->pq.drv->flags, (uint16_t)VRING_PACKED_EVENT_FLAG_DISABLE,
				 __ATOMIC_RELAXED);
	else
		__atomic_store_n(&q->vq.avail->flags, (uint16_t)VRING_AVAIL_F_NO_INTERRUPT,
				 __ATOMIC_RELAXED);
	if (q->callfd >= 0 && read(q->callfd, &v, sizeof(v)) < 0) {
		/* EAGAIN: no call came */
	}
}
