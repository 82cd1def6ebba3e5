/* Ports added and removed while forwarding runs (the shell's port attach
 * and detach, vfctl against a daemon), without pausing the other ports.
 *
 * The streams are laid out again as vf_fwd_setup() would, over the ports
 * that exist now.  A stream whose rx port, tx port and queue stay is kept:
 * the same object, its counters, its mode state.  Moving it from one core
 * to another must not let two cores poll it at once, so the change goes in
 * two steps, each published as plans (engine_priv.h):
 *   1. every core keeps only the streams that stay on it; once each core
 *      has taken that plan, no core touches a stream that goes away or
 *      moves, and the ones that go are freed;
 *   2. every core gets its new plan: what stayed, plus the streams that
 *      are new or moved to it.  A core with more streams than cores in use
 *      is launched; one left without streams sleeps until the stop.
 * A stream that keeps its core is polled throughout: its port sees no
 * pause, only a core's one pass taking the new plan. */
#include <errno.h>
#include <limits.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "engine_priv.h"
#include "vf_log.h"

/* A core that does not finish its pass in this long is stuck (a driver
 * blocking in a burst, or --tx-first waiting up to 5 s for a link). */
#define UPDATE_WAIT_MS 10000

/* Slot i runs pl from its next pass (the old plan is the caller's to free
 * once wait_seen() says every core took its new one). */
static void publish(unsigned int i, struct fwd_plan *pl)
{
	struct fwd_lcore *fl = &vf__fwd_lcores[i];

	__atomic_store_n(&fl->plan, pl, __ATOMIC_RELEASE);
	__atomic_store_n(&fl->gen, fl->gen + 1, __ATOMIC_RELEASE);
}

/* Until every launched slot below n runs its current gen; -ETIMEDOUT
 * after max_ms (a core stuck in a burst). */
static int wait_seen(unsigned int n, unsigned int max_ms)
{
	uint64_t hz = rte_get_tsc_hz(), t0 = rte_rdtsc(), kicked = t0;

	vf_fwd_wake();
	for (;;) {
		bool all = true;
		uint64_t now;

		for (unsigned int i = 0; i < n; i++) {
			const struct fwd_lcore *fl = &vf__fwd_lcores[i];

			if (fl->launched && __atomic_load_n(&fl->seen, __ATOMIC_ACQUIRE) != fl->gen)
				all = false;
		}
		if (all)
			return 0;
		now = rte_rdtsc();
		if (now - t0 > hz / 1000 * max_ms)
			return -ETIMEDOUT;
		/* A core that went to sleep just before the kick sleeps on:
		 * kick again every 10 ms. */
		if (now - kicked > hz / 100) {
			vf_fwd_wake();
			kicked = now;
		}
		rte_delay_us_sleep(20);
	}
}

bool vf_fwd_can_update(void)
{
	const struct vf_fwd_mode *m = vf__fwd_cfg ? vf__fwd_cfg->mode : NULL;

	return vf_fwd_running() && m && !m->generates && !m->drains;
}

/* Caller's thread only (under the session lock): the layout being built. */
static struct vf_stream *next[VF_MAX_STREAMS];
static unsigned int nb_next;

static void next_free_new(unsigned int n_old)
{
	for (unsigned int j = 0; j < nb_next; j++) {
		bool old = false;

		for (unsigned int o = 0; o < n_old && !old; o++)
			old = vf__fwd_streams[o] == next[j];
		if (!old)
			vf__fwd_stream_free(next[j]);
	}
	nb_next = 0;
}

/* The streams of the ports there are, less gone, as vf_fwd_setup() pairs
 * them; old streams taken over where they match.  0 or -ENOMEM. */
static int layout(const struct vf_port *gone)
{
	unsigned int ids[VF_MAX_PORTS], n = 0;

	nb_next = 0;
	for (uint16_t p = 0; p < vf_port_count(); p++)
		if (vf_port_get(p) && vf_port_get(p) != gone)
			ids[n++] = p;
	for (unsigned int o = 0; o < vf__fwd_nb_streams; o++)
		vf__fwd_streams[o]->upd_slot = UINT_MAX;
	for (unsigned int k = 0; k < n; k++) {
		struct vf_port *rx = vf_port_get((uint16_t)ids[k]);
		struct vf_port *tx = vf_port_get((uint16_t)ids[(k ^ 1) < n ? (k ^ 1) : k]);

		for (uint16_t q = 0; q < vf__fwd_nb_q; q++) {
			struct vf_stream *fs = NULL;

			for (unsigned int o = 0; o < vf__fwd_nb_streams && !fs; o++) {
				struct vf_stream *s = vf__fwd_streams[o];

				if (s->rx_port == rx && s->tx_port == tx && s->rx_queue == q &&
				    s->upd_slot == UINT_MAX)
					fs = s;
			}
			if (!fs) {
				fs = vf__fwd_stream_new(vf__fwd_cfg, rx, tx, q);
				if (!fs || vf__fwd_stream_init(fs, 0)) {
					if (fs)
						vf__fwd_stream_free(fs);
					next_free_new(vf__fwd_nb_streams);
					return -ENOMEM;
				}
				fs->upd_slot = UINT_MAX - 1;	/* new: not an old one to match */
			} else {
				fs->upd_slot = 0;
			}
			next[nb_next++] = fs;
		}
	}
	return 0;
}

/* Cores in use for nb_next streams, and each stream's slot: contiguous
 * blocks, as vf_fwd_setup(). */
