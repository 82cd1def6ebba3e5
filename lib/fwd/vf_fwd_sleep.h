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
	/* The core's state for the rx_state events (vf_event.h): it sleeps
	 * between packets (interrupt) from its first sleep, and polls again
	 * once it has gone VF_RX_STATE_HOLD_MS without one. */
	bool interrupt;
	uint64_t woke_tsc;	/* end of the last sleep */
	uint64_t hold_cycles;	/* VF_RX_STATE_HOLD_MS in TSC cycles */
	/* The empty polling owed before a sleep, from the ports' modes as
	 * they were at vf_port_rx_modes_gen() == thr_gen (if thr_known). */
	uint64_t thr;
	uint32_t thr_gen;
	bool thr_known;
};

#define VF_RX_STATE_HOLD_MS 100

/* Whether any of the n streams' rx ports can notify (else the core polls
 * as it always did). */
bool vf_fwd_may_sleep(struct vf_stream *const *fs, unsigned int n);
/* After an empty pass over fs[0..n): true if the core slept. */
bool vf_fwd_idle(struct vf_fwd_sleeper *sl, struct vf_stream *const *fs, unsigned int n,
		 const struct vf_fwd_mode *mode);
/* After a pass that received, while sl->interrupt: back to polling once
 * the core went VF_RX_STATE_HOLD_MS without sleeping (an event). */
void vf_fwd_busy(struct vf_fwd_sleeper *sl, struct vf_stream *const *fs, unsigned int n);

#endif
