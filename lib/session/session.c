/* The session: ports, engine start, signals, emitting documents, the
 * Prometheus writer (vf_session.h). */
#include "vf_session.h"
#include "vf_runtime.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_mbuf.h>

#include "vf_chain.h"
#include "vf_frames.h"
#include "vf_log.h"
#include "vf_out.h"
#include "vf_prom.h"

static volatile sig_atomic_t got_signal;
static pthread_mutex_t session_lock = PTHREAD_MUTEX_INITIALIZER;

void vf_session_init(struct vf_session *ses, const char *tool)
{
	ses->tool = tool;
	ses->nb_rxq = ses->nb_txq = 1;
	ses->nb_rxd = ses->nb_txd = 1024;
	ses->fwd.burst = 32;
	vf_mix_single(&ses->fwd.txpkts, 64);
	ses->fwd.replay_speed = 1;
	ses->fwd.replay_loops = 1;
	ses->fwd.drain_ms = 100;
	ses->fwd.tx_retry_us = 1;	/* testpmd's `set burst tx delay` default */
	ses->fwd.impair = &ses->impair;
	ses->search.pdr_loss = 0.005;
	ses->search.min_rate = 10000;
	ses->search.trial = 1.0;
	ses->search.precision = 0.005;
}

static void on_signal(int sig)
{
	got_signal = sig;
}

void vf_session_signals_install(void)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
}

int vf_session_signalled(void)
{
	return got_signal;
}

void vf_session_lock(void) { pthread_mutex_lock(&session_lock); }
void vf_session_unlock(void) { pthread_mutex_unlock(&session_lock); }
bool vf_session_trylock(void) { return pthread_mutex_trylock(&session_lock) == 0; }

void vf_session_emit(struct vf_session *ses, struct vf_out *o)
{
	char *s = vf_out_take(o);

	if (!s)
		return;
	fputs(s, stdout);
	if (ses->json)
		fputc('\n', stdout);
	fflush(stdout);
	if (ses->stats_fp) {
		fputs(s, ses->stats_fp);
		if (ses->json)
			fputc('\n', ses->stats_fp);
		fflush(ses->stats_fp);
	}
	free(s);
}

bool vf_session_wait_links(double timeout_s)
{
	double end = vf_now_s() + timeout_s;

	for (;;) {
		bool all = true;

		for (uint16_t p = 0; p < vf_port_count(); p++) {
			struct vf_port *port = vf_port_get(p);
			struct vf_link l;

			if (!port)
				continue;
			vf_port_link(port, &l);
			all = all && l.up;
		}
		if (all)
			return true;
		if (got_signal || vf_now_s() >= end)
			return false;
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	}
}

int vf_session_port_add(struct vf_session *ses, const char *spec, char *err, size_t errlen)
{
	struct vf_port *p = vf_port_create(spec, err, errlen);
	struct vf_port_conf conf;
	uint16_t id;
	int ret;

	if (!p)
		return -1;
	id = p->id;
	if (!ses->eth_peer_set[id]) {
		/* testpmd's default peer: 02:00:00:00:00:PORT */
		uint8_t def[6] = { 0x02, 0, 0, 0, 0, (uint8_t)id };
		memcpy(ses->fwd.peer[id].addr_bytes, def, 6);
	}
	conf = (struct vf_port_conf){
		.nb_rxq = ses->nb_rxq, .nb_txq = ses->nb_txq,
		.nb_rxd = ses->nb_rxd, .nb_txd = ses->nb_txd, .pool = ses->fwd.pool,
	};
	ret = vf_port_configure(p, &conf);
	if (ret == 0)
		ret = vf_port_start(p);
	if (ret) {
		snprintf(err, errlen, "port %u (%s): cannot %s: %s", id, p->spec,
			 p->configured ? "start" : "configure", strerror(-ret));
		vf_port_close(p);
		return -1;
	}
	return id;
}

int vf_session_replay_check(const struct vf_session *ses, char *err, size_t errlen)
{
	unsigned int n = 0;

	if (!ses->fwd.replay_split)
		return 0;
	for (uint16_t p = 0; p < vf_port_count(); p++)
		n += vf_port_get(p) != NULL;
	if (n % 2) {
		snprintf(err, errlen, "--split %s sends the two sides of the capture on the two ports of "
			 "a pair: %u port%s, give an even number", vf_pcap_split_mode_name(ses->split), n,
			 n == 1 ? "" : "s");
		return -1;
	}
	return 0;
}

