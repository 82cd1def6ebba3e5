/* One trial of the search (RFC 9971's Measurer): forward in the measure
 * mode at a load for a duration, stop with the drain, read the figures,
 * and say whether the ports took the load that was asked. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "trial.h"
#include "vf_log.h"
#include "vf_out.h"
#include "vf_runtime.h"

const char *vf_search_fmt_rate(double pps, char *buf, size_t len)
{
	snprintf(buf, len, "%.4f Mpps", pps / 1e6);
	return buf;
}

/* Sleeps sec seconds in short steps; false when a signal ended it. */
static bool sleep_s(double sec)
{
	double end = vf_now_s() + sec;

	while (!vf_session_signalled()) {
		double left = end - vf_now_s();
		if (left <= 0)
			return true;
		if (left > 0.05)
			left = 0.05;
		nanosleep(&(struct timespec){ 0, (long)(left * 1e9) }, NULL);
	}
	return false;
}

static void row_json(struct vf_search *s, const struct vf_search_trial *t)
{
	struct vf_out *o = vf_out_new(true);

	if (!o)
		return;
	vf_out_obj_begin(o, NULL);
	vf_out_str(o, "tool", s->ses->tool);
	vf_out_u64(o, "trial", t->n);
	if (s->label)
		vf_out_str(o, "txpkts", s->label);
	vf_out_str(o, "phase", t->phase);
	vf_out_u64(o, "rate_pps", (uint64_t)t->load);
	vf_out_dbl(o, "duration_s", t->duration);
	vf_out_dbl(o, "effective_s", t->effective);
	vf_out_dbl(o, "tx_pps", t->offered);
	vf_out_u64(o, "sent", t->sent);
	vf_out_u64(o, "received", t->received);
	vf_out_u64(o, "lost", t->lost);
	vf_out_dbl(o, "loss_ratio", t->loss);
	vf_out_bool(o, "tester_limited", t->limited);
	vf_out_dbl(o, "stall_ms", t->stall * 1e3);
	vf_out_dbl(o, "blocked_ms", t->blocked * 1e3);
	vf_out_u64(o, "refused", t->refused);
	vf_out_bool(o, "repeated", t->repeated);
	vf_out_obj_end(o);
	vf_session_emit(s->ses, o);
	vf_out_free(o);
}

static void row_text(const struct vf_search_trial *t)
{
	char load[24];

	if (t->n == 1)
		fprintf(stderr, "trial %-9s %12s %12s %7s %13s %13s %11s %8s\n", "phase",
			"load Mpps", "offered Mpps", "time s", "sent", "received", "lost",
			"loss %");
	if (t->load > 0)
		snprintf(load, sizeof(load), "%12.4f", t->load / 1e6);
	else
		snprintf(load, sizeof(load), "%12s", "unthrottled");
	fprintf(stderr, "%5u %-9s %s %12.4f %7.2f %13llu %13llu %11llu %8.4f%s\n", t->n, t->phase,
		load, t->offered / 1e6, t->effective, (unsigned long long)t->sent,
		(unsigned long long)t->received, (unsigned long long)t->lost, t->loss * 100,
		t->limited ? "  tester-limited" : "");
	if (t->refused)
		fprintf(stderr, "      %llu frames of the load refused by the ports (ring full): "
			"counted lost\n", (unsigned long long)t->refused);
	if (t->repeated)
		fprintf(stderr, "      the sending core was away %.1f ms: trial repeated\n",
			t->stall * 1e3);
}

static struct vf_search_trial *one_trial(struct vf_search *s, double load, double duration,
				       const char *phase, bool last_try)
{
	struct vf_session *ses = s->ses;
	struct vf_meas_stream all;
	struct vf_search_trial *t;
	int ret;

	if (s->aborted || s->n == VF_SEARCH_MAX_TRIALS)
		return NULL;
	ses->fwd.rate_pps = (uint64_t)(load + 0.5);
	ret = vf_session_fwd_start(ses, 0);
	if (ret) {
		VF_ERR("cannot start a trial: %s", strerror(-ret));
		s->aborted = true;
		return NULL;
	}
	bool done = sleep_s(duration);
	vf_fwd_stop();
	ses->fwd.rate_pps = 0;
	if (!done) {
		s->aborted = true;
		return NULL;
	}
	vf_meas_sum(&all);
	t = &s->t[s->n++];
	memset(t, 0, sizeof(*t));
	t->n = s->n;
	t->phase = phase;
	t->load = load;
	t->duration = duration;
	t->effective = vf_fwd_elapsed();
	t->sent = all.sent;
	t->received = all.unique;
	t->lost = all.lost;
	t->loss = all.loss_ratio;
	t->offered = t->effective > 0 ? (double)all.sent / t->effective : 0;
	/* Short by more than the tolerance, and by more than two bursts per
	 * stream (the cores start a little after the clock does). */
	double want = load * t->effective;
	double slack = 2.0 * ses->fwd.burst * (vf_fwd_nb_streams() ? vf_fwd_nb_streams() : 1);
	double least = want * (1 - VF_SEARCH_LOAD_TOLERANCE) - slack;
	bool shortfall = load > 0 && (double)all.sent < least;

	t->stall = all.stall_s;
	t->blocked = all.blocked_s;
	/* A load the ports took unthrottled, sent short while a core was
	 * away: the tester's accident, tried again. */
	t->limited = shortfall;
	t->repeated = !last_try && shortfall && t->stall >= VF_SEARCH_STALL_S &&
		      load < s->tester_limit;
	if (shortfall && !t->repeated) {
		/* What the load owed while the ports' rings stayed full is the
		 * device's: it did not take the load.  Counted lost, over the
		 * intended count (RFC 9971's Trial Loss Ratio); the trial is
		 * the tester's limit only when it was short beyond that. */
		double refused = fmin(want - (double)all.sent, load * t->blocked);

		t->limited = (double)all.sent + refused < least;
		if (!t->limited) {
			t->refused = (uint64_t)(refused + 0.5);
			t->lost += t->refused;
			t->loss = (double)t->lost / (double)(t->sent + t->refused);
		}
	}
	vf_meas_latency(&all, &t->lat);
	if (ses->json)
		row_json(s, t);
	else
		row_text(t);
	return t;
}

const struct vf_search_trial *vf_search_trial(struct vf_search *s, double load,
					      double duration, const char *phase)
{
	struct vf_search_trial *t;

	for (int i = 0;; i++) {
		t = one_trial(s, load, duration, phase, i == VF_SEARCH_STALL_REPEATS);
		if (!t || !t->repeated)
			return t;
	}
}
