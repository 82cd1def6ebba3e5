/* Streams over lcores, start/stop, the per-lcore loop.  Ports added or
 * removed while forwarding: engine_update.c; the loops a core runs on its
 * plan: loops.c; the plans: engine_priv.h. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "engine_priv.h"
#include "vf_fwd_mode.h"
#include "vf_fwd_sleep.h"
#include "vf_log.h"
#include "vf_sync.h"
#include "vf_tsan.h"

struct vf_stream *vf__fwd_streams[VF_MAX_STREAMS];
unsigned int vf__fwd_nb_streams;
struct fwd_lcore vf__fwd_lcores[RTE_MAX_LCORE];
unsigned int vf__fwd_nb_lcores;
uint16_t vf__fwd_nb_q;
const struct vf_fwd_cfg *vf__fwd_cfg;

/* Per lcore slot, for the rx modes: written to wake a sleeping core (stop,
 * an rx mode change, a new plan, a driver's vf_sync_kick()).  Made once,
 * kept for the process; wake_made (atomic, set after its fd) and wake_hw,
 * the slots that have one, are read by vf_sync_kick() from any thread. */
static int wake_fds[RTE_MAX_LCORE];
static bool wake_made[RTE_MAX_LCORE];
static unsigned int wake_hw;
/* Set by the main thread, polled by the forwarding lcores: relaxed (what
 * they wrote is ordered by rte_eal_wait_lcore(), not by the flag).  The
 * loops themselves watch their slot's gen, which the stop bumps too. */
static bool stop_flag;
bool vf__fwd_draining;
static bool running;
static uint64_t start_tsc, stop_tsc;

unsigned int vf_fwd_lcores_available(void)
{
	return rte_lcore_count() > 0 ? rte_lcore_count() - 1 : 0;
}

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

void vf_fwd_streams_lock(void)
{
	pthread_mutex_lock(&table_lock);
}

void vf_fwd_streams_unlock(void)
{
	pthread_mutex_unlock(&table_lock);
}

unsigned int vf_fwd_nb_streams(void)
{
	return vf__fwd_nb_streams;
}

unsigned int vf_fwd_nb_senders(void)
{
	return vf__fwd_nb_streams ? vf__fwd_streams[0]->nb_senders : 0;
}

struct vf_stream *vf_fwd_stream(unsigned int i)
{
	return i < vf__fwd_nb_streams ? vf__fwd_streams[i] : NULL;
}

bool vf_fwd_running(void)
{
	return running;
}

double vf_fwd_elapsed(void)
{
	uint64_t end = running ? rte_rdtsc() : stop_tsc;

	if (!start_tsc)
		return 0;
	return (double)(end - start_tsc) / (double)rte_get_tsc_hz();
}

/* What a stream's mode holds goes back through that mode (which may not
 * be the configured one any more). */
static void stream_release(struct vf_stream *fs)
{
	if (!fs->mode_priv)
		return;
	if (fs->priv_mode && fs->priv_mode->stream_fini)
		fs->priv_mode->stream_fini(fs);
	else
		vf_fwd_gen_release(fs);
}

static void stream_free_priv(struct vf_stream *fs)
{
	stream_release(fs);
	rte_free(fs->mode_priv);
	fs->mode_priv = NULL;
	fs->priv_mode = NULL;
}

void vf__fwd_stream_free(struct vf_stream *fs)
{
	stream_free_priv(fs);
	rte_free(fs->bursts_base);
	rte_free(fs);
}

struct vf_stream *vf__fwd_stream_new(const struct vf_fwd_cfg *cfg, struct vf_port *rx,
				     struct vf_port *tx, uint16_t q)
{
	struct vf_stream *fs = rte_zmalloc("vf_stream", sizeof(*fs), RTE_CACHE_LINE_SIZE);

	if (!fs)
		return NULL;
	fs->rx_port = rx;
	fs->tx_port = tx;
	fs->rx_queue = fs->tx_queue = q;
	fs->cfg = cfg;
	fs->sends = true;
	return fs;
}