static unsigned int assign(void)
{
	unsigned int avail = vf_fwd_lcores_available();
	unsigned int nl = vf__fwd_cfg->nb_cores ? vf__fwd_cfg->nb_cores : avail;

	if (nl > avail)
		nl = avail;
	if (nl > nb_next)
		nl = nb_next;
	for (unsigned int i = 0; i < nl; i++)
		for (unsigned int j = nb_next * i / nl; j < nb_next * (i + 1) / nl; j++)
			next[j]->upd_slot = i;
	return nl;
}

/* Slot i's plan of the streams that stay on it (step 1), or NULL when that
 * is its whole plan already (nothing to publish). */
static int plan_kept(unsigned int i, struct fwd_plan **out)
{
	const struct fwd_plan *cur = vf__fwd_lcores[i].plan;
	unsigned int k = 0;
	struct fwd_plan *pl;

	*out = NULL;
	for (unsigned int x = 0; x < cur->n; x++)
		k += cur->s[x]->upd_slot == i;
	if (k == cur->n)
		return 0;
	pl = vf__fwd_plan_new(k);
	if (!pl)
		return -ENOMEM;
	k = 0;
	for (unsigned int x = 0; x < cur->n; x++)
		if (cur->s[x]->upd_slot == i)
			pl->s[k++] = cur->s[x];
	*out = pl;
	return 0;
}

static struct fwd_plan *plan_next(unsigned int i)
{
	unsigned int k = 0;
	struct fwd_plan *pl;

	for (unsigned int j = 0; j < nb_next; j++)
		k += next[j]->upd_slot == i;
	pl = vf__fwd_plan_new(k);
	if (!pl)
		return NULL;
	k = 0;
	for (unsigned int j = 0; j < nb_next; j++)
		if (next[j]->upd_slot == i)
			pl->s[k++] = next[j];
	return pl;
}

int vf_fwd_update(const struct vf_port *gone)
{
	struct fwd_plan *kept[RTE_MAX_LCORE] = { NULL }, *fresh[RTE_MAX_LCORE] = { NULL };
	struct fwd_plan *old[RTE_MAX_LCORE];
	unsigned int n_old = vf__fwd_nb_lcores, nl, slots;
	int ret;

	if (!vf_fwd_can_update())
		return -EOPNOTSUPP;
	ret = layout(gone);
	if (ret)
		return ret;
	nl = assign();
	slots = nl > n_old ? nl : n_old;
	/* Every plan first, so that nothing is published unless all exist. */
	for (unsigned int i = 0; i < slots && !ret; i++) {
		if (i < n_old)
			ret = plan_kept(i, &kept[i]);
		if (!ret && !(fresh[i] = plan_next(i)))
			ret = -ENOMEM;
	}
	if (ret) {
		for (unsigned int i = 0; i < slots; i++) {
			rte_free(kept[i]);
			rte_free(fresh[i]);
		}
		next_free_new(vf__fwd_nb_streams);
		return ret;
	}
	/* Step 1: no core polls a stream that goes away or moves. */
	for (unsigned int i = 0; i < n_old; i++) {
		old[i] = vf__fwd_lcores[i].plan;
		if (kept[i])
			publish(i, kept[i]);
	}
	if (wait_seen(n_old, UPDATE_WAIT_MS)) {
		/* Back to the plans before; what a core may still hold is
		 * kept (the step-1 plans leak, a few bytes). */
		for (unsigned int i = 0; i < n_old; i++)
			if (kept[i])
				publish(i, old[i]);
		for (unsigned int i = 0; i < slots; i++)
			rte_free(fresh[i]);
		next_free_new(vf__fwd_nb_streams);
		VF_ERR("a forwarding core did not finish its pass in %u ms: ports unchanged",
		       UPDATE_WAIT_MS);
		return -ETIMEDOUT;
	}
	/* The streams that went, and the table, under the table lock: a
	 * telemetry reader may be counting them. */
	vf_fwd_streams_lock();
	for (unsigned int o = 0; o < vf__fwd_nb_streams; o++)
		if (vf__fwd_streams[o]->upd_slot == UINT_MAX)
			vf__fwd_stream_free(vf__fwd_streams[o]);
	vf__fwd_nb_streams = 0;
	vf_fwd_streams_unlock();
	/* Step 2: the new plans; cores beyond those running are launched. */
	for (unsigned int i = 0; i < slots; i++) {
		struct fwd_lcore *fl = &vf__fwd_lcores[i];

		if (i < n_old) {
			publish(i, fresh[i]);
			continue;
		}
		fl->lcore = vf__fwd_slot_lcore(i);
		fl->plan = fresh[i];
		fl->tx_first = 0;
		fl->seen = fl->gen;
		vf__fwd_wake_fd_make(i);
		vf__fwd_nb_lcores = i + 1;
		if (vf__fwd_launch(i))
			VF_ERR("forwarding core %u not launched: its %u stream(s) stay idle",
			       fl->lcore, fresh[i]->n);
	}
	vf_fwd_streams_lock();
	for (unsigned int j = 0; j < nb_next; j++) {
		next[j]->id = (uint16_t)j;
		next[j]->nb_streams = (uint16_t)nb_next;
		next[j]->nb_senders = (uint16_t)(nb_next ? nb_next : 1);
		next[j]->lcore = vf__fwd_lcores[next[j]->upd_slot].lcore;
		vf__fwd_streams[j] = next[j];
	}
	vf__fwd_nb_streams = nb_next;
	vf_fwd_streams_unlock();
	nb_next = 0;
	/* The plans before are free once every core took its new one. */
	if (wait_seen(slots, UPDATE_WAIT_MS) == 0) {
		for (unsigned int i = 0; i < n_old; i++) {
			rte_free(old[i]);
			rte_free(kept[i]);
		}
	} else {
		VF_ERR("a forwarding core did not take its new streams in %u ms", UPDATE_WAIT_MS);
	}
	return 0;
}
