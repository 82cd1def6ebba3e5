/* The search's two methods, called by search.c. */
#ifndef VF_SEARCH_METHODS_H
#define VF_SEARCH_METHODS_H

#include "trial.h"

/* The two methods.  run: the trials; returns the load the latency trials
 * take their fractions of (0: none), or < 0 when it could not search (the
 * reason already said).  report: the result, into the document's "search"
 * object (open) in text and JSON. */
double vf_search_mlr_run(struct vf_search *s);
void vf_search_mlr_report(struct vf_search *s, struct vf_out *o);
double vf_search_bisect_run(struct vf_search *s);
void vf_search_bisect_report(struct vf_search *s, struct vf_out *o);

#endif
