/* The options that only measuring and the search read: loss and latency
 * limits, the search, its goals and its trials, the warm-up. */
#include <stdio.h>
#include <string.h>

#include "opts_priv.h"
#include "vf_parse.h"
#include "vf_search.h"
#include "vf_search_goals.h"

int vf__o_max_loss(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	if (vf__opt_double(&app->ses.limits.max_loss, 0, 1, arg, "--max-loss",
		       "a ratio in 0..1 (0.001 = 0.1%)", err, errlen))
		return -1;
	app->ses.limits.has_loss = true;
	return 0;
}

int vf__o_max_latency(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	struct vf_meas_limits *l = &app->ses.limits;
	char pct[32];
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : 0;

	if (l->nb_lat == sizeof(l->lat_pct) / sizeof(l->lat_pct[0])) {
		snprintf(err, errlen, "too many --max-latency (at most %zu)",
			 sizeof(l->lat_pct) / sizeof(l->lat_pct[0]));
		return -1;
	}
	if (!colon || n == 0 || n >= sizeof(pct)) {
		snprintf(err, errlen, "bad --max-latency '%s': expected PCT:USEC, e.g. 99.9:50", arg);
		return -1;
	}
	memcpy(pct, arg, n);
	pct[n] = '\0';
	if (vf_parse_double(pct, 0, 100, &l->lat_pct[l->nb_lat]) ||
	    vf_parse_double(colon + 1, 0, 1e9, &l->lat_us[l->nb_lat])) {
		snprintf(err, errlen, "bad --max-latency '%s': expected PCT (0..100):USEC (>= 0), e.g. 99.9:50", arg);
		return -1;
	}
	l->nb_lat++;
	return 0;
}

int vf__o_search(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ app->ses.search.on = true; return 0; }

/* The options only the search reads: the main refuses them without
 * --search (the first one given is named). */
static void search_only(struct vf_app *app, const char *name)
{
	if (!app->search_opt)
		app->search_opt = name;
}

int vf__o_pdr_loss(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	search_only(app, "--pdr-loss");
	app->ses.search.pdr_loss_given = true;
	return vf__opt_double(&app->ses.search.pdr_loss, 0, 0.5, arg, "--pdr-loss",
			  "a ratio in 0..0.5 (default 0.005)", err, errlen);
}

int vf__o_min_rate(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	search_only(app, "--min-rate");
	return vf__opt_rate(arg, &app->ses.min_rate_spec, &app->ses.search.min_rate, "--min-rate", err, errlen);
}

int vf__o_max_rate(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	search_only(app, "--max-rate");
	return vf__opt_rate(arg, &app->ses.max_rate_spec, &app->ses.search.max_rate, "--max-rate", err, errlen);
}

int vf__o_trial(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	search_only(app, "--trial");
	return vf__opt_double(&app->ses.search.trial, 0.05, 3600, arg, "--trial",
			  "seconds in 0.05..3600", err, errlen);
}

int vf__o_precision(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	search_only(app, "--precision");
	return vf__opt_double(&app->ses.search.precision, 0.0001, 0.5, arg, "--precision",
			  "a ratio in 0.0001..0.5 (default 0.005)", err, errlen);
}

int vf__o_search_method(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	search_only(app, "--search-method");
	if (!strcmp(arg, "mlr") || !strcmp(arg, "mlrsearch"))
		app->ses.search.bisect = false;
	else if (!strcmp(arg, "bisect"))
		app->ses.search.bisect = true;
	else {
		snprintf(err, errlen, "bad --search-method '%s': expected mlr or bisect", arg);
		return -1;
	}
	return 0;
}

/* Kept as given: --trial and --precision, which shape the keys a goal
 * leaves out, may come later; the main parses them all once the options
 * are read. */
int vf__o_search_goal(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	struct vf_search_cfg *c = &app->ses.search;

	search_only(app, "--search-goal");
	if (c->nb_goals == VF_SEARCH_MAX_GOALS) {
		snprintf(err, errlen, "too many --search-goal: at most %d", VF_SEARCH_MAX_GOALS);
		return -1;
	}
	if (strlen(arg) >= VF_SEARCH_GOAL_LEN) {
		snprintf(err, errlen, "bad --search-goal: longer than %d characters", VF_SEARCH_GOAL_LEN - 1);
		return -1;
	}
	snprintf(c->goals[c->nb_goals++], VF_SEARCH_GOAL_LEN, "%s", arg);
	return 0;
}

int vf__o_search_sizes(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	search_only(app, "--search-sizes");
	return vf_search_sizes_parse(arg, &app->ses.search, err, errlen);
}

int vf__o_warmup(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	return vf__opt_double(&app->ses.warmup, 0.01, 3600, arg, "--warmup", "seconds in 0.01..3600",
			  err, errlen);
}

