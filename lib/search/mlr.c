/* MLRsearch (RFC 9971): load classification, relevant bounds, conditional
 * throughput, goal results and a simple controller.  Pure arithmetic; see
 * vf_mlr.h for the terms and their RFC sections. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vf_mlr.h"

#define MAX_GOALS 16

/* Presets: sources in vf_mlr.h. */
const struct vf_mlr_goal vf_mlr_goal_ndr = {
	.name = "NDR", .final_trial_s = 1.0, .duration_sum_s = 21.0,
	.loss_ratio = 0.0, .exceed_ratio = 0.5, .width = 0.005,
};
const struct vf_mlr_goal vf_mlr_goal_pdr = {
	.name = "PDR", .final_trial_s = 1.0, .duration_sum_s = 21.0,
	.loss_ratio = 0.005, .exceed_ratio = 0.5, .width = 0.005,
};
const struct vf_mlr_goal vf_mlr_goal_rfc2544 = {
	.name = "RFC2544", .final_trial_s = 60.0, .duration_sum_s = 60.0,
	.loss_ratio = 0.0, .exceed_ratio = 0.0, .width = 0.005,
};
const struct vf_mlr_goal vf_mlr_goal_tst009 = {
	.name = "TST009", .final_trial_s = 60.0, .duration_sum_s = 120.0,
	.loss_ratio = 0.0, .exceed_ratio = 0.5, .width = 0.005,
};

double vf_mlr_trial_loss(const struct vf_mlr_trial *t)
{
	double r = t->sent ? (double)t->lost / (double)t->sent : t->loss_ratio;

	if (t->limited && t->load > 0.0 && t->offered >= 0.0 && 1.0 - t->offered / t->load > r)
		r = 1.0 - t->offered / t->load;
	if (!(r > 0.0))		/* also NaN */
		return 0.0;
	return r > 1.0 ? 1.0 : r;
}

double vf_mlr_trial_effective(const struct vf_mlr_trial *t)
{
	return t->effective_s > 0.0 ? t->effective_s : t->duration_s;
}

const char *vf_mlr_class_name(enum vf_mlr_class c)
{
	switch (c) {
	case VF_MLR_LOWER:
		return "lower bound";
	case VF_MLR_UPPER:
		return "upper bound";
	default:
		return "undecided";
	}
}

/* Load Classification (RFC 9971 appendix A).  Every trial at the load is
 * either full-length (duration >= the goal's final trial duration) or
 * short, and either high-loss (loss ratio > the goal's) or low-loss.
 * Short low-loss time may only cancel short high-loss time (at the rate
 * the exceed ratio allows); it never counts towards a Lower Bound, so
 * short trials can prove an Upper Bound but never a Lower Bound.  The
 * time still missing to the duration sum is assumed high-loss for the
 * pessimistic view and absent for the optimistic one; a Lower Bound needs
 * both views to fit the exceed ratio, an Upper Bound neither. */
enum vf_mlr_class vf_mlr_classify(const struct vf_mlr_goal *g, const struct vf_mlr_trial *t,
				  size_t n, double load, struct vf_mlr_sums *out)
{
	struct vf_mlr_sums s;

	memset(&s, 0, sizeof(s));
	for (size_t i = 0; i < n; i++) {
		if (t[i].load != load)
			continue;
		double d = vf_mlr_trial_effective(&t[i]);
		bool high = t[i].limited || vf_mlr_trial_loss(&t[i]) > g->loss_ratio;
		if (t[i].duration_s >= g->final_trial_s)
			*(high ? &s.full_high : &s.full_low) += d;
		else
			*(high ? &s.short_high : &s.short_low) += d;
	}
	s.balancing = s.short_low * (g->exceed_ratio / (1.0 - g->exceed_ratio));
	s.positive_excess = fmax(0.0, s.short_high - s.balancing);
	s.effect_high = s.full_high + s.positive_excess;
	s.effect_full = s.full_low + s.effect_high;
	s.effect_whole = fmax(s.effect_full, g->duration_sum_s);
	s.quantile = s.effect_whole * g->exceed_ratio;
	s.pessimistic_high = s.effect_whole - s.full_low;
	s.optimistic_is_lower = s.effect_high <= s.quantile;
	s.pessimistic_is_lower = s.pessimistic_high <= s.quantile;
	s.optimistic_exceed = s.effect_high / s.effect_whole;
	s.pessimistic_exceed = s.pessimistic_high / s.effect_whole;
	if (out)
		*out = s;
	if (s.optimistic_is_lower && s.pessimistic_is_lower)
		return VF_MLR_LOWER;
	if (!s.optimistic_is_lower && !s.pessimistic_is_lower)
		return VF_MLR_UPPER;
	return VF_MLR_UNDECIDED;
}

