/* --search-method bisect: the RFC 2544 throughput search as it was before
 * MLRsearch (NDR: the highest rate with no loss; PDR: the highest with a
 * loss ratio at most --pdr-loss), by bisection over trials of --trial seconds,
 * each result checked once more at the end.  A tester-limited trial
 * counts as a failure, never as the device's success. */
#include <stdio.h>
#include <string.h>

#include "methods.h"
#include "vf_log.h"
#include "vf_out.h"
#include "vf_rate.h"

#define VERIFY_TRIES 3

static struct {
	uint64_t max, ndr, pdr;
	bool ndr_ok, pdr_ok;
	double ndr_loss, pdr_loss;
} b;

static bool passes(const struct vf_search_trial *t, double max_loss)
{
	return !t->limited && t->loss <= max_loss;
}

static const struct vf_search_trial *trial(struct vf_search *s, uint64_t rate, const char *phase)
{
	return vf_search_trial(s, (double)rate, s->ses->search.trial, phase);
}

/* Bisection for the highest rate that passes, between what the trials so
 * far proved. */
static uint64_t find(struct vf_search *s, double max_loss, uint64_t min, uint64_t max,
		     const char *phase)
{
	double prec = s->ses->search.precision;
	uint64_t lo = 0, hi = UINT64_MAX;
	const struct vf_search_trial *t;

	for (unsigned int i = 0; i < s->n; i++) {
		uint64_t r = (uint64_t)s->t[i].load;
		if (!r || s->t[i].repeated)	/* a tester's accident, tried again */
			continue;
		if (passes(&s->t[i], max_loss) && r > lo)
			lo = r;
		if (!passes(&s->t[i], max_loss) && r < hi)
			hi = r;
	}
	if (lo >= max)
		return max;
	if (hi == UINT64_MAX) {
		t = trial(s, max, phase);
		if (!t)
			return 0;
		if (passes(t, max_loss))
			return max;
		hi = max;
	}
	if (lo == 0) {
		t = trial(s, min, phase);
		if (!t || !passes(t, max_loss))
			return 0;	/* even the lowest rate fails */
		lo = min;
	}
	while (!s->aborted && (double)(hi - lo) > prec * (double)hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		t = trial(s, mid, phase);
		if (!t)
			break;
		if (passes(t, max_loss))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* A final trial at the found rate; a failure steps down by the precision. */
static uint64_t verify(struct vf_search *s, uint64_t rate, double max_loss, const char *phase,
		       bool *ok, double *loss)
{
	uint64_t tried = rate;

	*ok = false;
	*loss = 0;
	for (int i = 0; i < VERIFY_TRIES && rate && !s->aborted; i++) {
		const struct vf_search_trial *t = trial(s, rate, phase);
		if (!t)
			break;
		tried = rate;
		*loss = t->loss;
		if (passes(t, max_loss)) {
			*ok = true;
			return rate;
		}
		rate = (uint64_t)((double)rate * (1 - s->ses->search.precision));
	}
	return tried;	/* the last rate tried, reported as not verified */
}

double vf_search_bisect_run(struct vf_search *s)
{
	const struct vf_search_cfg *c = &s->ses->search;
	const struct vf_search_trial *t;

	memset(&b, 0, sizeof(b));
	/* The ceiling: given, or what the ports take unthrottled. */
	t = trial(s, 0, "max");
	if (!t)
		return -1;
	s->tester_limit = t->offered;
	if (c->max_rate) {
		b.max = c->max_rate;
	} else {
		b.max = (uint64_t)t->offered;
		if (b.max <= c->min_rate) {
			VF_ERR("search: the ports take %llu pps unthrottled, not above --min-rate %llu",
			       (unsigned long long)b.max, (unsigned long long)c->min_rate);
			return -1;
		}
		/* That trial ran unthrottled: record it at the rate it reached. */
		s->t[s->n - 1].load = (double)b.max;
	}
	b.ndr = find(s, 0, c->min_rate, b.max, "ndr");
	b.pdr = find(s, c->pdr_loss, b.ndr > c->min_rate ? b.ndr : c->min_rate, b.max, "pdr");
	if (b.pdr < b.ndr)
		b.pdr = b.ndr;
	b.ndr = verify(s, b.ndr, 0, "ndr-chk", &b.ndr_ok, &b.ndr_loss);
	b.pdr = verify(s, b.pdr, c->pdr_loss, "pdr-chk", &b.pdr_ok, &b.pdr_loss);
	if (b.pdr < b.ndr && b.ndr_ok) {
		/* A noisy pdr-chk stepped below a rate that passed with no
		 * loss at all, which meets the PDR's loss too. */
		b.pdr = b.ndr;
		b.pdr_ok = true;
		b.pdr_loss = b.ndr_loss;
	}
	return (double)b.pdr;
}

static void rate_obj(struct vf_out *o, const char *key, const char *title, uint64_t rate,
		     bool ok, double loss, double frame, const char *frames)
{
	/* text: the title line alone, no "ndr:" heading */
	vf_out_obj_begin(o, vf_out_is_json(o) ? key : NULL);
	vf_out_title(o, "%-4s %10.4f Mpps  %8.3f Gbit/s L2  %8.3f Gbit/s L1 (%s frames)  "
		     "loss %.4f%%  %s", title, (double)rate / 1e6,
		     vf_rate_l2_bps((double)rate, frame) / 1e9,
		     vf_rate_l1_bps((double)rate, frame) / 1e9, frames, loss * 100,
		     ok ? "verified" : "NOT verified");
	if (vf_out_is_json(o)) {
		vf_out_u64(o, "rate_pps", rate);
		vf_out_dbl(o, "bps", (double)rate * frame * 8);	/* without FCS, as before */
		vf_out_dbl(o, "l2_bps", vf_rate_l2_bps((double)rate, frame));
		vf_out_dbl(o, "l1_bps", vf_rate_l1_bps((double)rate, frame));
		vf_out_dbl(o, "loss_ratio", loss);
		vf_out_bool(o, "verified", ok);
	}
	vf_out_obj_end(o);
}

void vf_search_bisect_report(struct vf_search *s, struct vf_out *o)
{
	const struct vf_search_cfg *c = &s->ses->search;
	double frame = vf_session_frame_len(s->ses);
	char frames[192];

	vf_session_frames_describe(s->ses, frames, sizeof(frames));

	if (vf_out_is_json(o)) {
		vf_out_dbl(o, "trial_s", c->trial);
		vf_out_dbl(o, "pdr_loss", c->pdr_loss);
		vf_out_dbl(o, "precision", c->precision);
		vf_out_u64(o, "max_rate", b.max);
	}
	rate_obj(o, "ndr", "NDR", b.ndr, b.ndr_ok, b.ndr_loss, frame, frames);
	rate_obj(o, "pdr", "PDR", b.pdr, b.pdr_ok, b.pdr_loss, frame, frames);
}

void vf_search_bisect_summary(const struct vf_search *s, struct vf_search_summary *sum)
{
	double limit = s->tester_limit * (1 - VF_SEARCH_LOAD_TOLERANCE);

	sum->ngoals = 2;
	snprintf(sum->g[0].name, sizeof(sum->g[0].name), "NDR");
	snprintf(sum->g[1].name, sizeof(sum->g[1].name), "PDR");
	sum->g[0].pps = (double)b.ndr;
	sum->g[1].pps = (double)b.pdr;
	sum->g[0].found = b.ndr > 0;
	sum->g[1].found = b.pdr > 0;
	sum->g[0].regular = b.ndr_ok;
	sum->g[1].regular = b.pdr_ok;
	sum->g[0].tester_limited = s->tester_limit > 0 && (double)b.ndr >= limit;
	sum->g[1].tester_limited = s->tester_limit > 0 && (double)b.pdr >= limit;
}
