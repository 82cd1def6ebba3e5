/* --search: the common frame of both methods.  Waits for the links, warms
 * up, runs the method's trials, then latency trials at the minimal load
 * and at 10, 50 and 90 % of the load the method names, and prints one
 * result document.  Control logic only: every trial goes through the
 * engine's public calls (trial.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "methods.h"
#include "vf_search.h"
#include "vf_log.h"
#include "vf_out.h"
#include "vf_rate.h"
#include "vf_runtime.h"

static const struct {
	const char *name, *phase;
	double frac;
} loads[] = {
	{ "min", "lat min", 0 }, { "10%", "lat 10%", 0.1 }, { "50%", "lat 50%", 0.5 },
	{ "90%", "lat 90%", 0.9 },
};

/* Every trial sent and none got a frame back: no device forwards to us,
 * and an NDR of 0 would only hide that. */
static bool nothing_back(const struct vf_search *s)
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

static void latency_table(struct vf_out *o, const struct vf_search_trial *const lat[4],
			  double frame)
{
	vf_out_arr_begin(o, "latency");
	vf_out_title(o, "latency (us)   %12s %13s %13s %9s %9s %9s %9s %9s %9s %9s %9s", "rate pps",
		     "L2 Mbit/s", "L1 Mbit/s", "loss%",
		     "min", "avg", "p50", "p90", "p99", "p99.9", "max");
	for (unsigned int i = 0; i < 4; i++) {
		const struct vf_search_trial *l = lat[i];
		if (!l)
			continue;
		vf_out_obj_begin(o, NULL);
		vf_out_title(o, "  at %-9s %12llu %13.3f %13.3f %9.4f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f",
			     loads[i].name, (unsigned long long)l->load,
			     vf_rate_l2_bps(l->load, frame) / 1e6, vf_rate_l1_bps(l->load, frame) / 1e6,
			     l->loss * 100, l->lat.min,
			     l->lat.avg, l->lat.p50, l->lat.p90, l->lat.p99, l->lat.p999, l->lat.max);
		if (vf_out_is_json(o)) {
			vf_out_str(o, "load", loads[i].name);
			vf_out_u64(o, "rate_pps", (uint64_t)l->load);
			vf_out_dbl(o, "l2_bps", vf_rate_l2_bps(l->load, frame));
			vf_out_dbl(o, "l1_bps", vf_rate_l1_bps(l->load, frame));
			vf_out_dbl(o, "tx_pps", l->offered);
			vf_out_dbl(o, "loss_ratio", l->loss);
			vf_out_bool(o, "tester_limited", l->limited);
			vf_meas_lat_json(o, "latency_us", &l->lat);
		}
		vf_out_obj_end(o);
	}
	vf_out_arr_end(o);
}

static double traffic_s(const struct vf_search *s)
{
	double sum = 0;

	for (unsigned int i = 0; i < s->n; i++)
		sum += s->t[i].effective;
	return sum;
}

int vf_search_run(struct vf_session *ses)
{
	return vf__search_once(ses, true, NULL, NULL);
}

int vf__search_once(struct vf_session *ses, bool final, const char *label,
		    struct vf_search_summary *sum)
{
	static struct vf_search s;
	const struct vf_search_cfg *c = &ses->search;
	const struct vf_search_trial *lat[4] = { NULL };
	struct vf_out *o;
	double base;

	memset(&s, 0, sizeof(s));
	if (sum)
		memset(sum, 0, sizeof(*sum));
	s.ses = ses;
	s.label = label;
	s.start = vf_now_s();
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
	base = c->bisect ? vf_search_bisect_run(&s) : vf_search_mlr_run(&s);
	if (base < 0)
		return 1;
	for (unsigned int i = 0; i < 4 && base > 0; i++) {
		double r = loads[i].frac ? (double)(uint64_t)(base * loads[i].frac)
					 : (double)c->min_rate;
		lat[i] = vf_search_trial(&s, r < 1 ? 1 : r, c->trial, loads[i].phase);
		if (!lat[i])
			break;
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
	vf_out_title(o, "%s throughput search: %s, %u trials, %.1f s of traffic in %.1f s",
		     ses->tool, c->bisect ? "RFC 2544 bisection" : "MLRsearch (RFC 9971)", s.n,
		     traffic_s(&s), vf_now_s() - s.start);
	if (vf_out_is_json(o)) {
		vf_out_str(o, "tool", ses->tool);
		vf_out_bool(o, "final", final);
		if (label)
			vf_out_str(o, "txpkts", label);
	}
	vf_out_obj_begin(o, vf_out_is_json(o) ? "search" : NULL);
	if (vf_out_is_json(o)) {
		vf_out_str(o, "method", c->bisect ? "bisect" : "mlrsearch");
		vf_out_u64(o, "trials", s.n);
		vf_out_dbl(o, "traffic_s", traffic_s(&s));
		vf_out_dbl(o, "elapsed", vf_now_s() - s.start);
		vf_out_dbl(o, "frame", vf_session_frame_len(ses));	/* a mix's mean */
		vf_out_u64(o, "fcs_bytes_in_l2", VF_RATE_FCS);
		vf_out_u64(o, "min_rate", c->min_rate);
		vf_out_dbl(o, "tester_limit_pps", s.tester_limit);
		vf_out_bool(o, "interrupted", s.aborted);
	}
	if (c->bisect)
		vf_search_bisect_report(&s, o);
	else
		vf_search_mlr_report(&s, o);
	latency_table(o, lat, vf_session_frame_len(ses));
	vf_out_obj_end(o);
	vf_out_obj_end(o);
	vf_session_emit(ses, o);
	vf_out_free(o);
	if (ses->hist_file[0] && vf_meas_write_hist_file(ses->hist_file))
		VF_ERR("cannot write --hist-file '%s'", ses->hist_file);
	if (sum) {
		if (c->bisect)
			vf_search_bisect_summary(&s, sum);
		else
			vf_search_mlr_summary(&s, sum);
		sum->tester_limit = s.tester_limit;
		sum->trials = s.n;
		sum->traffic_s = traffic_s(&s);
		sum->aborted = s.aborted;
		sum->has_lat90 = lat[3] != NULL;
		if (lat[3])
			sum->lat90 = lat[3]->lat;
	}
	return s.aborted ? 1 : 0;
}