struct lr_dur {
	double loss, dur;
};

static int cmp_lr_dur(const void *a, const void *b)
{
	const struct lr_dur *x = a, *y = b;

	if (x->loss != y->loss)
		return x->loss < y->loss ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur < y->dur ? -1 : 1;
	return 0;
}

/* Conditional Throughput (RFC 9971 appendix B).  The full-length trials,
 * by increasing loss ratio, are taken while the part of the whole time
 * (the duration sum, or the full-length time if larger) that the exceed
 * ratio does not excuse is not yet covered; the last one taken gives the
 * quantile loss ratio.  If they run out before covering it, the missing
 * time counts as total loss (ratio 1). */
bool vf_mlr_conditional_throughput(const struct vf_mlr_goal *g, const struct vf_mlr_trial *t,
				   size_t n, double load, double *out)
{
	size_t at = 0, k = 0;
	double full = 0.0;

	for (size_t i = 0; i < n; i++) {
		if (t[i].load != load)
			continue;
		at++;
		if (t[i].duration_s >= g->final_trial_s)
			k++;
	}
	if (!at)
		return false;
	struct lr_dur *v = k ? malloc(k * sizeof(*v)) : NULL;
	if (k && !v)
		return false;
	k = 0;
	for (size_t i = 0; i < n; i++) {
		if (t[i].load != load || t[i].duration_s < g->final_trial_s)
			continue;
		v[k].loss = vf_mlr_trial_loss(&t[i]);
		v[k].dur = vf_mlr_trial_effective(&t[i]);
		full += v[k].dur;
		k++;
	}
	if (k)
		qsort(v, k, sizeof(*v), cmp_lr_dur);

	double remaining = fmax(g->duration_sum_s, full) * (1.0 - g->exceed_ratio);
	double q = 1.0;
	size_t used = 0;
	while (used < k && (used == 0 || remaining > 0.0)) {
		q = v[used].loss;
		remaining -= v[used].dur;
		used++;
	}
	if (used == k && remaining > 0.0)
		q = 1.0;
	free(v);
	*out = load * (1.0 - q);
	return true;
}

/* Whether t[i]'s load already appeared among t[0..i). */
static bool seen_before(const struct vf_mlr_trial *t, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (t[j].load == t[i].load)
			return true;
	return false;
}

/* Relevant Upper Bound: the smallest load classified Upper Bound.
 * Relevant Lower Bound: the largest Lower Bound below it (RFC 9971
 * "Result Terms"); a Lower Bound at or above it is loss inversion, and the
 * Upper Bound wins.  With no Upper Bound at all, the largest Lower Bound
 * is reported as the "effective" lower bound of an irregular result. */
void vf_mlr_goal_result(const struct vf_mlr_goal *g, const struct vf_mlr_trial *t, size_t n,
			double min_load, double max_load, struct vf_mlr_result *r)
{
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < n; i++) {
		if (seen_before(t, i))
			continue;
		if (vf_mlr_classify(g, t, n, t[i].load, NULL) != VF_MLR_UPPER)
			continue;
		if (!r->has_upper || t[i].load < r->upper)
			r->upper = t[i].load;
		r->has_upper = true;
	}
	for (size_t i = 0; i < n; i++) {
		double l = t[i].load;
		if (seen_before(t, i) || vf_mlr_classify(g, t, n, l, NULL) != VF_MLR_LOWER)
			continue;
		if (r->has_upper && l >= r->upper) {
			r->flags |= VF_MLR_F_INVERSION;
			continue;
		}
		if (!r->has_lower || l > r->lower)
			r->lower = l;
		r->has_lower = true;
	}
	if (isfinite(max_load) && vf_mlr_classify(g, t, n, max_load, NULL) == VF_MLR_LOWER)
		r->flags |= VF_MLR_F_MAX_IS_LOWER;
	if (vf_mlr_classify(g, t, n, min_load, NULL) == VF_MLR_UPPER)
		r->flags |= VF_MLR_F_MIN_IS_UPPER;
	for (size_t i = 0; r->has_upper && i < n; i++)
		if (t[i].load == r->upper && t[i].limited)
			r->flags |= VF_MLR_F_LIMITED;
	if (!r->has_upper)
		r->flags |= VF_MLR_F_NO_UPPER;
	if (!r->has_lower)
		r->flags |= VF_MLR_F_NO_LOWER;
	if (r->has_upper && r->has_lower && g->width > 0.0 &&
	    r->upper - r->lower > g->width * r->upper)
		r->flags |= VF_MLR_F_TOO_WIDE;
	r->regular = r->has_upper && r->has_lower && !(r->flags & VF_MLR_F_TOO_WIDE);
	if (r->has_lower)
		r->has_throughput = vf_mlr_conditional_throughput(g, t, n, r->lower, &r->throughput);
}

