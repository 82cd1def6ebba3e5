/* --search: the RFC 2544 throughput search as FD.io CSIT runs it (NDR: the
 * highest rate with no loss; PDR: the highest with a loss ratio at most
 * --pdr-loss), by bisection over trials of the measure mode, each checked
 * once more at the end, then latency at 10, 50 and 90 % of PDR and at the
 * minimal load.  Control logic only: every trial goes through the engine's
 * public calls (set rate, start, stop with drain, read the figures). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vf_search.h"
#include "vf_log.h"

#define MAX_TRIALS 256
#define VERIFY_TRIES 3

struct trial {
	uint64_t rate;		/* asked, pps; 0: unthrottled */
	uint64_t sent, received, lost;
	double loss, tx_pps;
	struct vf_meas_lat lat;
};

struct search {
	struct vf_session *ses;
	unsigned int n;
	struct trial t[MAX_TRIALS];
	double start;
	bool aborted;
};

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(struct search *s, double sec)
{
	double end = mono() + sec;

	while (!vf_session_signalled()) {
		double left = end - mono();
		if (left <= 0)
			return;
		if (left > 0.05)
			left = 0.05;
		nanosleep(&(struct timespec){ 0, (long)(left * 1e9) }, NULL);
	}
	s->aborted = true;
}

static void progress(struct search *s, const char *phase, const struct trial *t)
{
	struct vf_session *ses = s->ses;

	if (ses->json) {
		struct vf_out *o = vf_out_new(true);
		if (!o)
			return;
		vf_out_obj_begin(o, NULL);
		vf_out_str(o, "tool", ses->tool);
		vf_out_u64(o, "trial", s->n);
		vf_out_str(o, "phase", phase);
		vf_out_u64(o, "rate_pps", t->rate);
		vf_out_dbl(o, "tx_pps", t->tx_pps);
		vf_out_u64(o, "sent", t->sent);
		vf_out_u64(o, "received", t->received);
		vf_out_u64(o, "lost", t->lost);
		vf_out_dbl(o, "loss_ratio", t->loss);
		vf_out_obj_end(o);
		vf_session_emit(ses, o);
		vf_out_free(o);
	} else {
		char rate[32];
		if (t->rate)
			snprintf(rate, sizeof(rate), "%10.4f Mpps", (double)t->rate / 1e6);
		else
			snprintf(rate, sizeof(rate), "%15s", "unthrottled");
		fprintf(stderr, "trial %3u %-7s %s: sent %12llu received %12llu lost %10llu (%.4f%%)\n",
			s->n, phase, rate, (unsigned long long)t->sent,
			(unsigned long long)t->received, (unsigned long long)t->lost, t->loss * 100);
	}
}

/* One trial at rate (0: unthrottled).  Returns NULL when interrupted or
 * when forwarding cannot start. */
static const struct trial *trial(struct search *s, uint64_t rate, const char *phase)
{
	struct vf_session *ses = s->ses;
	static struct vf_meas_stream all;
	struct trial *t;
	int ret;

	if (s->aborted || s->n == MAX_TRIALS)
		return NULL;
	ses->fwd.rate_pps = rate;
	ret = vf_session_fwd_start(ses, 0);
	if (ret) {
		VF_ERR("cannot start a trial: %s", strerror(-ret));
		s->aborted = true;
		return NULL;
	}
	sleep_s(s, ses->search.trial);
	vf_fwd_stop();
	if (s->aborted)
		return NULL;
	vf_meas_sum(&all);
	t = &s->t[s->n++];
	t->rate = rate;
	t->sent = all.sent;
	t->received = all.unique;
	t->lost = all.lost;
	t->loss = all.loss_ratio;
	t->tx_pps = vf_fwd_elapsed() > 0 ? (double)all.sent / vf_fwd_elapsed() : 0;
	vf_meas_latency(&all, &t->lat);
	progress(s, phase, t);
	return t;
}

/* Bisection for the highest rate whose loss is at most max_loss, between
 * what the trials so far proved. */
