/* The search goals: presets, --search-goal KEY=VALUE lists, and the
 * default NDR and PDR pair.
 *
 * The default pair keeps FD.io CSIT's loss ratios (0 and 0.5 %), exceed
 * ratio (0.5) and width (0.5 %), but decides each load over a 3-s duration
 * sum of 1-s trials instead of CSIT's 21 s: with an exceed ratio of 0.5,
 * two agreeing trials decide a load and a third breaks a tie, so a search
 * ends within a minute.  CSIT's own sums are the csit-ndr and csit-pdr
 * presets. */
#include <stdio.h>
#include <string.h>

#include "vf_parse.h"
#include "vf_search_goals.h"

/* The default pair, shaped by --trial (final trial, sum three of them),
 * --precision (width) and --pdr-loss. */
static struct vf_mlr_goal default_goal(const struct vf_search_cfg *c, bool pdr)
{
	return (struct vf_mlr_goal){
		.name = pdr ? "PDR" : "NDR",
		.final_trial_s = c->trial,
		.duration_sum_s = 3 * c->trial,
		.loss_ratio = pdr ? c->pdr_loss : 0,
		.exceed_ratio = 0.5,
		.width = c->precision,
	};
}

static bool preset(const char *word, const struct vf_search_cfg *c, struct vf_mlr_goal *g)
{
	if (!strcmp(word, "ndr"))
		*g = default_goal(c, false);
	else if (!strcmp(word, "pdr"))
		*g = default_goal(c, true);
	else if (!strcmp(word, "csit-ndr"))
		*g = vf_mlr_goal_ndr;
	else if (!strcmp(word, "csit-pdr"))
		*g = vf_mlr_goal_pdr;
	else if (!strcmp(word, "rfc2544"))
		*g = vf_mlr_goal_rfc2544;
	else if (!strcmp(word, "tst009"))
		*g = vf_mlr_goal_tst009;
	else
		return false;
	return true;
}

static bool name_ok(const char *v)
{
	size_t n = strlen(v);

	if (n == 0 || n >= sizeof(((struct vf_search_goal_name *)0)->s))
		return false;
	for (; *v; v++)
		if (!((*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z') ||
		      (*v >= '0' && *v <= '9') || strchr("_.%-", *v)))
			return false;
	return true;
}

static int key(char *kv, struct vf_mlr_goal *g, struct vf_search_goal_name *name, char *err,
	       size_t errlen)
{
	static const struct {
		const char *key;
		size_t off;
		double min, max;
		const char *what;
	} nums[] = {
		{ "loss", offsetof(struct vf_mlr_goal, loss_ratio), 0, 0.99, "a ratio in 0..0.99" },
		{ "exceed", offsetof(struct vf_mlr_goal, exceed_ratio), 0, 0.99, "a ratio in 0..0.99" },
		{ "trial", offsetof(struct vf_mlr_goal, final_trial_s), 0.05, 3600, "seconds in 0.05..3600" },
		{ "sum", offsetof(struct vf_mlr_goal, duration_sum_s), 0.05, 86400, "seconds in 0.05..86400" },
		{ "width", offsetof(struct vf_mlr_goal, width), 0.0001, 0.5, "a ratio in 0.0001..0.5" },
	};
	char *eq = strchr(kv, '=');

	if (!eq) {
		snprintf(err, errlen, "'%s' is neither a preset (" VF_SEARCH_GOAL_PRESETS
			 ") nor KEY=VALUE", kv);
		return -1;
	}
	*eq = '\0';
	const char *v = eq + 1;
	if (!strcmp(kv, "name")) {
		if (!name_ok(v)) {
			snprintf(err, errlen, "bad name '%s': 1 to 15 of A-Z a-z 0-9 _ . %% -", v);
			return -1;
		}
		snprintf(name->s, sizeof(name->s), "%s", v);
		return 0;
	}
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (strcmp(kv, nums[i].key))
			continue;
		if (vf_parse_double(v, nums[i].min, nums[i].max,
				    (double *)((char *)g + nums[i].off))) {
			snprintf(err, errlen, "bad %s '%s': expected %s", kv, v, nums[i].what);
			return -1;
		}
		return 0;
	}
	snprintf(err, errlen, "unknown key '%s': name, loss, exceed, trial, sum or width", kv);
	return -1;
}

int vf_search_goal_parse(const char *arg, const struct vf_search_cfg *c, struct vf_mlr_goal *g,
			 struct vf_search_goal_name *name, char *err, size_t errlen)
{
	char buf[VF_SEARCH_GOAL_LEN], *save = NULL, *tok;
	char e[160];
	bool first = true;

	if (strlen(arg) >= sizeof(buf)) {
		snprintf(err, errlen, "bad --search-goal: longer than %zu characters", sizeof(buf) - 1);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", arg);
	*g = default_goal(c, false);
	snprintf(name->s, sizeof(name->s), "%s", "GOAL");
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), first = false) {
		if (first && preset(tok, c, g)) {
			snprintf(name->s, sizeof(name->s), "%s", g->name);
			continue;
		}
		if (key(tok, g, name, e, sizeof(e))) {
			snprintf(err, errlen, "bad --search-goal '%s': %s", arg, e);
			return -1;
		}
	}
	if (first) {
		snprintf(err, errlen, "bad --search-goal '': expected a preset (" VF_SEARCH_GOAL_PRESETS
			 ") or KEY=VALUE,...");
		return -1;
	}
	if (g->duration_sum_s < g->final_trial_s) {
		snprintf(err, errlen, "bad --search-goal '%s': sum %g s is shorter than one trial (%g s)",
			 arg, g->duration_sum_s, g->final_trial_s);
		return -1;
	}
	g->name = name->s;
	return 0;
}

int vf_search_goals(const struct vf_search_cfg *c, struct vf_mlr_goal *g,
		    struct vf_search_goal_name *names, char *err, size_t errlen)
{
	if (!c->nb_goals) {
		g[0] = default_goal(c, false);
		g[1] = default_goal(c, true);
		return 2;
	}
	for (unsigned int i = 0; i < c->nb_goals && i < VF_SEARCH_MAX_GOALS; i++)
		if (vf_search_goal_parse(c->goals[i], c, &g[i], &names[i], err, errlen))
			return -1;
	return (int)c->nb_goals;
}
