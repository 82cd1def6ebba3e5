/* vf_mix: --txpkts' lists, weights and named mixes, their errors, and the
 * schedule: exact counts over long runs, even spacing, means. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vf_mix.h"

static struct vf_mix mix(const char *s)
{
	struct vf_mix m;
	char err[320] = "";

	assert_int_equal(vf_mix_parse(s, &m, VF_MIX_MIN_LEN, VF_MIX_MAX_LEN, err, sizeof(err)), 0);
	return m;
}

static void bad(const char *s, const char *why)
{
	struct vf_mix m;
	char err[320] = "";

	vf_mix_single(&m, 99);
	assert_int_equal(vf_mix_parse(s, &m, VF_MIX_MIN_LEN, VF_MIX_MAX_LEN, err, sizeof(err)), -1);
	if (!strstr(err, why) || !strstr(err, "expected"))
		fail_msg("'%s': '%s' lacks '%s'", s, err, why);
	assert_int_equal(m.n, 1);		/* unchanged */
	assert_int_equal(m.len[0], 99);
}

static void test_parse(void **state)
{
	struct vf_mix m;
	char buf[128];

	(void)state;
	m = mix("64");
	assert_int_equal(m.n, 1);
	assert_int_equal(m.len[0], 64);
	assert_int_equal(vf_mix_period(&m), 1);
	assert_true(vf_mix_is_single(&m));
	m = mix("64,570,1518");
	assert_int_equal(m.n, 3);
	assert_int_equal(vf_mix_period(&m), 3);
	vf_mix_fmt(buf, sizeof(buf), &m);
	assert_string_equal(buf, "64,570,1518");
	m = mix("64:7,570:4,1518:1");
	assert_int_equal(vf_mix_period(&m), 12);
	vf_mix_fmt(buf, sizeof(buf), &m);
	assert_string_equal(buf, "64:7,570:4,1518:1");
	/* weights reduced by their gcd: the same mix */
	m = mix("64:14,570:8,1518:2");
	assert_int_equal(vf_mix_period(&m), 12);
	assert_int_equal(m.weight[0], 7);
	m = mix("imix");
	assert_string_equal(m.name, "imix");
	assert_int_equal(m.len[0], 64);
	assert_int_equal(m.len[1], 570);
	assert_int_equal(m.len[2], 1518);
	assert_int_equal(m.weight[0], 7);
	assert_int_equal(m.weight[1], 4);
	assert_int_equal(m.weight[2], 1);
	vf_mix_fmt(buf, sizeof(buf), &m);
	assert_string_equal(buf, "imix");
	assert_int_equal(vf_mix_max(&m), 1518);
	assert_int_equal(vf_mix_min(&m), 64);
	/* IMIX's mean: (7*64 + 4*570 + 1518) / 12 */
	assert_float_equal(vf_mix_mean(&m, 0), 4246.0 / 12, 1e-9);
	/* lengths raised to a minimum first (the measuring stamp) */
	m = mix("42:1,128:1");
	assert_float_equal(vf_mix_mean(&m, 64), 96.0, 1e-9);
	vf_mix_describe(buf, sizeof(buf), &m, 64);
	assert_string_equal(buf, "42,128, mean 96.0-byte");
	m = mix("42");
	vf_mix_describe(buf, sizeof(buf), &m, 64);
	assert_string_equal(buf, "64-byte");
	/* the bounds and the most lengths */
	mix("42,2048");
	mix("2049,9000");
	mix("42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57");
	m = mix("64:65535,65:1");
	assert_int_equal(vf_mix_period(&m), 65536);
}

static void test_parse_errors(void **state)
{
	(void)state;
	bad("", "empty");
	bad("41", "bad length '41'");
	bad("9001", "go out chained");
	bad("65536", "bad length '65536'");
	bad("64,", "empty");
	bad(",64", "empty");
	bad("64,,128", "empty");
	bad("64:0", "bad weight '0'");
	bad("64:", "bad weight");
	bad("64:x", "bad weight 'x'");
	bad("64:-1", "bad weight");
	bad("-64", "bad length");
	bad("64 ", "bad length");
	bad("imix2", "bad length");
	bad("IMIX", "bad length");
	bad("64,64", "appears twice");
	bad("64:65536,65:1", "sum to 65537");
	bad("42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58", "more than 16");
	bad("64:7,570:4,1518:1,99999999999999999999", "bad length");
}

