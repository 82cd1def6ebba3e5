/* The search's two methods, called by search.c. */
#ifndef VF_SEARCH_METHODS_H
#define VF_SEARCH_METHODS_H

#include "trial.h"

/* The two methods.  run: the trials; returns the load the latency trials
 * take their fractions of (0: none), or < 0 when it could not search (the
 * reason already said).  report: the result, into the document's "search"
 * object (open) in text and JSON. */
/* What one search found, for a sweep's table (sweep.c): each goal's load
 * (pps; found: a load passed), and the latency at 90 % of the load the
 * latency trials took their fractions of. */
struct vf_search_summary {
	unsigned int ngoals;
	struct {
		char name[24];
		double pps;
		bool found, tester_limited;
		bool regular;	/* MLRsearch: a regular result; bisect: verified */
	} g[VF_SEARCH_MAX_GOALS];
	double tester_limit;		/* pps unthrottled; 0: not measured */
	unsigned int trials;
	double traffic_s;
	bool aborted;
	bool has_lat90;
	struct vf_meas_lat lat90;
};

/* Runs one search with the session's settings and emits its result
 * document; final: the run's last document ("final": true), label: the
 * --search-sizes entry it was run at (NULL: none).  Fills *sum when not
 * NULL.  Returns the exit status (search.c). */
int vf__search_once(struct vf_session *ses, bool final, const char *label,
		    struct vf_search_summary *sum);

/* The goals' results of the last run of each method, into sum->g. */
void vf_search_mlr_summary(const struct vf_search *s, struct vf_search_summary *sum);
void vf_search_bisect_summary(const struct vf_search *s, struct vf_search_summary *sum);

double vf_search_mlr_run(struct vf_search *s);
void vf_search_mlr_report(struct vf_search *s, struct vf_out *o);
double vf_search_bisect_run(struct vf_search *s);
void vf_search_bisect_report(struct vf_search *s, struct vf_out *o);

#endif
