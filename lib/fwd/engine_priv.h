/* The engine's state, shared by engine.c (setup, start, stop, the cores'
 * loop) and engine_update.c (ports added and removed while forwarding).
 *
 * Each forwarding core runs a plan: the streams it polls.  A plan is
 * published by the thread that runs the shell's commands, under the
 * session lock: it stores the plan, then bumps the core's gen.  The core
 * reads gen once per pass (where it read the stop flag before); when gen
 * moved it finishes the pass, takes the new plan and writes gen back to
 * seen.  From then on it holds nothing of the old plan, so whoever
 * published may free it, and the streams only the old plan had. */
#ifndef VF_FWD_ENGINE_PRIV_H
#define VF_FWD_ENGINE_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_lcore.h>

#include "vf_fwd.h"

struct fwd_plan {
	unsigned int n;
	struct vf_stream *s[];
};

struct fwd_lcore {
	unsigned int lcore;
	unsigned int tx_first;
	struct fwd_plan *plan;	/* atomic: stored before gen is bumped */
	uint32_t gen;		/* atomic: a new plan, or stop */
	uint32_t seen;		/* atomic, written by the core: the gen it runs */
	bool launched;		/* forwarding on this core until the stop */
} __rte_cache_aligned;

/* Under the session lock (the engine's callers), or on a core for its
 * own slot's plan and seen. */
extern struct vf_stream *vf__fwd_streams[VF_MAX_STREAMS];
extern unsigned int vf__fwd_nb_streams;
extern struct fwd_lcore vf__fwd_lcores[RTE_MAX_LCORE];
extern unsigned int vf__fwd_nb_lcores;	/* slots with a plan (used or launched) */
extern uint16_t vf__fwd_nb_q;
extern const struct vf_fwd_cfg *vf__fwd_cfg;	/* vf_fwd_setup()'s */

struct fwd_plan *vf__fwd_plan_new(unsigned int n);
/* A stream from rx port/queue to tx port/queue, its counters zero. */
struct vf_stream *vf__fwd_stream_new(const struct vf_fwd_cfg *cfg, struct vf_port *rx,
				     struct vf_port *tx, uint16_t q);
/* What the stream's mode holds, its histogram base, and the stream. */
void vf__fwd_stream_free(struct vf_stream *fs);
/* The mode's per-stream state (before the stream runs); 0 or -ENOMEM. */
int vf__fwd_stream_init(struct vf_stream *fs, unsigned int tx_first_bursts);
/* Slot i's lcore id for n slots (the EAL's forwarding lcores in order). */
unsigned int vf__fwd_slot_lcore(unsigned int i);
/* The wake fd of slot i (made once); false if none could be made. */
bool vf__fwd_wake_fd_make(unsigned int i);
/* Launches slot i's core on its plan. */
int vf__fwd_launch(unsigned int i);

/* The loops of a core on its plan (loops.c), until its gen moves from gen:
 * every stream every pass (idle ones less often on a core with many:
 * vf_fwd_park.h); the same with a TSC read per poll (--record-core-cycles);
 * the same with sleep while the rx queues are idle (rx modes); asleep on
 * wake_fd while the plan is empty. */
void vf__fwd_loop_plain(struct fwd_lcore *fl, struct vf_stream *const *fs,
			const struct vf_fwd_mode *mode, unsigned int n, uint32_t gen);
void vf__fwd_loop_timed(struct fwd_lcore *fl, struct vf_stream *const *fs,
			const struct vf_fwd_mode *mode, unsigned int n, uint32_t gen);
void vf__fwd_loop_sleepy(struct fwd_lcore *fl, struct vf_stream *const *fs,
			 const struct vf_fwd_mode *mode, unsigned int n, int wake_fd, uint32_t gen);
void vf__fwd_loop_empty(struct fwd_lcore *fl, int wake_fd, uint32_t gen);
#endif