static bool goal_ok(const struct vf_mlr_goal *g)
{
	return g->final_trial_s > 0.0 && g->duration_sum_s > 0.0 && g->loss_ratio >= 0.0 &&
	       g->loss_ratio < 1.0 && g->exceed_ratio >= 0.0 && g->exceed_ratio < 1.0 &&
	       !isnan(g->width);
}

int vf_mlr_init(struct vf_mlr *m, const struct vf_mlr_goal *goals, size_t ngoals,
		double min_load, double max_load)
{
	memset(m, 0, sizeof(*m));
	if (!goals || !ngoals || ngoals > MAX_GOALS || !(min_load > 0.0) ||
	    !(max_load > min_load) || !isfinite(max_load))
		return -1;
	for (size_t i = 0; i < ngoals; i++)
		if (!goal_ok(&goals[i]))
			return -1;
	m->goals = goals;
	m->ngoals = ngoals;
	m->min_load = min_load;
	m->max_load = max_load;
	return 0;
}

void vf_mlr_fini(struct vf_mlr *m)
{
	free(m->trials);
	m->trials = NULL;
	m->ntrials = m->cap = 0;
}

static int cmp_dbl(double a, double b)
{
	return a < b ? -1 : a > b;
}

/* The canonical order of trial results, so that sums (and so every
 * output) come out the same whatever order the results were added in. */
static int cmp_trial(const struct vf_mlr_trial *a, const struct vf_mlr_trial *b)
{
	int c;

	if ((c = cmp_dbl(a->load, b->load)) || (c = cmp_dbl(a->duration_s, b->duration_s)) ||
	    (c = cmp_dbl(vf_mlr_trial_effective(a), vf_mlr_trial_effective(b))) ||
	    (c = cmp_dbl(vf_mlr_trial_loss(a), vf_mlr_trial_loss(b))) ||
	    (c = cmp_dbl(a->offered, b->offered)) || (c = cmp_dbl(a->accepted, b->accepted)))
		return c;
	if (a->sent != b->sent)
		return a->sent < b->sent ? -1 : 1;
	if (a->lost != b->lost)
		return a->lost < b->lost ? -1 : 1;
	return (int)a->limited - (int)b->limited;
}

int vf_mlr_add(struct vf_mlr *m, const struct vf_mlr_trial *t)
{
	if (m->ntrials == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct vf_mlr_trial *p = realloc(m->trials, cap * sizeof(*p));
		if (!p)
			return -1;
		m->trials = p;
		m->cap = cap;
	}
	size_t i = m->ntrials;
	while (i > 0 && cmp_trial(&m->trials[i - 1], t) > 0)
		i--;
	memmove(&m->trials[i + 1], &m->trials[i], (m->ntrials - i) * sizeof(*t));
	m->trials[i] = *t;
	m->ntrials++;
	return 0;
}

void vf_mlr_result(const struct vf_mlr *m, size_t i, struct vf_mlr_result *r)
{
	vf_mlr_goal_result(&m->goals[i], m->trials, m->ntrials, m->min_load, m->max_load, r);
}

/* The largest measured load strictly between lo and hi that is still
 * Undecided for g (the nearest to the upper bound: deciding it narrows
 * the range most). */