static void test_schedule_counts(void **state)
{
	static const char *const mixes[] = {
		"imix", "64,570,1518", "64:3,128:5", "64:1,1518:1000", "100:65535,200:1",
		"42:2,64:3,128:5,256:7,512:11,1024:13,1518:17",
	};

	(void)state;
	for (unsigned int k = 0; k < sizeof(mixes) / sizeof(mixes[0]); k++) {
		struct vf_mix m = mix(mixes[k]);
		uint32_t period = vf_mix_period(&m);
		uint8_t *slot = malloc(period);
		uint64_t per[VF_MIX_MAX_SIZES] = { 0 }, total = 0;
		uint64_t runs = 1000003;		/* not a multiple of any period here */

		assert_non_null(slot);
		vf_mix_schedule(&m, slot);
		/* every length exactly weight times a period */
		for (uint32_t s = 0; s < period; s++) {
			assert_true(slot[s] < m.n);
			per[slot[s]]++;
		}
		for (unsigned int i = 0; i < m.n; i++)
			assert_int_equal(per[i], m.weight[i]);
		/* a long run, frame by frame as a stream sends, against
		 * vf_mix_count; and the mean length of what went out */
		memset(per, 0, sizeof(per));
		for (uint64_t f = 0, pos = 0; f < runs; f++) {
			per[slot[pos]]++;
			total += m.len[slot[pos]];
			if (++pos == period)
				pos = 0;
		}
		for (unsigned int i = 0; i < m.n; i++) {
			assert_int_equal(per[i], vf_mix_count(&m, slot, runs, i));
			/* within one period's worth of the weight's share */
			double want = (double)runs * m.weight[i] / period;
			assert_true(per[i] >= want - m.weight[i] && per[i] <= want + m.weight[i]);
		}
		assert_float_equal((double)total / runs, vf_mix_mean(&m, 0),
				   (double)vf_mix_max(&m) * period / runs + 1e-9);
		free(slot);
	}
}

/* Interleaved, not in runs: two slots of a length lie at most the number
 * of lengths further apart than even spacing would put them
 * (ceil(period / weight)), around the period's wrap too. */
static void test_schedule_spread(void **state)
{
	static const char *const mixes[] = {
		"imix", "64:3,128:5", "64:1,1518:1000", "64:2,128:3,256:5,512:7", "64:99,65:1",
	};

	(void)state;
	for (unsigned int k = 0; k < sizeof(mixes) / sizeof(mixes[0]); k++) {
		struct vf_mix m = mix(mixes[k]);
		uint32_t period = vf_mix_period(&m);
		uint8_t *slot = malloc(period);

		assert_non_null(slot);
		vf_mix_schedule(&m, slot);
		for (unsigned int i = 0; i < m.n; i++) {
			uint32_t gap_max = (period + m.weight[i] - 1) / m.weight[i] + m.n;
			uint32_t last = UINT32_MAX, first = 0;

			for (uint32_t s = 0; s < 2 * period; s++) {
				if (slot[s % period] != i)
					continue;
				if (last != UINT32_MAX)
					assert_true(s - last <= gap_max);
				else
					first = s;
				last = s;
			}
			assert_true(first < gap_max);
		}
		free(slot);
	}
	/* IMIX: never more than two 64s in a row, the 1518 alone */
	{
		struct vf_mix m = mix("imix");
		uint8_t slot[12];
		char seq[13];

		vf_mix_schedule(&m, slot);
		for (int s = 0; s < 12; s++)
			seq[s] = (char)('a' + slot[s]);
		seq[12] = '\0';
		assert_null(strstr(seq, "aaa"));
		/* deterministic: the same every time */
		assert_string_equal(seq, "abaabacababa");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_schedule_counts),
		cmocka_unit_test(test_schedule_spread),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
