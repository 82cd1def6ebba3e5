/* MLRsearch (RFC 9971, "Multiple Loss Ratio Search"): the Controller's
 * logic as pure arithmetic on trial results.  No DPDK, no I/O, no clock:
 * the caller measures (the RFC's Measurer) and reports each trial back.
 *
 * Terms follow the RFC's section "MLRsearch Specification": a Search Goal
 * (struct vf_mlr_goal), a Trial Result (struct vf_mlr_trial), the Load
 * Classification of one load for one goal (vf_mlr_classify, appendix A
 * "Load Classification Code"), the Conditional Throughput (appendix B),
 * the Relevant Upper and Lower Bounds and the Goal Result, regular or
 * irregular (vf_mlr_goal_result). */
#ifndef VF_MLR_H
#define VF_MLR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A Search Goal.  Durations in seconds, ratios in [0, 1). */
struct vf_mlr_goal {
	const char *name;	/* optional, for reports */
	double final_trial_s;	/* Goal Final Trial Duration, > 0 */
	double duration_sum_s;	/* Goal Duration Sum, > 0 */
	double loss_ratio;	/* Goal Loss Ratio, [0, 1) */
	double exceed_ratio;	/* Goal Exceed Ratio, [0, 1) */
	/* Goal Width, relative: the goal is precise enough when
	 * (upper - lower) <= width * upper.  <= 0: no width, any distance
	 * between the relevant bounds is accepted. */
	double width;
};

/* Presets.
 *
 * vf_mlr_goal_ndr, vf_mlr_goal_pdr: the pair FD.io CSIT searches for (NDR
 * loss 0, PDR loss 0.5 %), exceed ratio 0.5 (also the RFC's recommended
 * value, section "Goal Exceed Ratio"), width 0.5 % relative, 1 s final
 * trials and a 21 s duration sum.  Source for 1 s / 21 s / 0.5 %: FD.io
 * CSIT's MLRsearch methodology page (csit.fd.io cdocs, "mlr_search", as
 * cited by RFC 9971 [FDio-CSIT-MLRsearch]), from memory of that page: no
 * copy of it was at hand to re-check the figures.  RFC 9971 itself sets
 * no defaults.
 *
 * vf_mlr_goal_rfc2544: RFC 9971 section "MLRsearch Compliant with RFC
 * 2544": 60 s final trial, 60 s sum, loss 0, exceed 0 (width 0.5 %).
 *
 * vf_mlr_goal_tst009: RFC 9971 section "MLRsearch Compliant with TST009",
 * the "max(r) = 2" variant of ETSI GS NFV-TST 009 section 12.3.3 (binary
 * search with loss verification, z = infinity): 60 s final trial, 120 s
 * sum, loss 0, exceed 0.5 (width 0.5 %).  ETSI's own text was not read;
 * the values are the RFC's. */
extern const struct vf_mlr_goal vf_mlr_goal_ndr;
extern const struct vf_mlr_goal vf_mlr_goal_pdr;
extern const struct vf_mlr_goal vf_mlr_goal_rfc2544;
extern const struct vf_mlr_goal vf_mlr_goal_tst009;

/* A Trial Result: the Trial Input (load, duration) and the Trial Output.
 * Loads are in any unit the caller likes (pps, per interface); the module
 * only compares and averages them. */
struct vf_mlr_trial {
	double load;		/* intended load (Trial Load) */
	double duration_s;	/* intended duration (Trial Duration) */
	double effective_s;	/* Trial Effective Duration; <= 0: duration_s */
	double offered;		/* offered load as measured; informative */
	double accepted;	/* forwarded (accepted) load; informative */
	/* The Trial Loss Ratio: lost / sent when sent > 0, else loss_ratio. */
	uint64_t sent, lost;
	double loss_ratio;
	/* The Measurer could not offer the load (offered < load by more than
	 * its tolerance): the trial counts as high-loss for every goal, never
	 * as the device's success, and its loss ratio is at least the part of
	 * the load not offered. */
	bool limited;
};

/* The Trial Loss Ratio of a result (clamped to [0, 1]); for a limited
 * trial at least 1 - offered / load. */
double vf_mlr_trial_loss(const struct vf_mlr_trial *t);
/* The Trial Effective Duration of a result. */
double vf_mlr_trial_effective(const struct vf_mlr_trial *t);

enum vf_mlr_class {
	VF_MLR_UNDECIDED = 0,
	VF_MLR_LOWER,		/* Lower Bound */
	VF_MLR_UPPER,		/* Upper Bound */
};

const char *vf_mlr_class_name(enum vf_mlr_class c);

/* The intermediate sums of the Load Classification, in seconds of Trial
 * Effective Duration, named as in RFC 9971 appendix A and its example. */