static bool undecided_between(const struct vf_mlr *m, const struct vf_mlr_goal *g, double lo,
			      double hi, double *load)
{
	/* trials are sorted by load: walking down, the first hit is the largest */
	for (size_t i = m->ntrials; i-- > 0;) {
		double l = m->trials[i].load;
		if (l <= lo || l >= hi || (i + 1 < m->ntrials && m->trials[i + 1].load == l))
			continue;
		if (vf_mlr_classify(g, m->trials, m->ntrials, l, NULL) == VF_MLR_UNDECIDED) {
			*load = l;
			return true;
		}
	}
	return false;
}

/* What the trials at `load` forwarded at best: load x (1 - the lowest loss
 * ratio seen there).  The estimate of the device's rate an overloaded
 * load gives. */
static double forwarded_at(const struct vf_mlr *m, double load)
{
	double best = 0.0;

	for (size_t i = 0; i < m->ntrials; i++)
		if (m->trials[i].load == load)
			best = fmax(best, load * (1.0 - vf_mlr_trial_loss(&m->trials[i])));
	return best;
}

/* How many distinct loads below `upper` are Upper Bounds for g: how often
 * the search has already stepped down without finding a Lower Bound. */
static unsigned int uppers_above(const struct vf_mlr *m, const struct vf_mlr_goal *g,
				 double upper)
{
	unsigned int k = 0;

	for (size_t i = 0; i < m->ntrials; i++) {
		double l = m->trials[i].load;
		if (l <= upper || (i + 1 < m->ntrials && m->trials[i + 1].load == l))
			continue;
		if (vf_mlr_classify(g, m->trials, m->ntrials, l, NULL) == VF_MLR_UPPER)
			k++;
	}
	return k;
}

/* One goal's wish.  An Undecided load is measured again until decided
 * (its duration sum).  No Upper Bound yet: the max load.  An Upper Bound
 * but no Lower Bound: step down to what the Upper Bound forwarded, or by a
 * width doubling with every step already taken, whichever is lower (the
 * device's own rate is the best guess; the doubling bounds the steps when
 * it loses only a little).  Both, too far apart: the forwarding estimate
 * when it falls well inside, else the middle. */
static bool goal_next(const struct vf_mlr *m, const struct vf_mlr_goal *g, double *load)
{
	struct vf_mlr_result r;
	double w = g->width > 0.0 ? g->width : 0.005;

	vf_mlr_goal_result(g, m->trials, m->ntrials, m->min_load, m->max_load, &r);
	if (!r.has_upper) {
		if (r.flags & VF_MLR_F_MAX_IS_LOWER)
			return false;	/* irregular: nothing above max */
		*load = m->max_load;
		return true;
	}
	if (!r.has_lower) {
		if (r.upper <= m->min_load)
			return false;	/* irregular: nothing below min */
		if (undecided_between(m, g, m->min_load, r.upper, load))
			return true;
		double step = w * ldexp(1.0, (int)fmin(uppers_above(m, g, r.upper) + 1, 30));
		double next = fmin(forwarded_at(m, r.upper) * (1.0 - w / 2), r.upper * (1.0 - step));
		*load = fmax(m->min_load, next);
		return true;
	}
	if (r.regular)
		return false;
	if (undecided_between(m, g, r.lower, r.upper, load))
		return true;
	double est = forwarded_at(m, r.upper) * (1.0 - w / 2);
	double margin = w * r.upper;
	if (est > r.lower + margin && est < r.upper - margin)
		*load = est;
	else
		*load = r.lower + (r.upper - r.lower) / 2.0;
	return true;
}

/* Goals are served shortest final trial first (then in list order): the
 * cheap goals narrow the range before the long trials confirm it. */
bool vf_mlr_next_goal(const struct vf_mlr *m, double *load, double *duration_s, size_t *goal)
{
	size_t order[MAX_GOALS];

	for (size_t i = 0; i < m->ngoals; i++) {
		size_t j = i;
		while (j > 0 && m->goals[order[j - 1]].final_trial_s > m->goals[i].final_trial_s) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	for (size_t k = 0; k < m->ngoals; k++) {
		const struct vf_mlr_goal *g = &m->goals[order[k]];
		if (goal_next(m, g, load)) {
			*duration_s = g->final_trial_s;
			if (goal)
				*goal = order[k];
			return true;
		}
	}
	return false;
}

bool vf_mlr_next(const struct vf_mlr *m, double *load, double *duration_s)
{
	return vf_mlr_next_goal(m, load, duration_s, NULL);
}