int vf__fwd_stream_init(struct vf_stream *fs, unsigned int tx_first_bursts)
{
	const struct vf_fwd_cfg *cfg = fs->cfg;

	fs->burst = cfg->burst;
	stream_free_priv(fs);
	if (cfg->mode->stream_init)
		cfg->mode->stream_init(fs);
	else if (tx_first_bursts)
		vf_fwd_gen_init(fs);
	fs->priv_mode = cfg->mode->stream_init ? cfg->mode : NULL;
	if ((cfg->mode->stream_init || tx_first_bursts) && !fs->mode_priv)
		return -ENOMEM;
	return 0;
}

struct fwd_plan *vf__fwd_plan_new(unsigned int n)
{
	struct fwd_plan *pl = rte_zmalloc("vf_plan", sizeof(*pl) + n * sizeof(pl->s[0]),
					  RTE_CACHE_LINE_SIZE);

	if (pl)
		pl->n = n;
	return pl;
}

static void free_streams(void)
{
	vf_fwd_streams_lock();
	for (unsigned int i = 0; i < vf__fwd_nb_streams; i++)
		vf__fwd_stream_free(vf__fwd_streams[i]);
	vf__fwd_nb_streams = 0;
	vf_fwd_streams_unlock();
	for (unsigned int i = 0; i < vf__fwd_nb_lcores; i++) {
		rte_free(vf__fwd_lcores[i].plan);
		vf__fwd_lcores[i].plan = NULL;
	}
	vf__fwd_nb_lcores = 0;
}

unsigned int vf__fwd_slot_lcore(unsigned int i)
{
	unsigned int lc = rte_get_next_lcore(-1, 1, 0);

	while (i--)
		lc = rte_get_next_lcore(lc, 1, 0);
	return lc;
}

int vf_fwd_setup(struct vf_fwd_cfg *cfg, uint16_t nb_q)
{
	uint16_t nports = vf_port_count();
	unsigned int avail = vf_fwd_lcores_available(), nl, i;
	unsigned int ids[VF_MAX_PORTS], n = 0;

	if (running)
		return -EBUSY;
	for (uint16_t p = 0; p < nports; p++)
		if (vf_port_get(p))
			ids[n++] = p;
	free_streams();
	if (n == 0 || nb_q == 0)
		return -ENODEV;
	if (avail == 0) {
		VF_ERR("no forwarding lcore: give at least two lcores (-l), one is the main lcore");
		return -EINVAL;
	}
	/* Port 2k <-> 2k+1 (in creation order), a lone last port to itself.
	 * --one-way: the stream that sends on port 2k (and receives on 2k+1,
	 * where its frames come back) generates; its partner only receives. */
	unsigned int senders = 0;

	for (unsigned int k = 0; k < n; k++) {
		unsigned int peer = (k ^ 1) < n ? (k ^ 1) : k;
		for (uint16_t q = 0; q < nb_q; q++) {
			struct vf_stream *fs = vf__fwd_stream_new(cfg, vf_port_get((uint16_t)ids[k]),
								  vf_port_get((uint16_t)ids[peer]), q);

			if (!fs) {
				free_streams();
				return -ENOMEM;
			}
			fs->id = (uint16_t)vf__fwd_nb_streams;
			fs->sends = !cfg->one_way || peer == k || (k & 1);
			senders += fs->sends;
			vf_fwd_streams_lock();
			vf__fwd_streams[vf__fwd_nb_streams++] = fs;
			vf_fwd_streams_unlock();
		}
	}
	for (unsigned int s = 0; s < vf__fwd_nb_streams; s++) {
		vf__fwd_streams[s]->nb_streams = (uint16_t)vf__fwd_nb_streams;
		vf__fwd_streams[s]->nb_senders = (uint16_t)(senders ? senders : 1);
	}
	nl = cfg->nb_cores ? cfg->nb_cores : avail;
	if (nl > avail)
		nl = avail;
	if (nl > vf__fwd_nb_streams)
		nl = vf__fwd_nb_streams;
	/* Contiguous blocks of streams per lcore, as testpmd does. */
	memset(vf__fwd_lcores, 0, sizeof(vf__fwd_lcores));
	for (i = 0; i < nl; i++) {
		struct fwd_lcore *fl = &vf__fwd_lcores[i];
		unsigned int first = vf__fwd_nb_streams * i / nl;
		unsigned int count = vf__fwd_nb_streams * (i + 1) / nl - first;

		fl->lcore = vf__fwd_slot_lcore(i);
		fl->plan = vf__fwd_plan_new(count);
		if (!fl->plan) {
			vf__fwd_nb_lcores = i;
			free_streams();
			return -ENOMEM;
		}
		for (unsigned int s = 0; s < count; s++) {
			fl->plan->s[s] = vf__fwd_streams[first + s];
			vf__fwd_streams[first + s]->lcore = fl->lcore;
		}
	}
	vf__fwd_nb_lcores = nl;
	vf__fwd_nb_q = nb_q;
	vf__fwd_cfg = cfg;
	return 0;
}

