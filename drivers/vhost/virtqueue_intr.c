/* Rx notifications of the back-end, for the rx modes (vf_port.h): asking
 * the front-end to kick a transmit ring (the one a port rx queue dequeues)
 * on its next post, and no more.
 *
 * While we poll, kicks are suppressed (vh_split_start, vh_packed_start,
 * every publish): split rings carry VRING_USED_F_NO_NOTIFY in the used
 * ring's flags, or with EVENT_IDX an avail event index half the index
 * space ahead; packed rings say DISABLE in the device event area.  A core
 * about to sleep arms: split, the flag cleared or the avail event set to
 * the next index we read (the driver kicks when it publishes that entry);
 * packed, ENABLE, or with EVENT_IDX DESC at the next slot we read and its
 * wrap counter.  Then a full barrier, and the core looks at the ring once
 * more (its next burst) before it sleeps on the kick fd.  The front-end,
 * after publishing, has a barrier and then reads the suppression: one of
 * the two sees the other's store, so nothing published while we go to
 * sleep is left unseen.
 *
 * Both run on the core that polls the ring, while it is online for
 * vf_sync: ready (acquire) says the ring's memory is mapped, and the
 * control thread waits for the core before it unmaps it or closes a kick
 * fd it may have read (h_set_vring_kick). */
#include <poll.h>
#include <unistd.h>

#include "common/vring_sync.h"
#include "virtqueue.h"

static inline uint16_t *avail_event(const struct vh_vq *vq)
{
	return (uint16_t *)&vq->used->ring[vq->size];
}

int vh_vq_intr_arm(struct vh_vq *vq)
{
	int fd;

	if (!__atomic_load_n(&vq->ready, __ATOMIC_ACQUIRE) || vq->dp_broken)
		return -1;
	/* VHOST_USER_VRING_NOFD_MASK: a front-end that never kicks */
	fd = __atomic_load_n(&vq->kickfd, __ATOMIC_RELAXED);
	if (fd < 0)
		return -1;
	if (vq->packed) {
		uint16_t flags = VRING_PACKED_EVENT_FLAG_ENABLE;

		if (vq->event_idx) {
			__atomic_store_n(&vq->dev_ev->off_wrap,
					 (uint16_t)(vq->last_avail | (vq->avail_wrap ? 1u << VRING_PACKED_EVENT_F_WRAP_CTR : 0)),
					 __ATOMIC_RELAXED);
			flags = VRING_PACKED_EVENT_FLAG_DESC;
		}
		/* Release: a driver that reads DESC reads this offset. */
		vf_store_rel16(&vq->dev_ev->flags, flags);
	} else if (vq->event_idx) {
		__atomic_store_n(avail_event(vq), vq->last_avail, __ATOMIC_RELAXED);
	} else {
		__atomic_store_n(&vq->used->flags, 0, __ATOMIC_RELAXED);
	}
	/* Store (the request) -> load (the core's last look at the ring). */
	vf_mb();
	return fd;
}

void vh_vq_intr_disarm(struct vh_vq *vq)
{
	uint64_t v;
	int fd;

	if (!__atomic_load_n(&vq->ready, __ATOMIC_ACQUIRE))
		return;
	if (vq->packed)
		__atomic_store_n(&vq->dev_ev->flags, (uint16_t)VRING_PACKED_EVENT_FLAG_DISABLE,
				 __ATOMIC_RELAXED);
	else if (vq->event_idx)
		__atomic_store_n(avail_event(vq), (uint16_t)(vq->last_avail + 0x8000),
				 __ATOMIC_RELAXED);
	else
		__atomic_store_n(&vq->used->flags, VRING_USED_F_NO_NOTIFY, __ATOMIC_RELAXED);
	/* The kick fd is the front-end's, maybe blocking (QEMU's ioeventfd),
	 * maybe not an eventfd at all: read it only when it has something. */
	fd = __atomic_load_n(&vq->kickfd, __ATOMIC_RELAXED);
	if (fd >= 0 && poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, 0) == 1 &&
	    read(fd, &v, sizeof(v)) < 0) {
	}
}
