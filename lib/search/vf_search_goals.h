/* The search goals of MLRsearch (--search-goal and the default pair). */
#ifndef VF_SEARCH_GOALS_H
#define VF_SEARCH_GOALS_H

#include <stddef.h>

#include "vf_mlr.h"
#include "vf_session.h"

/* A goal's name as parsed (the goal's name points here). */
struct vf_search_goal_name {
	char s[16];
};

/* Parses one --search-goal: a preset name (ndr, pdr, csit-ndr, csit-pdr,
 * rfc2544, tst009) or [PRESET,]KEY=VALUE,... with keys name, loss,
 * exceed, trial, sum, width; keys not given come from the preset, or from
 * the default pair shaped by c's --trial and --precision.  Returns 0, or
 * -1 with a one-line reason in err. */
int vf_search_goal_parse(const char *arg, const struct vf_search_cfg *c, struct vf_mlr_goal *g,
			 struct vf_search_goal_name *name, char *err, size_t errlen);

/* The search's goals: c->goals parsed, or the default NDR and PDR pair.
 * Returns how many (>= 1), or -1 with the reason in err. */
int vf_search_goals(const struct vf_search_cfg *c, struct vf_mlr_goal *g,
		    struct vf_search_goal_name *names, char *err, size_t errlen);

/* The preset names, '|'-separated (completion). */
#define VF_SEARCH_GOAL_PRESETS "ndr|pdr|csit-ndr|csit-pdr|rfc2544|tst009"

#endif
