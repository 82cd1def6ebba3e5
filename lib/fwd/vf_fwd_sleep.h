/* The rx modes on a forwarding core (sleep.c; the modes: vf_port.h).  The
 * engine's loop calls vf_fwd_idle() after every pass that received nothing;
 * it returns at once until the core's queues have been idle long enough for
 * their mode, and then arms them, looks once more and sleeps. */
#ifndef VF_FWD_SLEEP_H
#define VF_FWD_SLEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "vf_fwd.h"

struct vf_fwd_sleeper {
	uint64_t idle_since;	/* TSC of the first empty pass; 0: busy */
	uint64_t adaptive_cycles;	/* VF_RX_ADAPTIVE_IDLE_US in TSC cycles */
	int wake_fd;		/* the engine's stop and vf_fwd_wake() write here */
	unsigned int lcore;
};

/* Whether any of the n streams' rx ports can notify (else the core polls
 * as it always did). */
bool vf_fwd_may_sleep(const struct vf_stream *fs, unsigned int n);
/* After an empty pass over fs[0..n): true if the core slept. */
bool vf_fwd_idle(struct vf_fwd_sleeper *sl, struct vf_stream *fs, unsigned int n,
		 const struct vf_fwd_mode *mode);

#endif
