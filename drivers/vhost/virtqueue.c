/* The layout dispatch (virtqueue.h): the port's burst functions, which
 * pick the split or the packed ring by the negotiated features. */
#include "virtqueue.h"

#include "vhost_announce.h"

/* The layout is read after the ring's ready flag (acquire), never before:
 * SET_FEATURES writes it while no ring is ready, and a ring is only
 * stopped (vh_dev_stop_rings) with a wait for every core to leave its
 * burst, so a layout read after ready=1 holds for the whole burst.  Read
 * before it, a core preempted between the two loads took the old layout
 * into a ring that had meanwhile started with the new one (a split burst
 * on a packed ring, whose avail pointer is NULL: seen once in six
 * migrations of a packed guest under ASan). */
static inline bool vq_layout(const struct vh_vq *vq, bool *packed)
{
	if (!__atomic_load_n(&vq->ready, __ATOMIC_ACQUIRE))
		return false;
	*packed = __atomic_load_n(&vq->packed, __ATOMIC_RELAXED);
	return true;
}

uint16_t vh_vq_dequeue(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct vh_vq *vq = q;
	bool packed;

	if (!vq_layout(vq, &packed))
		return 0;
	/* After a migration: one announcement ahead of the guest's frames. */
	if (unlikely(__atomic_load_n(&vq->rarp_pending, __ATOMIC_RELAXED)))
		return vh_rarp_dequeue(vq, pkts, n, packed ? vh_packed_dequeue : vh_split_dequeue);
	return packed ? vh_packed_dequeue(q, pkts, n) : vh_split_dequeue(q, pkts, n);
}

uint16_t vh_vq_enqueue(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	const struct vh_vq *vq = q;
	bool packed;

	if (!vq_layout(vq, &packed))
		return 0;
	return packed ? vh_packed_enqueue(q, pkts, n) : vh_split_enqueue(q, pkts, n);
}
