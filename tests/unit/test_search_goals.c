/* --search-goal parsing: presets, KEY=VALUE lists on top of a preset or
 * of the default pair, and the errors a user meets (one line, naming the
 * key). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vf_search.h"
#include "vf_search_goals.h"

static struct vf_search_cfg cfg(void)
{
	struct vf_search_cfg c;

	memset(&c, 0, sizeof(c));
	c.trial = 1.0;
	c.precision = 0.005;
	c.pdr_loss = 0.005;
	return c;
}

static void test_defaults(void **state)
{
	(void)state;
	struct vf_search_cfg c = cfg();
	struct vf_mlr_goal g[VF_SEARCH_MAX_GOALS];
	struct vf_search_goal_name n[VF_SEARCH_MAX_GOALS];
	char err[200];

	c.trial = 0.5;
	c.pdr_loss = 0.001;
	assert_int_equal(vf_search_goals(&c, g, n, err, sizeof(err)), 2);
	assert_string_equal(g[0].name, "NDR");
	assert_string_equal(g[1].name, "PDR");
	assert_true(g[0].loss_ratio == 0 && g[1].loss_ratio == 0.001);
	assert_true(g[0].final_trial_s == 0.5 && g[0].duration_sum_s == 1.5);
	assert_true(g[1].exceed_ratio == 0.5 && g[1].width == 0.005);
}

static void test_presets_and_keys(void **state)
{
	(void)state;
	struct vf_search_cfg c = cfg();
	struct vf_mlr_goal g;
	struct vf_search_goal_name n;
	char err[200];

	assert_int_equal(vf_search_goal_parse("rfc2544", &c, &g, &n, err, sizeof(err)), 0);
	assert_true(g.final_trial_s == 60 && g.duration_sum_s == 60 && g.exceed_ratio == 0);
	assert_int_equal(vf_search_goal_parse("tst009", &c, &g, &n, err, sizeof(err)), 0);
	assert_true(g.duration_sum_s == 120 && g.exceed_ratio == 0.5);
	assert_int_equal(vf_search_goal_parse("csit-pdr", &c, &g, &n, err, sizeof(err)), 0);
	assert_true(g.duration_sum_s == 21 && g.loss_ratio == 0.005);
	/* a preset with keys on top, and a name */
	assert_int_equal(vf_search_goal_parse("rfc2544,trial=2,sum=4,name=quick", &c, &g, &n, err,
					      sizeof(err)), 0);
	assert_true(g.final_trial_s == 2 && g.duration_sum_s == 4 && g.exceed_ratio == 0);
	assert_string_equal(g.name, "quick");
	/* keys alone: on the default NDR goal */
	assert_int_equal(vf_search_goal_parse("loss=0.001,exceed=0.2,width=0.01", &c, &g, &n, err,
					      sizeof(err)), 0);
	assert_true(g.loss_ratio == 0.001 && g.exceed_ratio == 0.2 && g.width == 0.01);
	assert_true(g.final_trial_s == 1 && g.duration_sum_s == 3);
	assert_string_equal(g.name, "GOAL");
}

static void bad(const char *arg, const char *want)
{
	struct vf_search_cfg c = cfg();
	struct vf_mlr_goal g;
	struct vf_search_goal_name n;
	char err[200] = "";

	assert_int_equal(vf_search_goal_parse(arg, &c, &g, &n, err, sizeof(err)), -1);
	if (!strstr(err, want)) {
		print_error("'%s': '%s' lacks '%s'\n", arg, err, want);
		fail();
	}
	assert_null(strchr(err, '\n'));
}

static void test_errors(void **state)
{
	(void)state;
	bad("", "expected a preset");
	bad("fast", "neither a preset");
	bad("loss=2", "bad loss '2'");
	bad("loss=x", "bad loss");
	bad("exceed=1", "bad exceed");
	bad("trial=0", "bad trial");
	bad("width=0", "bad width");
	bad("speed=3", "unknown key 'speed'");
	bad("name=a b", "bad name");
	bad("name=abcdefghijklmnopq", "bad name");
	bad("trial=5,sum=2", "shorter than one trial");
	bad("ndr,rfc2544", "neither a preset");
	char longer[300];
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	bad(longer, "longer than");
}

/* --search-sizes: rfc2544, lengths and named mixes; errors leave the
 * settings as they were. */
static void test_sizes(void **state)
{
	(void)state;
	struct vf_search_cfg c = cfg();
	char err[512], buf[32];
	static const char *const bad[] = {
		"", "64,", ",64", "64,,128", "41", "9001", "64:7", "64:7,128:1", "rfc2545", "RFC2544",
		"rfc2544,64", "64,x", "42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58",
	};

	assert_int_equal(vf_search_sizes_parse("rfc2544", &c, err, sizeof(err)), 0);
	assert_int_equal(c.nb_sizes, 7);
	static const unsigned int want[] = { 64, 128, 256, 512, 1024, 1280, 1518 };
	for (unsigned int i = 0; i < 7; i++) {
		assert_int_equal(c.sizes[i].n, 1);
		assert_int_equal(c.sizes[i].len[0], want[i]);
	}
	assert_int_equal(vf_search_sizes_parse("64,imix,1518", &c, err, sizeof(err)), 0);
	assert_int_equal(c.nb_sizes, 3);
	vf_mix_fmt(buf, sizeof(buf), &c.sizes[1]);
	assert_string_equal(buf, "imix");
	assert_int_equal(vf_mix_period(&c.sizes[1]), 12);
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(vf_search_sizes_parse(bad[i], &c, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "--search-sizes"));
		assert_int_equal(c.nb_sizes, 3);		/* unchanged */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_presets_and_keys),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
