/* A forwarding core that sleeps while its rx queues are idle (rx modes,
 * vf_port.h).  The order is the contract against lost wake-ups: arm every
 * queue (the peer will signal its next post), pass over the streams once
 * more (what was posted before the arm is taken now), and only then sleep
 * on the queues' event fds.  While asleep the core is offline for
 * vf_sync, so a disconnect does not wait for it; when it wakes it disarms
 * each queue through the driver, which looks at the queue's state first. */
#include "vf_fwd_sleep.h"

#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "vf_event.h"
#include "vf_sync.h"

/* A queue without a peer cannot signal: look again this often. */
#define SLEEP_NO_PEER_MS 10
/* Otherwise the wake fd covers stop and mode changes; the timeout only
 * bounds a sleep against a signal lost by a broken peer. */
#define SLEEP_MAX_MS 1000

bool vf_fwd_may_sleep(struct vf_stream *const *fs, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (vf_port_can_notify(fs[i]->rx_port))
			return true;
	return false;
}

/* Empty polling a core owes before it sleeps, from its rx ports' modes;
 * UINT64_MAX: never (a port polls or cannot notify). */
static uint64_t idle_threshold(const struct vf_fwd_sleeper *sl, struct vf_stream *const *fs,
			       unsigned int n)
{
	uint64_t t = 0;

	for (unsigned int i = 0; i < n; i++) {
		const struct vf_port *p = fs[i]->rx_port;

		if (!vf_port_can_notify(p))
			return UINT64_MAX;
		switch (vf_port_rx_mode(p)) {
		case VF_RX_POLL:
			return UINT64_MAX;
		case VF_RX_ADAPTIVE:
			t = sl->adaptive_cycles;
			break;
		case VF_RX_INTERRUPT:
			break;
		}
	}
	return t;
}

static uint64_t rx_total(struct vf_stream *const *fs, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v += vf_ctr_read(fs[i]->rx_packets);
	return v;
}

/* The core's rx state changed: one rx_state event per stream it polls.
 * Lock-free and without a system call (vf_event.h), on this core. */
static void state_change(struct vf_fwd_sleeper *sl, struct vf_stream *const *fs, unsigned int n,
			 bool interrupt)
{
	sl->interrupt = interrupt;
	if (!vf_event_on())
		return;
	for (unsigned int i = 0; i < n; i++) {
		const struct vf_port *p = fs[i]->rx_port;
		struct vf_event ev = {
			.type = VF_EV_RX_STATE, .port = p->id, .queue = fs[i]->rx_queue,
			.state = interrupt, .pid = -1, .uid = -1, .gid = -1,
		};

		memcpy(ev.name, p->name, sizeof(ev.name) - 1);
		snprintf(ev.what, sizeof(ev.what), "%s", vf_rx_mode_name(vf_port_rx_mode(p)));
		vf_event_raise(&ev);
	}
}

void vf_fwd_busy(struct vf_fwd_sleeper *sl, struct vf_stream *const *fs, unsigned int n)
{
	if (rte_rdtsc() - sl->woke_tsc >= sl->hold_cycles)
		state_change(sl, fs, n, false);
}

static void disarm(struct vf_stream *const *fs, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		fs[i]->rx_port->drv->rx_intr_disarm(fs[i]->rx_port, fs[i]->rx_queue);
}

bool vf_fwd_idle(struct vf_fwd_sleeper *sl, struct vf_stream *const *fs, unsigned int n,
		 const struct vf_fwd_mode *mode)
{
	struct pollfd pfd[VF_MAX_STREAMS + 1];
	uint64_t now, thr, before, t0, t1;
	unsigned int nfd = 0;
	int timeout = SLEEP_MAX_MS;

	/* The ports' modes first: a polling core pays no TSC read per empty
	 * pass (6 % of a memif mac loop's client when it did).  Derived again
	 * only when a mode changed: with 256 ports on the core, looking at
	 * each port after every empty pass was a fifth of the core. */
	if (!sl->thr_known || sl->thr_gen != vf_port_rx_modes_gen()) {
		sl->thr_gen = vf_port_rx_modes_gen();
		sl->thr = idle_threshold(sl, fs, n);
		sl->thr_known = true;
	}
	thr = sl->thr;
	if (thr == UINT64_MAX) {
		sl->idle_since = 0;	/* a later switch to adaptive starts afresh */
		if (sl->interrupt)	/* set to poll while it slept */
			state_change(sl, fs, n, false);
		return false;
	}
	now = rte_rdtsc();
	if (!sl->idle_since)
		sl->idle_since = now;
	if (now - sl->idle_since < thr)
		return false;
	for (unsigned int i = 0; i < n; i++) {
		int fd = fs[i]->rx_port->drv->rx_intr_arm(fs[i]->rx_port, fs[i]->rx_queue);

		if (fd < 0)
			timeout = SLEEP_NO_PEER_MS;
		else
			pfd[nfd++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	}
	pfd[nfd++] = (struct pollfd){ .fd = sl->wake_fd, .events = POLLIN };
	before = rx_total(fs, n);
	for (unsigned int i = 0; i < n; i++)
		mode->fwd(fs[i]);
	if (rx_total(fs, n) != before) {
		disarm(fs, n);
		sl->idle_since = 0;
		return false;
	}
	if (!sl->interrupt)
		state_change(sl, fs, n, true);
	vf_sync_sleep(sl->lcore);
	t0 = rte_rdtsc();
	/* EINTR or an fd closed under us (POLLNVAL) just end the sleep. */
	(void)poll(pfd, nfd, timeout);
	t1 = rte_rdtsc();
	vf_sync_wake(sl->lcore);
	if (pfd[nfd - 1].revents & POLLIN) {
		uint64_t v;

		/* A stop ends the loop anyway; a mode change is taken. */
		if (read(sl->wake_fd, &v, sizeof(v)) < 0) {
		}
	}
	disarm(fs, n);
	for (unsigned int i = 0; i < n; i++) {
		vf_ctr_add(fs[i]->sleep_cycles, t1 - t0);
		vf_ctr_add(fs[i]->wakeups, 1);
	}
	sl->idle_since = 0;
	sl->woke_tsc = t1;
	return true;
}