int vf_session_traffic_check(struct vf_session *ses, char *err, size_t errlen)
{
	unsigned int max = vf_mix_max(&ses->fwd.txpkts), room;

	if (ses->fwd.pool) {
		room = rte_pktmbuf_data_room_size(ses->fwd.pool) - RTE_PKTMBUF_HEADROOM;
		if (vf_frames_segs(max, room) > VF_CHAIN_MAX_SEGS) {
			snprintf(err, errlen, "--txpkts %u takes more than %u mbufs of %u bytes",
				 max, VF_CHAIN_MAX_SEGS, room);
			return -1;
		}
	}
	if (vf_session_replay_check(ses, err, errlen))
		return -1;
	return vf_fwd_flows_resolve(&ses->fwd, err, errlen);
}

int vf_session_fwd_start(struct vf_session *ses, unsigned int tx_first_bursts)
{
	uint16_t nq = ses->nb_rxq > ses->nb_txq ? ses->nb_rxq : ses->nb_txq;
	char err[256];
	int ret;

	if (vf_fwd_running())
		return -EALREADY;
	if (vf_session_traffic_check(ses, err, sizeof(err))) {
		VF_ERR("%s", err);
		return -EINVAL;
	}
	ses->fwd.nb_cores = ses->nb_cores;
	ret = vf_fwd_setup(&ses->fwd, nq);
	if (ret)
		return ret;
	ses->prev_time = vf_now_s();
	memset(ses->prev_st, 0, sizeof(ses->prev_st));
	for (uint16_t p = 0; p < vf_port_count(); p++)
		if (vf_port_get(p))
			vf_port_stats(vf_port_get(p), &ses->prev_st[p]);
	return vf_fwd_start(tx_first_bursts);
}

int vf_session_warmup(struct vf_session *ses, double sec, uint64_t rate)
{
	uint64_t saved_rate = ses->fwd.rate_pps, saved_count = ses->fwd.count;
	double end;
	int ret;

	ses->fwd.rate_pps = rate;
	ses->fwd.count = 0;
	ret = vf_session_fwd_start(ses, 0);
	if (!ret) {
		end = vf_now_s() + sec;
		while (!vf_session_signalled()) {
			double left = end - vf_now_s();
			if (left <= 0)
				break;
			if (left > 0.05)
				left = 0.05;
			nanosleep(&(struct timespec){ 0, (long)(left * 1e9) }, NULL);
		}
		vf_fwd_stop();
		vf_fwd_stats_clear();
		vf_meas_clear();
		for (uint16_t p = 0; p < vf_port_count(); p++)
			if (vf_port_get(p)) {
				vf_port_stats_reset(vf_port_get(p));
				vf_port_xstats_reset(vf_port_get(p));
			}
		if (vf_session_signalled())
			ret = -EINTR;
	}
	ses->fwd.rate_pps = saved_rate;
	ses->fwd.count = saved_count;
	return ret;
}

/* ---- the Prometheus writer ---- */

static pthread_t prom_thread;
static volatile bool prom_stop, prom_on;

static void *prom_main(void *arg)
{
	struct vf_session *ses = arg;
	double p = ses->stats_period > 0 ? ses->stats_period : 1.0;
	bool warned = false;

	while (!prom_stop) {
		int ret;

		vf_session_lock();
		ret = vf_prom_write(ses->prom_file, ses->tool);
		vf_session_unlock();
		if (ret && !warned) {
			fprintf(stderr, "%s: cannot write --prom-file '%s': %s\n", ses->tool,
				ses->prom_file, strerror(-ret));
			warned = true;
		}
		/* sleep in short steps: stop does not wait a whole period */
		for (double slept = 0; slept < p && !prom_stop; slept += 0.05)
			nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
	}
	return NULL;
}

void vf_session_prom_start(struct vf_session *ses)
{
	if (!ses->prom_file[0] || prom_on)
		return;
	prom_stop = false;
	if (pthread_create(&prom_thread, NULL, prom_main, ses) == 0)
		prom_on = true;
}

void vf_session_prom_stop(struct vf_session *ses)
{
	int ret;

	if (!ses->prom_file[0])
		return;
	if (prom_on) {
		prom_stop = true;
		pthread_join(prom_thread, NULL);
		prom_on = false;
	}
	ret = vf_prom_write(ses->prom_file, ses->tool);
	if (ret)
		fprintf(stderr, "%s: cannot write --prom-file '%s': %s\n", ses->tool,
			ses->prom_file, strerror(-ret));
}