static uint64_t find(struct search *s, double max_loss, uint64_t min, uint64_t max,
		     const char *phase)
{
	double prec = s->ses->search.precision;
	uint64_t lo = 0, hi = UINT64_MAX;
	const struct trial *t;

	for (unsigned int i = 0; i < s->n; i++) {
		uint64_t r = s->t[i].rate;
		if (!r)
			continue;
		if (s->t[i].loss <= max_loss && r > lo)
			lo = r;
		if (s->t[i].loss > max_loss && r < hi)
			hi = r;
	}
	if (lo >= max)
		return max;
	if (hi == UINT64_MAX) {
		t = trial(s, max, phase);
		if (!t)
			return 0;
		if (t->loss <= max_loss)
			return max;
		hi = max;
	}
	if (lo == 0) {
		t = trial(s, min, phase);
		if (!t || t->loss > max_loss)
			return 0;	/* even the lowest rate loses */
		lo = min;
	}
	while (!s->aborted && (double)(hi - lo) > prec * (double)hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		t = trial(s, mid, phase);
		if (!t)
			break;
		if (t->loss <= max_loss)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* A final trial at the found rate; a failure steps down by the precision. */
static uint64_t verify(struct search *s, uint64_t rate, double max_loss, const char *phase,
		       bool *ok, double *loss)
{
	uint64_t tried = rate;

	*ok = false;
	*loss = 0;
	for (int i = 0; i < VERIFY_TRIES && rate && !s->aborted; i++) {
		const struct trial *t = trial(s, rate, phase);
		if (!t)
			break;
		tried = rate;
		*loss = t->loss;
		if (t->loss <= max_loss) {
			*ok = true;
			return rate;
		}
		rate = (uint64_t)((double)rate * (1 - s->ses->search.precision));
	}
	return tried;	/* the last rate tried, reported as not verified */
}

static void rate_obj(struct vf_out *o, const char *key, const char *title, uint64_t rate,
		     bool ok, double loss, uint16_t frame)
{
	/* text: the title line alone, no "ndr:" heading */
	vf_out_obj_begin(o, vf_out_is_json(o) ? key : NULL);
	vf_out_title(o, "%-4s %10.4f Mpps  %8.3f Gbit/s (%u-byte frames)  loss %.4f%%  %s",
		     title, (double)rate / 1e6, (double)rate * frame * 8 / 1e9, frame, loss * 100,
		     ok ? "verified" : "NOT verified");
	if (vf_out_is_json(o)) {
		vf_out_u64(o, "rate_pps", rate);
		vf_out_dbl(o, "bps", (double)rate * frame * 8);
		vf_out_dbl(o, "loss_ratio", loss);
		vf_out_bool(o, "verified", ok);
	}
	vf_out_obj_end(o);
}

/* Every trial sent and none got a frame back: no device forwards to us,
 * and an NDR of 0 would only hide that. */
static bool nothing_back(const struct search *s)
{
	uint64_t sent = 0;

	for (unsigned int i = 0; i < s->n; i++) {
		if (s->t[i].received)
			return false;
		sent += s->t[i].sent;
	}
	if (!sent)
		return false;
	fprintf(stderr, "%s: search: %u trials sent %llu frames, none came back: "
		"is the device forwarding to us?\n", s->ses->tool, s->n, (unsigned long long)sent);
	return true;
}

int vf_search_run(struct vf_session *ses)
{
	static struct search s;
	const struct vf_search_cfg *c = &ses->search;
	uint64_t max, ndr, pdr;
	bool ndr_ok = false, pdr_ok = false;
	double ndr_loss = 0, pdr_loss = 0;
	static const struct { const char *name; double frac; } loads[] = {
		{ "min", 0 }, { "10%", 0.1 }, { "50%", 0.5 }, { "90%", 0.9 },
	};
	struct trial lat[4];
	bool lat_ok[4] = { false };
	const struct trial *t;
	struct vf_out *o;
	/* measure pads shorter frames to hold the stamp */
	uint16_t frame = ses->fwd.txpkts < 64 ? 64 : ses->fwd.txpkts;

	memset(&s, 0, sizeof(s));
	s.ses = ses;
	s.start = mono();
	if (!vf_session_wait_links(10)) {
		VF_ERR("search: not every port's link came up in 10 s");
		return 1;
	}
	if (ses->warmup > 0) {
		int ret = vf_session_warmup(ses, ses->warmup, c->max_rate);
		if (ret) {
			if (ret != -EINTR)
				VF_ERR("search: cannot start the warm-up: %s", strerror(-ret));
			return 1;
		}
	}
	/* The ceiling: given, or what the ports take unthrottled. */
	if (c->max_rate) {
		max = c->max_rate;
	} else {
		t = trial(&s, 0, "max");
		if (!t)
			return 1;
		max = (uint64_t)t->tx_pps;
		if (max <= c->min_rate) {
			VF_ERR("search: the ports take %llu pps unthrottled, not above --min-rate %llu",
			       (unsigned long long)max, (unsigned long long)c->min_rate);
			return 1;
		}
		/* That trial ran unthrottled: record it at the rate it reached. */
		s.t[s.n - 1].rate = max;
	}
	ndr = find(&s, 0, c->min_rate, max, "ndr");
	pdr = find(&s, c->pdr_loss, ndr > c->min_rate ? ndr : c->min_rate, max, "pdr");
	if (pdr < ndr)
		pdr = ndr;
	ndr = verify(&s, ndr, 0, "ndr-chk", &ndr_ok, &ndr_loss);
	pdr = verify(&s, pdr, c->pdr_loss, "pdr-chk", &pdr_ok, &pdr_loss);
	for (unsigned int i = 0; i < 4 && pdr; i++) {
		uint64_t r = loads[i].frac ? (uint64_t)((double)pdr * loads[i].frac) : c->min_rate;
		if (!r)
			r = 1;
		t = trial(&s, r, loads[i].name);
		if (!t)
			break;
		lat[i] = *t;
		lat_ok[i] = true;
	}
	if (nothing_back(&s))
		return 1;
	if (s.aborted)
		VF_WARN("search interrupted: the result below is what the trials so far found");
	ses->fwd.rate_pps = 0;

	o = vf_out_new(ses->json);
	if (!o)
		return 1;
	vf_out_obj_begin(o, NULL);
	vf_out_title(o, "%s throughput search: %u trials of %.2f s in %.1f s (RFC 2544; PDR loss <= %g%%)",
		     ses->tool, s.n, c->trial, mono() - s.start, c->pdr_loss * 100);
	if (vf_out_is_json(o)) {
		vf_out_str(o, "tool", ses->tool);
		vf_out_bool(o, "final", true);
	}
	vf_out_obj_begin(o, vf_out_is_json(o) ? "search" : NULL);
	if (vf_out_is_json(o)) {
		vf_out_u64(o, "trials", s.n);
		vf_out_dbl(o, "trial_s", c->trial);
		vf_out_dbl(o, "elapsed", mono() - s.start);
		vf_out_u64(o, "frame", frame);
		vf_out_dbl(o, "pdr_loss", c->pdr_loss);
		vf_out_dbl(o, "precision", c->precision);
		vf_out_u64(o, "min_rate", c->min_rate);
		vf_out_u64(o, "max_rate", max);
		vf_out_bool(o, "interrupted", s.aborted);
	}
	rate_obj(o, "ndr", "NDR", ndr, ndr_ok, ndr_loss, frame);
	rate_obj(o, "pdr", "PDR", pdr, pdr_ok, pdr_loss, frame);
	vf_out_arr_begin(o, "latency");
	vf_out_title(o, "latency (us)   %12s %9s %9s %9s %9s %9s %9s %9s %9s", "rate pps", "loss%",
		     "min", "avg", "p50", "p90", "p99", "p99.9", "max");
	for (unsigned int i = 0; i < 4; i++) {
		const struct trial *l = &lat[i];
		if (!lat_ok[i])
			continue;
		vf_out_obj_begin(o, NULL);
		vf_out_title(o, "  at %-9s %12llu %9.4f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f",
			     loads[i].name, (unsigned long long)l->rate, l->loss * 100, l->lat.min,
			     l->lat.avg, l->lat.p50, l->lat.p90, l->lat.p99, l->lat.p999, l->lat.max);
		if (vf_out_is_json(o)) {
			vf_out_str(o, "load", loads[i].name);
			vf_out_u64(o, "rate_pps", l->rate);
			vf_out_dbl(o, "loss_ratio", l->loss);
			vf_out_obj_begin(o, "latency_us");
			vf_out_dbl(o, "min", l->lat.min);
			vf_out_dbl(o, "avg", l->lat.avg);
			vf_out_dbl(o, "p50", l->lat.p50);
			vf_out_dbl(o, "p90", l->lat.p90);
			vf_out_dbl(o, "p99", l->lat.p99);
			vf_out_dbl(o, "p99_9", l->lat.p999);
			vf_out_dbl(o, "max", l->lat.max);
			vf_out_dbl(o, "jitter", l->lat.jitter);
			vf_out_obj_end(o);
		}
		vf_out_obj_end(o);
	}
	vf_out_arr_end(o);
	vf_out_obj_end(o);
	vf_out_obj_end(o);
	vf_session_emit(ses, o);
	vf_out_free(o);
	if (ses->hist_file[0] && vf_meas_write_hist_file(ses->hist_file))
		VF_ERR("cannot write --hist-file '%s'", ses->hist_file);
	return s.aborted ? 1 : 0;
}
