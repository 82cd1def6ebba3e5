/* Idle streams polled less often on a core that holds many (park.c).
 *
 * A core's pass costs one poll per stream it holds.  With hundreds of
 * ports on a core and one of them busy, the idle ones' polls were most of
 * the pass (bench/density_busy.py: the busy port at 0.43x with 256 ports
 * on its core): each reads its peer's ring index and the driver's queue.
 * A stream that received nothing for VF_FWD_PARK_AFTER passes in a row is
 * parked: from then on a pass polls about 1/VF_FWD_PARK_EVERY of the
 * parked streams in turn, so each is still looked at every
 * VF_FWD_PARK_EVERY passes (up to twice that when one is moved behind the
 * turn as others park and wake), and one that receives is polled every
 * pass again from the next.  Nothing is dropped: a parked stream's frames wait
 * in its peer's ring, a few passes longer.  Only for modes that hold
 * nothing between bursts (vf_fwd_mode.sleeps) and cores with more than
 * VF_FWD_PARK_MIN streams: fewer cost little, and their loop stays as it
 * was. */
#ifndef VF_FWD_PARK_H
#define VF_FWD_PARK_H

#include <stdint.h>

#include "vf_fwd.h"

#define VF_FWD_PARK_MIN   8
#define VF_FWD_PARK_AFTER 256
#define VF_FWD_PARK_EVERY 16

struct vf_fwd_park {
	unsigned int n;		/* streams of the plan */
	unsigned int active;	/* order[0..active): polled every pass */
	unsigned int cursor;	/* the next parked one to poll, in [active, n) */
	uint16_t *order;	/* stream indices, active ones first */
	uint16_t *idle;		/* by stream index: empty polls in a row */
};

/* For a core's plan of n streams in mode: 0, or -1 where parking does not
 * apply (few streams, a mode that generates) or no memory (the core then
 * polls every stream every pass, as before). */
int vf_fwd_park_init(struct vf_fwd_park *pk, unsigned int n, const struct vf_fwd_mode *mode);
void vf_fwd_park_fini(struct vf_fwd_park *pk);
/* One pass over fs[0..n) as above; returns the packets it received. */
uint64_t vf_fwd_park_pass(struct vf_fwd_park *pk, struct vf_stream *const *fs,
			  const struct vf_fwd_mode *mode);

#endif
