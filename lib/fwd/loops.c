/* The loops a forwarding core runs on its plan (engine.c's lcore_loop()
 * picks one): each returns when the core's gen moves (a new plan, or the
 * stop). */
#include <poll.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "engine_priv.h"
#include "vf_fwd_mode.h"
#include "vf_fwd_park.h"
#include "vf_fwd_sleep.h"
#include "vf_sync.h"

/* A pass goes on while the slot's gen is the one the plan was taken at:
 * one relaxed load per pass, as the stop flag was before. */
static inline bool same_gen(const struct fwd_lcore *fl, uint32_t gen)
{
	return __atomic_load_n(&fl->gen, __ATOMIC_RELAXED) == gen;
}

/* The loop with --record-core-cycles: one TSC read per poll, kept out of
 * the plain loop so that it costs nothing when off.  A poll is busy when
 * the stream's rx or tx count moved; the time between polls (quiescent
 * state) goes to the next poll.  What a user reads from it is which side of
 * a loop waits: a core near 100 % busy is the bottleneck. */
void vf__fwd_loop_timed(struct fwd_lcore *fl, struct vf_stream *const *fs,
			const struct vf_fwd_mode *mode, unsigned int n, uint32_t gen)
{
	uint64_t t = rte_rdtsc();

	while (same_gen(fl, gen)) {
		for (unsigned int i = 0; i < n; i++) {
			struct vf_stream *s = fs[i];
			uint64_t moved = vf_ctr_read(s->rx_packets) + vf_ctr_read(s->tx_packets), t1;

			mode->fwd(s);
			t1 = rte_rdtsc();
			vf_ctr_add(s->poll_cycles, t1 - t);
			if (vf_ctr_read(s->rx_packets) + vf_ctr_read(s->tx_packets) != moved)
				vf_ctr_add(s->busy_cycles, t1 - t);
			t = t1;
		}
		vf_sync_quiescent(fl->lcore);
	}
}

/* The loop of a core whose ports can notify (rx modes): after a pass that
 * received nothing it asks vf_fwd_idle() whether to sleep. */
void vf__fwd_loop_sleepy(struct fwd_lcore *fl, struct vf_stream *const *fs,
			 const struct vf_fwd_mode *mode, unsigned int n, int wake_fd, uint32_t gen)
{
	struct vf_fwd_sleeper sl = {
		.adaptive_cycles = rte_get_tsc_hz() / 1000000u * VF_RX_ADAPTIVE_IDLE_US,
		.wake_fd = wake_fd,
		.lcore = fl->lcore,
		.hold_cycles = rte_get_tsc_hz() / 1000u * VF_RX_STATE_HOLD_MS,
	};
	struct vf_fwd_park pk;
	bool parks = vf_fwd_park_init(&pk, n, mode) == 0;

	while (same_gen(fl, gen)) {
		uint64_t before = 0, after = 0;

		if (parks)
			after = vf_fwd_park_pass(&pk, fs, mode);
		else
			for (unsigned int i = 0; i < n; i++) {
				before += vf_ctr_read(fs[i]->rx_packets);
				mode->fwd(fs[i]);
				after += vf_ctr_read(fs[i]->rx_packets);
			}
		vf_sync_quiescent(fl->lcore);
		if (after != before) {
			sl.idle_since = 0;
			if (unlikely(sl.interrupt))
				vf_fwd_busy(&sl, fs, n);
		} else {
			vf_fwd_idle(&sl, fs, n, mode);
		}
	}
	vf_fwd_park_fini(&pk);
}

/* Every stream every pass; on a core with many, idle ones less often
 * (vf_fwd_park.h). */
void vf__fwd_loop_plain(struct fwd_lcore *fl, struct vf_stream *const *fs,
			const struct vf_fwd_mode *mode, unsigned int n, uint32_t gen)
{
	struct vf_fwd_park pk;

	if (vf_fwd_park_init(&pk, n, mode) == 0) {
		while (same_gen(fl, gen)) {
			vf_fwd_park_pass(&pk, fs, mode);
			vf_sync_quiescent(fl->lcore);
		}
		vf_fwd_park_fini(&pk);
		return;
	}
	while (same_gen(fl, gen)) {
		for (unsigned int i = 0; i < n; i++)
			mode->fwd(fs[i]);
		vf_sync_quiescent(fl->lcore);
	}
}

/* A launched core whose plan is empty (its streams went to other cores or
 * their ports were removed): asleep on its wake fd until a new plan. */
void vf__fwd_loop_empty(struct fwd_lcore *fl, int wake_fd, uint32_t gen)
{
	vf_sync_sleep(fl->lcore);
	while (__atomic_load_n(&fl->gen, __ATOMIC_ACQUIRE) == gen) {
		struct pollfd p = { .fd = wake_fd, .events = POLLIN };
		uint64_t v;

		if (wake_fd < 0) {
			rte_delay_us_sleep(1000);
			continue;
		}
		if (poll(&p, 1, 100) > 0 && read(wake_fd, &v, sizeof(v)) < 0) {
			/* EAGAIN: another reader took it */
		}
	}
	vf_sync_wake(fl->lcore);
}