/* The first bursts go to a port whose link is up: a port's connection may
 * still be negotiating when forwarding starts (virtio_user's backend talks
 * on a worker thread), and a burst sent into a down link is lost.  Bounded,
 * as testpmd's own link check at start; here on the forwarding core, so the
 * control thread and the shell go on meanwhile. */
#define TX_FIRST_LINK_WAIT_MS 5000

static void wait_link(struct vf_port *port)
{
	struct vf_link l;

	for (unsigned int ms = 0; ms < TX_FIRST_LINK_WAIT_MS &&
	     !__atomic_load_n(&stop_flag, __ATOMIC_RELAXED); ms++) {
		vf_port_link(port, &l);
		if (l.up)
			return;
		rte_delay_us_sleep(1000);
	}
}

static int lcore_loop(void *arg)
{
	struct fwd_lcore *fl = arg;
	unsigned int slot = (unsigned int)(fl - vf__fwd_lcores);
	int wake_fd = wake_made[slot] ? wake_fds[slot] : -1;

	/* Pairs with the release before rte_eal_remote_launch(): before the
	 * first read of what the main thread set up. */
	vf_tsan_acquire(fl);
	vf_sync_thread_online(fl->lcore);
	for (;;) {
		/* gen first: a stop bumps it after raising the flag, so a core
		 * that took the stop's gen sees the flag. */
		uint32_t gen = __atomic_load_n(&fl->gen, __ATOMIC_ACQUIRE);
		struct fwd_plan *pl = __atomic_load_n(&fl->plan, __ATOMIC_ACQUIRE);
		struct vf_stream *const *fs = pl->s;
		unsigned int n = pl->n;
		const struct vf_fwd_mode *mode;

		if (__atomic_load_n(&stop_flag, __ATOMIC_RELAXED))
			break;

		/* Nothing of an older plan is held past this point. */
		__atomic_store_n(&fl->seen, gen, __ATOMIC_RELEASE);
		if (n == 0) {
			vf__fwd_loop_empty(fl, wake_fd, gen);
			continue;
		}
		mode = fs[0]->cfg->mode;
		if (fl->tx_first) {
			for (unsigned int i = 0; i < n; i++)
				wait_link(fs[i]->tx_port);
			for (unsigned int b = 0; b < fl->tx_first; b++)
				for (unsigned int i = 0; i < n; i++) {
					struct rte_mbuf *pkts[VF_MAX_BURST];
					uint16_t k = vf_fwd_gen_fill(fs[i], pkts, fs[i]->burst);
					fwd_tx(fs[i], pkts, k);
				}
			fl->tx_first = 0;
		}
		if (fs[0]->cfg->record_cycles)
			vf__fwd_loop_timed(fl, fs, mode, n, gen);
		else if (mode->sleeps && wake_fd >= 0 && vf_fwd_may_sleep(fs, n))
			vf__fwd_loop_sleepy(fl, fs, mode, n, wake_fd, gen);
		else
			vf__fwd_loop_plain(fl, fs, mode, n, gen);
	}
	vf_sync_thread_offline(fl->lcore);
	/* Pairs with the acquire after rte_eal_wait_lcore(). */
	vf_tsan_release(fl);
	return 0;
}

