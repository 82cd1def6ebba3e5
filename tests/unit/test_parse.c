/* vf_parse_rate: the forms --rate, --min-rate, --max-rate and the shell's
 * 'set rate' take, the values they give and what they refuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "vf_parse.h"

#define MAXR 1000000000ull

static uint64_t ok(const char *s)
{
	uint64_t v = 12345;

	assert_int_equal(vf_parse_rate(s, 1, MAXR, &v), 0);
	return v;
}

static void test_forms(void **state)
{
	(void)state;
	assert_int_equal(ok("200000"), 200000);
	assert_int_equal(ok("200k"), 200000);
	assert_int_equal(ok("200K"), 200000);
	assert_int_equal(ok("200kpps"), 200000);
	assert_int_equal(ok("200kPPS"), 200000);
	assert_int_equal(ok("1.5M"), 1500000);
	assert_int_equal(ok("1.5Mpps"), 1500000);
	assert_int_equal(ok("1.5MPps"), 1500000);
	assert_int_equal(ok("0.001M"), 1000);
}

static void test_values(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(ok("1G"), 1000000000ull);
	assert_int_equal(ok("0.5k"), 500);
	assert_int_equal(ok("1pps"), 1);
	assert_int_equal(ok("12345PPS"), 12345);
	assert_int_equal(ok(".25M"), 250000);
	assert_int_equal(ok("1e6"), 1000000);
	/* 2G is a rate the parser reads; the range decides */
	assert_int_equal(vf_parse_rate("2G", 1, 4000000000ull, &v), 0);
	assert_int_equal(v, 2000000000ull);
	assert_int_equal(vf_parse_rate("2G", 1, MAXR, &v), -1);
	assert_int_equal(v, 2000000000ull);	/* unchanged on failure */
	/* 0 where the range allows it (the shell: unlimited) */
	assert_int_equal(vf_parse_rate("0", 0, MAXR, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(vf_parse_rate("0", 1, MAXR, &v), -1);
}

static void test_refused(void **state)
{
	static const char *bad[] = {
		"", "k", "pps", "M", "-1", "+1", " 1", "1 ", "1 k", "1m", "1g", "1kk", "1Mp",
		"1ppsx", "1T", "0x10", "inf", "nan", "1.5.2", "abc", "1e", "kpps", ".", "1,000",
	};
	uint64_t v = 42;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (vf_parse_rate(bad[i], 0, MAXR, &v) == 0)
			fail_msg("'%s' accepted as %llu", bad[i], (unsigned long long)v);
		assert_int_equal(v, 42);
	}
	assert_int_equal(vf_parse_rate(NULL, 0, MAXR, &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
