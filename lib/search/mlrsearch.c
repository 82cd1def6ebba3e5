/* The default --search: MLRsearch (RFC 9971) over the search goals.
 *
 * First the tester's own limit: one unthrottled trial, whose offered load
 * is what nullgen can put on these ports (its own speed, or the ports'
 * back-pressure).  That is the Max Load unless --max-rate names one.
 * Then the Controller (mlr.c) picks loads and durations and the trials
 * run until every goal is decided.  A trial whose ports took less than
 * the load asked is tester-limited: high-loss for every goal.  A goal
 * whose Lower Bound is the Max Load, or is at the tester's limit, or whose
 * Upper Bound rests on tester-limited trials, is reported as "at least
 * X: the tester's limit", never as the device's figure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "methods.h"
#include "vf_search_goals.h"
#include "vf_log.h"
#include "vf_out.h"
#include "vf_rate.h"

static struct {
	struct vf_mlr_goal g[VF_SEARCH_MAX_GOALS];
	struct vf_search_goal_name names[VF_SEARCH_MAX_GOALS];
	int ngoals;
	struct vf_mlr m;
	double max_load;
	bool max_given;
	struct vf_mlr_result r[VF_SEARCH_MAX_GOALS];
	bool tester[VF_SEARCH_MAX_GOALS];	/* tester-limited result */
} st;

static void add(const struct vf_search_trial *t, double load)
{
	struct vf_mlr_trial mt = {
		.load = load,
		.duration_s = t->duration,
		.effective_s = t->effective,
		.offered = t->offered,
		.accepted = t->effective > 0 ? (double)t->received / t->effective : 0,
		.sent = t->sent + t->refused,	/* the intended count */
		.lost = t->lost,
		.loss_ratio = t->loss,
		.limited = t->limited,
	};

	if (vf_mlr_add(&st.m, &mt))
		VF_ERR("search: out of memory for trial results");
}

/* The goal the latency trials are taken at: the largest loss ratio (PDR
 * by default), the later one on a tie; -1 if none has a load to give. */
static int latency_goal(void)
{
	int best = -1;

	for (int i = 0; i < st.ngoals; i++)
		if (st.r[i].has_lower &&
		    (best < 0 || st.g[i].loss_ratio >= st.g[best].loss_ratio))
			best = i;
	return best;
}

double vf_search_mlr_run(struct vf_search *s)
{
	const struct vf_search_cfg *c = &s->ses->search;
	const struct vf_search_trial *t;
	double shortest = INFINITY, load, dur;
	char err[256];
	size_t goal;

	vf_mlr_fini(&st.m);
	memset(&st, 0, sizeof(st));
	st.ngoals = vf_search_goals(c, st.g, st.names, err, sizeof(err));
	if (st.ngoals < 0) {
		VF_ERR("search: %s", err);
		return -1;
	}
	for (int i = 0; i < st.ngoals; i++)
		shortest = fmin(shortest, st.g[i].final_trial_s);

	t = vf_search_trial(s, 0, shortest, "limit");
	if (!t)
		return -1;
	s->tester_limit = t->offered;
	st.max_given = c->max_rate != 0;
	st.max_load = st.max_given ? (double)c->max_rate : t->offered;
	if (st.max_load <= (double)c->min_rate) {
		VF_ERR("search: the ports take %.0f pps unthrottled, not above --min-rate %llu",
		       st.max_load, (unsigned long long)c->min_rate);
		return -1;
	}
	if (st.max_given && st.max_load > t->offered * (1 + VF_SEARCH_LOAD_TOLERANCE))
		VF_WARN("search: --max-rate %.0f pps is above what the ports took unthrottled "
			"(%.0f pps): trials above that are tester-limited", st.max_load, t->offered);
	if (vf_mlr_init(&st.m, st.g, (size_t)st.ngoals, (double)c->min_rate, st.max_load)) {
		VF_ERR("search: bad goals or loads");
		return -1;
	}
	/* The unthrottled trial offered exactly its own load: a trial at the
	 * max load when that is where the max comes from. */
	if (!st.max_given)
		add(t, st.max_load);
	while (vf_mlr_next_goal(&st.m, &load, &dur, &goal)) {
		t = vf_search_trial(s, load, dur, st.g[goal].name);
		if (!t)
			break;
		add(t, load);
	}
	for (int i = 0; i < st.ngoals; i++) {
		struct vf_mlr_result *r = &st.r[i];
		double w = fmax(2 * st.g[i].width, VF_SEARCH_LOAD_TOLERANCE);
		vf_mlr_result(&st.m, (size_t)i, r);
		st.tester[i] = (r->flags & VF_MLR_F_LIMITED) ||
			       ((r->flags & VF_MLR_F_MAX_IS_LOWER) && !st.max_given) ||
			       (r->has_lower && s->tester_limit > 0 &&
				r->lower >= s->tester_limit * (1 - w));
	}
	int lg = latency_goal();
	return lg < 0 ? 0 : st.r[lg].lower;
}

/* Why a result is irregular, comma-separated ("" when regular). */
static void reasons(int i, bool aborted, char *buf, size_t len)
{
	const struct vf_mlr_result *r = &st.r[i];
	static const struct {
		unsigned int flag;
		const char *what;
	} f[] = {
		{ VF_MLR_F_MAX_IS_LOWER, "max-load-is-lower-bound" },
		{ VF_MLR_F_MIN_IS_UPPER, "min-load-is-upper-bound" },
		{ VF_MLR_F_NO_UPPER, "no-upper-bound" },
		{ VF_MLR_F_NO_LOWER, "no-lower-bound" },
		{ VF_MLR_F_TOO_WIDE, "wider-than-goal" },
	};
	size_t at = 0;

	buf[0] = '\0';
	if (st.tester[i])
		at += (size_t)snprintf(buf + at, len - at, "tester-limited");
	for (size_t k = 0; k < sizeof(f) / sizeof(f[0]) && at < len; k++)
		if (r->flags & f[k].flag)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "", f[k].what);
	if (aborted && !r->regular && at < len)
		snprintf(buf + at, len - at, "%sinterrupted", at ? "," : "");
}