/* vf_sync_kick(): every slot that has a wake fd, from any thread (a
 * core not forwarding finds the count drained at its next start). */
static void wake_all(void)
{
	uint64_t one = 1;
	unsigned int n = __atomic_load_n(&wake_hw, __ATOMIC_ACQUIRE);

	for (unsigned int i = 0; i < n; i++)
		if (__atomic_load_n(&wake_made[i], __ATOMIC_ACQUIRE) &&
		    write(wake_fds[i], &one, sizeof(one)) < 0) {
			/* EAGAIN: the counter is full, the core wakes anyway */
		}
}

bool vf__fwd_wake_fd_make(unsigned int i)
{
	uint64_t v;

	if (!wake_made[i]) {
		/* Without one the core polls, as it always did. */
		wake_fds[i] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (wake_fds[i] < 0)
			return false;
		__atomic_store_n(&wake_made[i], true, __ATOMIC_RELEASE);
		if (i + 1 > wake_hw)
			__atomic_store_n(&wake_hw, i + 1, __ATOMIC_RELEASE);
	} else if (read(wake_fds[i], &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing left over from the last stop */
	}
	return true;
}

int vf__fwd_launch(unsigned int i)
{
	struct fwd_lcore *fl = &vf__fwd_lcores[i];

	/* The launch orders everything written so far before the lcore's
	 * start (DPDK's atomics, which TSan cannot see). */
	vf_tsan_release(fl);
	if (rte_eal_remote_launch(lcore_loop, fl, fl->lcore)) {
		VF_ERR("cannot launch forwarding on lcore %u", fl->lcore);
		return -EBUSY;
	}
	fl->launched = true;
	return 0;
}

int vf_fwd_start(unsigned int tx_first_bursts)
{
	if (running)
		return -EALREADY;
	if (!vf__fwd_nb_streams)
		return -ENODEV;
	for (unsigned int i = 0; i < vf__fwd_nb_streams; i++)
		if (vf__fwd_stream_init(vf__fwd_streams[i], tx_first_bursts))
			return -ENOMEM;
	for (unsigned int i = 0; i < vf__fwd_nb_lcores; i++)
		vf__fwd_wake_fd_make(i);
	vf_sync_set_kick(wake_all);
	__atomic_store_n(&stop_flag, false, __ATOMIC_RELAXED);
	__atomic_store_n(&vf__fwd_draining, false, __ATOMIC_RELAXED);
	start_tsc = rte_rdtsc();
	/* Paced streams owe their frames from now, not from their core's
	 * first poll: the rate holds over vf_fwd_elapsed() (the bucket's depth
	 * bounds the catch-up). */
	for (unsigned int i = 0; i < vf__fwd_nb_streams; i++) {
		struct vf_stream *fs = vf__fwd_streams[i];

		if (fs->tb_rate) {
			fs->tb_last_tsc = start_tsc;
			vf_pace_start(&fs->pace, &fs->cfg->pattern, start_tsc,
				      rte_get_tsc_hz(), i, vf__fwd_nb_streams);
		} else {
			/* a rate set later ('set rate') starts its schedule then */
			fs->pace.started = false;
		}
	}
	running = true;
	for (unsigned int i = 0; i < vf__fwd_nb_lcores; i++) {
		struct fwd_lcore *fl = &vf__fwd_lcores[i];
		struct vf_stream *first = fl->plan->n ? fl->plan->s[0] : NULL;

		/* --tx-first fills from the generators' template; a mode with
		 * state of its own sends by itself. */
		fl->tx_first = first && first->priv_mode && first->priv_mode->stream_fini ?
			0 : tx_first_bursts;
		fl->seen = fl->gen;
		if (vf__fwd_launch(i)) {
			vf_fwd_stop();
			return -EBUSY;
		}
	}
	return 0;
}

/* Receive up to --drain-ms after the last send.  Once everything sent
 * is back there is nothing left to wait for but a duplicate on its
 * heels: 10 ms more, then the drain ends (a --count run over a fast
 * device ends at once instead of idling out a long --drain-ms). */
static void drain(const struct vf_fwd_cfg *cfg)
{
	uint64_t hz = rte_get_tsc_hz(), now = rte_rdtsc();
	uint64_t end = now + cfg->drain_ms * hz / 1000;
	bool back = false;

	while (now < end) {
		if (!back && cfg->mode->all_back && cfg->mode->all_back()) {
			back = true;
			end = RTE_MIN(end, now + hz / 100);
		}
		rte_delay_us_sleep((unsigned int)RTE_MIN((end - now) * 1000000 / hz + 1, (uint64_t)1000));
		now = rte_rdtsc();
	}
}

void vf_fwd_stop(void)
{
	const struct vf_fwd_cfg *cfg = vf__fwd_nb_streams ? vf__fwd_streams[0]->cfg : NULL;
	bool drained = false;

	if (!running)
		return;
	if (cfg && cfg->mode->drains && cfg->drain_ms) {
		/* The run ends when the last packet is sent; late packets
		 * still count, so the receivers go on a while. */
		stop_tsc = rte_rdtsc();
		drained = true;
		__atomic_store_n(&vf__fwd_draining, true, __ATOMIC_RELAXED);
		drain(cfg);
	}
	__atomic_store_n(&stop_flag, true, __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < vf__fwd_nb_lcores; i++)
		__atomic_store_n(&vf__fwd_lcores[i].gen, vf__fwd_lcores[i].gen + 1, __ATOMIC_RELEASE);
	vf_fwd_wake();
	for (unsigned int i = 0; i < vf__fwd_nb_lcores; i++) {
		struct fwd_lcore *fl = &vf__fwd_lcores[i];

		if (!fl->launched)
			continue;
		rte_eal_wait_lcore(fl->lcore);
		vf_tsan_acquire(fl);
		fl->launched = false;
	}
	for (unsigned int i = 0; i < vf__fwd_nb_streams; i++)
		stream_release(vf__fwd_streams[i]);
	if (!drained)
		stop_tsc = rte_rdtsc();
	__atomic_store_n(&vf__fwd_draining, false, __ATOMIC_RELAXED);
	running = false;
}

void vf_fwd_stats_clear(void)
{
	for (unsigned int i = 0; i < vf__fwd_nb_streams; i++) {
		struct vf_stream *fs = vf__fwd_streams[i];

		fs->stats_base[0] = vf_ctr_read(fs->rx_packets);
		fs->stats_base[1] = vf_ctr_read(fs->tx_packets);
		fs->stats_base[2] = vf_ctr_read(fs->fwd_dropped);
		fs->stats_base[3] = vf_ctr_read(fs->tx_retries);
		fs->cycles_base[0] = vf_ctr_read(fs->poll_cycles);
		fs->cycles_base[1] = vf_ctr_read(fs->busy_cycles);
		fs->sleep_base[0] = vf_ctr_read(fs->sleep_cycles);
		fs->sleep_base[1] = vf_ctr_read(fs->wakeups);
		if (!fs->bursts_base)
			fs->bursts_base = rte_zmalloc("vf_hist", sizeof(fs->rx_bursts), 0);
		if (fs->bursts_base)
			for (unsigned int b = 0; b <= VF_MAX_BURST; b++)
				fs->bursts_base[b] = vf_ctr_read(fs->rx_bursts[b]);
		if (fs->priv_mode && fs->priv_mode->stats_clear)
			fs->priv_mode->stats_clear(fs);
	}
}

void vf_fwd_wake(void)
{
	uint64_t one = 1;

	for (unsigned int i = 0; i < vf__fwd_nb_lcores; i++)
		if (wake_made[i] && write(wake_fds[i], &one, sizeof(one)) < 0) {
			/* EAGAIN: the counter is full, the core wakes anyway */
		}
}

uint16_t vf_fwd_tx_and_free(struct vf_stream *fs, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t before = (uint16_t)fs->tx_packets;

	fwd_tx(fs, pkts, n);
	return (uint16_t)((uint16_t)fs->tx_packets - before);
}