struct vf_mlr_sums {
	double full_low, full_high;	/* full-length low-/high-loss */
	double short_low, short_high;	/* short low-/high-loss */
	double balancing, positive_excess;
	double effect_high, effect_full, effect_whole;
	double quantile, pessimistic_high;
	double optimistic_exceed, pessimistic_exceed;	/* ratios */
	bool optimistic_is_lower, pessimistic_is_lower;
};

/* Classifies `load` for goal g from the trials among t[0..n) measured at
 * exactly that load (others are skipped).  No trial there: Undecided.
 * Fills *s when s is not NULL. */
enum vf_mlr_class vf_mlr_classify(const struct vf_mlr_goal *g, const struct vf_mlr_trial *t,
				  size_t n, double load, struct vf_mlr_sums *s);

/* RFC 9971 appendix B at `load`: the forwarding rate load * (1 - quantile
 * loss ratio) over the full-length trials there.  Returns false (and
 * leaves *out) when no trial was measured at that load. */
bool vf_mlr_conditional_throughput(const struct vf_mlr_goal *g, const struct vf_mlr_trial *t,
				   size_t n, double load, double *out);

/* Flags on a goal result: why it is irregular, and what was seen. */
enum {
	VF_MLR_F_NO_UPPER = 1u << 0,	 /* no load is an Upper Bound */
	VF_MLR_F_NO_LOWER = 1u << 1,	 /* no Lower Bound below the upper one */
	VF_MLR_F_TOO_WIDE = 1u << 2,	 /* both exist, farther than the width */
	VF_MLR_F_MAX_IS_LOWER = 1u << 3, /* max load classified Lower Bound */
	VF_MLR_F_MIN_IS_UPPER = 1u << 4, /* min load classified Upper Bound */
	VF_MLR_F_INVERSION = 1u << 5,	 /* a Lower Bound at or above the
					  * Relevant Upper Bound (loss inversion;
					  * informative, not irregular) */
	VF_MLR_F_LIMITED = 1u << 6,	 /* a trial at the Relevant Upper Bound
					  * was limited by the Measurer: the bound
					  * may be the tester's, not the device's */
};

/* A Goal Result.  regular: both relevant bounds exist and are within the
 * goal's width (RFC 9971 "Regular Goal Result").  Otherwise irregular,
 * with what could be found: when no Upper Bound exists, `lower` is the
 * largest Lower Bound (the RFC's "effective" Relevant Lower Bound, e.g.
 * the max load) and the conditional throughput is computed there. */
struct vf_mlr_result {
	bool regular;
	bool has_upper, has_lower, has_throughput;
	double upper;		/* Relevant Upper Bound */
	double lower;		/* Relevant Lower Bound */
	double throughput;	/* Conditional Throughput at `lower` */
	unsigned int flags;	/* VF_MLR_F_* */
};

/* The Goal Result from trials t[0..n).  min_load, max_load: the Controller
 * Input's Min Load and Max Load, only used for the flags; pass 0 and
 * INFINITY when there are none. */
void vf_mlr_goal_result(const struct vf_mlr_goal *g, const struct vf_mlr_trial *t, size_t n,
			double min_load, double max_load, struct vf_mlr_result *r);

/* The Controller: goals, Min Load, Max Load and the trial results so far
 * (kept sorted, so every output depends only on the set of results, never
 * on the order they came in). */
struct vf_mlr {
	const struct vf_mlr_goal *goals;
	size_t ngoals;
	double min_load, max_load;
	struct vf_mlr_trial *trials;
	size_t ntrials, cap;
};

/* goals must outlive m.  0 < min_load < max_load; each goal's ratios in
 * [0, 1) and durations > 0.  Returns 0, or -1 for bad arguments. */
int vf_mlr_init(struct vf_mlr *m, const struct vf_mlr_goal *goals, size_t ngoals,
		double min_load, double max_load);
void vf_mlr_fini(struct vf_mlr *m);

/* Records one trial result.  Returns 0, or -1 when out of memory. */
int vf_mlr_add(struct vf_mlr *m, const struct vf_mlr_trial *t);

/* The next Trial Input: *load (within [min_load, max_load]) and
 * *duration_s.  Returns false when every goal is decided: regular within
 * its width, or irregular because the min load is an Upper Bound or the
 * max load a Lower Bound.  Which load comes next is the Controller's
 * choice (RFC 9971 leaves it open); the results depend only on the
 * classification, and the choice only on the set of results so far. */
bool vf_mlr_next(const struct vf_mlr *m, double *load, double *duration_s);
/* The same, and *goal: the index of the goal that asked for the trial. */
bool vf_mlr_next_goal(const struct vf_mlr *m, double *load, double *duration_s, size_t *goal);

/* The Goal Result of goals[i] from the trials so far. */
void vf_mlr_result(const struct vf_mlr *m, size_t i, struct vf_mlr_result *r);

#endif