static void goal_line(struct vf_out *o, int i, double tester_limit, double frame,
		      const char *frames)
{
	const struct vf_mlr_goal *g = &st.g[i];
	const struct vf_mlr_result *r = &st.r[i];
	char how[96];

	snprintf(how, sizeof(how), "loss <= %g%%, exceed %g%%, %g s trials, %g s sum", g->loss_ratio * 100,
		 g->exceed_ratio * 100, g->final_trial_s, g->duration_sum_s);
	if (st.tester[i] && r->has_lower && (r->flags & VF_MLR_F_LIMITED) &&
	    r->lower < tester_limit * 0.9)
		vf_out_title(o, "%-8s at least %.4f Mpps: above it the ports did not take the load "
			     "asked (tester-limited trials), not the device's figure  [%s]", g->name,
			     r->lower / 1e6, how);
	else if (st.tester[i] && r->has_lower)
		vf_out_title(o, "%-8s at least %.4f Mpps: the tester's limit (%.4f Mpps unthrottled), "
			     "not the device's  [%s]", g->name, r->lower / 1e6, tester_limit / 1e6, how);
	else if (!r->has_lower)
		vf_out_title(o, "%-8s below %.4f Mpps: no load passed, not even the min load  [%s]",
			     g->name, (r->has_upper ? r->upper : st.m.min_load) / 1e6, how);
	else {
		char up[24] = "?";
		if (r->has_upper)
			snprintf(up, sizeof(up), "%.4f", r->upper / 1e6);
		vf_out_title(o, "%-8s %.4f Mpps  %.3f Gbit/s L2  %.3f Gbit/s L1 (%s frames)  "
			     "conditional throughput %.4f Mpps  bounds %.4f..%s Mpps  %s  [%s]", g->name,
			     r->lower / 1e6, vf_rate_l2_bps(r->lower, frame) / 1e9,
			     vf_rate_l1_bps(r->lower, frame) / 1e9, frames, r->throughput / 1e6, r->lower / 1e6,
			     up, r->regular ? "regular" : "IRREGULAR", how);
	}
}

void vf_search_mlr_report(struct vf_search *s, struct vf_out *o)
{
	double frame = vf_session_frame_len(s->ses);
	char why[160], frames[192];

	vf_session_frames_describe(s->ses, frames, sizeof(frames));

	vf_out_title(o, "tester   %.4f Mpps unthrottled on these ports (its limit here)%s",
		     s->tester_limit / 1e6, st.max_given ? "; max load from --max-rate" : "");
	if (vf_out_is_json(o)) {
		vf_out_dbl(o, "max_rate", st.max_load);
		vf_out_bool(o, "max_rate_given", st.max_given);
	}
	vf_out_arr_begin(o, "goals");
	for (int i = 0; i < st.ngoals; i++) {
		const struct vf_mlr_goal *g = &st.g[i];
		const struct vf_mlr_result *r = &st.r[i];
		vf_out_obj_begin(o, NULL);
		goal_line(o, i, s->tester_limit, frame, frames);
		if (vf_out_is_json(o)) {
			reasons(i, s->aborted, why, sizeof(why));
			vf_out_str(o, "name", g->name);
			vf_out_dbl(o, "loss_ratio", g->loss_ratio);
			vf_out_dbl(o, "exceed_ratio", g->exceed_ratio);
			vf_out_dbl(o, "final_trial_s", g->final_trial_s);
			vf_out_dbl(o, "duration_sum_s", g->duration_sum_s);
			vf_out_dbl(o, "width", g->width);
			vf_out_bool(o, "regular", r->regular && !st.tester[i]);
			vf_out_bool(o, "tester_limited", st.tester[i]);
			vf_out_str(o, "irregular", why);
			if (r->has_lower) {
				vf_out_dbl(o, "lower_pps", r->lower);
				vf_out_dbl(o, "bps", r->lower * frame * 8);	/* without FCS */
				vf_out_dbl(o, "l2_bps", vf_rate_l2_bps(r->lower, frame));
				vf_out_dbl(o, "l1_bps", vf_rate_l1_bps(r->lower, frame));
			}
			if (r->has_upper)
				vf_out_dbl(o, "upper_pps", r->upper);
			if (r->has_throughput)
				vf_out_dbl(o, "conditional_throughput_pps", r->throughput);
		}
		vf_out_obj_end(o);
	}
	vf_out_arr_end(o);
}

void vf_search_mlr_summary(const struct vf_search *s, struct vf_search_summary *sum)
{
	(void)s;
	sum->ngoals = (unsigned int)(st.ngoals > 0 ? st.ngoals : 0);
	for (unsigned int i = 0; i < sum->ngoals; i++) {
		snprintf(sum->g[i].name, sizeof(sum->g[i].name), "%s", st.g[i].name);
		sum->g[i].found = st.r[i].has_lower;
		sum->g[i].pps = st.r[i].has_lower ? st.r[i].lower : 0;
		sum->g[i].tester_limited = st.tester[i];
		sum->g[i].regular = st.r[i].regular && !st.tester[i];
	}
}
