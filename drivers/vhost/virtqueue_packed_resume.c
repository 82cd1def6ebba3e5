/* Packed rings: where to resume when the front-end's base is stale.
 *
 * A front-end that lost its back-end without a GET_VRING_BASE reply (the
 * back-end was killed) cannot know where the device stood.  For split rings
 * QEMU reads it back from the used index in guest memory; a packed ring has
 * no such index, so QEMU 7.2 ("vhost VQ N ring restore failed") sends the
 * base it gave at the previous start, and a back-end that trusts it waits at
 * a slot the guest passed long ago: the guest's queues stall ("TX timeout").
 *
 * The ring itself says where the device stood (virtio 1.1 §2.7): slots the
 * device returned hold AVAIL == USED == the lap's wrap counter, slots the
 * driver made available since hold AVAIL == wrap, USED != wrap.  So the
 * device's position is the one slot where a returned run meets an available
 * one.  Buffers the old back-end had taken but not returned are still marked
 * available there, and are served again (as split rings do from used->idx).
 * Read once, at start, while the ring is stopped; every flag value gives a
 * slot within the ring, so nothing the front-end wrote here can send us
 * outside it; a ring with more than one such meeting (chains: a returned
 * buffer's later slots keep the driver's flags) is left at the base given. */
#include "virtqueue_packed.h"

#include "vf_log.h"
#include "vq_packed.h"

static inline bool slot_is_avail(uint16_t f)
{
	return !!(f & PK_AVAIL) != !!(f & PK_USED);
}

static inline bool slot_lap(uint16_t f)
{
	return !!(f & PK_AVAIL);
}

/* The position the ring's flags show: 0 when unambiguous, -1 when not. */
static int ring_position(const struct vh_vq *vq, uint16_t *slot, bool *wrap)
{
	uint16_t n = vq->size;
	uint16_t starts = 0, laps = 0, start = 0, lap_change = 0;
	bool any_avail = false, all_avail = true;

	for (uint16_t i = 0; i < n; i++) {
		uint16_t f = __atomic_load_n(&vq->pdesc[i].flags, __ATOMIC_ACQUIRE);
		uint16_t g = __atomic_load_n(&vq->pdesc[i ? i - 1 : n - 1].flags,
					     __ATOMIC_RELAXED);

		any_avail |= slot_is_avail(f);
		all_avail &= slot_is_avail(f);
		if (slot_is_avail(f) && !slot_is_avail(g)) {
			starts++;
			start = i;
		}
		if (i && slot_lap(f) != slot_lap(g)) {
			laps++;
			lap_change = i;
		}
	}
	uint16_t f0 = vq->pdesc[0].flags;

	if (any_avail && !all_avail) {
		/* returned run, then the available run from `start` */
		if (starts != 1)
			return -1;
		*slot = start;
		*wrap = slot_lap(vq->pdesc[start].flags);
		return 0;
	}
	if (laps > 1)
		return -1;
	if (all_avail) {
		/* every slot available: the run starts where the lap turns */
		*slot = laps ? lap_change : 0;
		*wrap = slot_lap(vq->pdesc[*slot].flags);
		return 0;
	}
	/* every slot returned: slots before the turn in this lap, the rest in
	 * the previous one; no turn: the lap of slot 0 is over */
	*slot = laps ? lap_change : 0;
	*wrap = laps ? slot_lap(f0) : !slot_lap(f0);
	return 0;
}

void vh_packed_resume(struct vh_vq *vq)
{
	uint16_t slot;
	bool wrap;

	if (ring_position(vq, &slot, &wrap) != 0) {
		VF_INFO("%s: vring %u: the ring's flags do not show one position: starting at "
			"the front-end's base %u (wrap %d)", vq->port_name ? vq->port_name : "vhost",
			vq->idx, vq->last_avail, vq->avail_wrap);
		return;
	}
	if (slot == vq->last_avail && wrap == vq->avail_wrap)
		return;
	VF_INFO("%s: vring %u: the front-end's base %u (wrap %d) is not where the ring stands: "
		"resuming at slot %u (wrap %d)", vq->port_name ? vq->port_name : "vhost", vq->idx,
		vq->last_avail, vq->avail_wrap, slot, wrap);
	vq->last_avail = slot;
	vq->avail_wrap = wrap;
	vq->resumed++;
}
