/* vf_pace: --pattern's parsing and its burst and Poisson schedules, driven
 * with simulated time (no clock, no timing thresholds): counts, means and
 * the shape of the distribution over long runs, seeded and repeatable. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vf_pace.h"

#define HZ 2400000000ull	/* a 2.4 GHz TSC */
#define BIG (1ull << 40)	/* room in the bucket: never the limit here */

static struct vf_pattern pat(const char *s)
{
	struct vf_pattern p;
	char err[320] = "";

	assert_int_equal(vf_pattern_parse(s, &p, err, sizeof(err)), 0);
	return p;
}

static void bad(const char *s)
{
	struct vf_pattern p = { .kind = VF_PATTERN_POISSON, .seed = 99 };
	char err[320] = "";

	assert_int_equal(vf_pattern_parse(s, &p, err, sizeof(err)), -1);
	assert_true(err[0] != '\0');
	assert_int_equal(p.kind, VF_PATTERN_POISSON);
	assert_int_equal(p.seed, 99);
}

static void test_parse(void **state)
{
	struct vf_pattern p;

	(void)state;
	p = pat("constant");
	assert_int_equal(p.kind, VF_PATTERN_CONSTANT);
	p = pat("burst:64/1ms");
	assert_int_equal(p.kind, VF_PATTERN_BURST);
	assert_int_equal(p.burst_n, 64);
	assert_int_equal(p.burst_ns, 1000000);
	assert_float_equal(vf_pattern_pps(&p), 64000, 1e-9);
	p = pat("burst:3/7us");
	assert_int_equal(p.burst_ns, 7000);
	p = pat("burst:1/1s");
	assert_int_equal(p.burst_ns, 1000000000);
	p = pat("burst:10/2.5ms");
	assert_int_equal(p.burst_ns, 2500000);
	p = pat("burst:32");
	assert_int_equal(p.burst_n, 32);
	assert_int_equal(p.burst_ns, 0);
	assert_float_equal(vf_pattern_pps(&p), 0, 0);	/* from --rate */
	p = pat("poisson");
	assert_int_equal(p.kind, VF_PATTERN_POISSON);
	assert_int_equal(p.seed, 1);
	p = pat("poisson:12345");
	assert_int_equal(p.seed, 12345);
	bad("");
	bad("const");
	bad("burst");
	bad("burst:");
	bad("burst:0/1ms");
	bad("burst:64/");
	bad("burst:64/1");	/* no unit */
	bad("burst:64/1h");
	bad("burst:64/2s");	/* above 1 s */
	bad("burst:64/0ns");
	bad("burst:-1/1ms");
	bad("burst:99999999/1ms");
	bad("poisson:");
	bad("poisson:x");
	bad("poisson:-3");
	bad("poissonx");
}

/* Polls every step cycles for total cycles; returns the frames credited,
 * and the sizes of the credits in *min_c, *max_c (0 credits skipped). */
static uint64_t run(struct vf_pace *pc, const struct vf_pattern *p, uint64_t rate, uint64_t step,
		    uint64_t total, uint64_t *min_c, uint64_t *max_c)
{
	uint64_t sum = 0, lo = UINT64_MAX, hi = 0;

	for (uint64_t t = 1000; t <= 1000 + total; t += step) {
		uint64_t c = vf_pace_due(pc, p, t, HZ, rate, BIG);

		sum += c;
		if (c && c < lo)
			lo = c;
		if (c > hi)
			hi = c;
	}
	if (min_c)
		*min_c = lo;
	if (max_c)
		*max_c = hi;
	return sum;
}

static void test_burst_n_t(void **state)
{
	struct vf_pattern p = pat("burst:64/1ms");
	struct vf_pace a, b;
	uint64_t lo, hi, n;

	(void)state;
	/* two streams share the 64: 32 each, every 1 ms, exactly; polled
	 * every 10 us for 10 s: bursts at 0, 1 ms, ... 10 s: 10001 of them */
	vf_pace_start(&a, &p, 1000, HZ, 0, 2);
	vf_pace_start(&b, &p, 1000, HZ, 1, 2);
	n = run(&a, &p, 32000, HZ / 100000, 10 * HZ, &lo, &hi);
	assert_int_equal(lo, 32);
	assert_int_equal(hi, 32);
	assert_int_equal(n, 32 * 10001);
	assert_int_equal(run(&b, &p, 32000, HZ / 100000, 10 * HZ, NULL, NULL), 32 * 10001);
	/* an odd split: 3 streams of 64: 22, 21, 21 */
	vf_pace_start(&a, &p, 0, HZ, 0, 3);
	assert_int_equal(a.n, 22);
	vf_pace_start(&a, &p, 0, HZ, 2, 3);
	assert_int_equal(a.n, 21);
	/* a period that is no whole number of cycles (3 frames every 7 us
	 * at 2.4 GHz = 16800 cycles; at 1 GHz-ish TSCs not whole): no drift,
	 * 1e6 bursts over 7 s */
	p = pat("burst:3/7us");
	vf_pace_start(&a, &p, 1000, 2399999999ull, 0, 1);
	n = 0;
	for (uint64_t t = 1000; t < 1000 + 7ull * 2399999999ull; t += 5000)
		n += vf_pace_due(&a, &p, t, 2399999999ull, 428571, BIG);
	assert_true(n >= 3 * 999999ull && n <= 3 * 1000001ull);
}

static void test_burst_rate(void **state)
{
	struct vf_pattern p = pat("burst:100");
	struct vf_pace a;
	uint64_t lo, hi, n;

	(void)state;
	/* bursts of 100 at a mean of 1 Mpps: one every 100 us; 5 s */
	vf_pace_start(&a, &p, 1000, HZ, 0, 1);
	n = run(&a, &p, 1000000, HZ / 1000000, 5 * HZ, &lo, &hi);
	assert_int_equal(lo, 100);
	assert_int_equal(hi, 100);
	assert_true(n >= 5000000 && n <= 5000100);
}

static void test_burst_full_bucket(void **state)
{
	struct vf_pattern p = pat("burst:64/1ms");
	struct vf_pace a;

	(void)state;
	/* a bucket with no room drops the burst and the schedule goes on */
	vf_pace_start(&a, &p, 0, HZ, 0, 1);
	assert_int_equal(vf_pace_due(&a, &p, 10 * HZ, HZ, 64000, 0), 0);
	assert_int_equal(vf_pace_due(&a, &p, 10 * HZ + HZ / 1000, HZ, 64000, BIG), 64);
	assert_int_equal(vf_pace_due(&a, &p, 10 * HZ + HZ / 1000, HZ, 64000, BIG), 0);
}

static void test_exp_distribution(void **state)
{
	uint64_t rng = 42;
	double sum = 0, sum2 = 0, x, mean, sd;
	const unsigned int n = 2000000;
	unsigned int below1 = 0, above3 = 0;

	(void)state;
	for (unsigned int i = 0; i < n; i++) {
		x = vf_pace_exp(&rng);
		assert_true(x >= 0);
		sum += x;
		sum2 += x * x;
		below1 += x < 1;
		above3 += x > 3;
	}
	mean = sum / n;
	sd = sqrt(sum2 / n - mean * mean);
	/* mean 1 (its standard error over 2e6 draws: 0.0007), coefficient
	 * of variation 1, P(x < 1) = 1 - 1/e = 0.632, P(x > 3) = e^-3 = 0.0498 */
	assert_float_equal(mean, 1.0, 0.004);
	assert_float_equal(sd / mean, 1.0, 0.01);
	assert_float_equal((double)below1 / n, 1 - exp(-1), 0.002);
	assert_float_equal((double)above3 / n, exp(-3), 0.001);
}

static void test_poisson(void **state)
{
	struct vf_pattern p = pat("poisson:7"), q = pat("poisson:8");
	struct vf_pace a, b, c;
	uint64_t na, nb, nc, ca = 0, cb = 0, cc = 0, counts[64] = { 0 };
	double m = 0, v = 0;

	(void)state;
	/* 1 Mpps for 10 s, polled every 1 us: 1e7 frames expected; the
	 * Poisson count's standard deviation is sqrt(1e7) = 3162: allow 5 */
	vf_pace_start(&a, &p, 1000, HZ, 0, 1);
	vf_pace_start(&b, &p, 1000, HZ, 0, 1);
	vf_pace_start(&c, &q, 1000, HZ, 0, 1);
	na = nb = nc = 0;
	for (uint64_t t = 1000; t <= 1000 + 10 * HZ; t += HZ / 1000000) {
		uint64_t da = vf_pace_due(&a, &p, t, HZ, 1000000, BIG);

		na += da;
		nb += vf_pace_due(&b, &p, t, HZ, 1000000, BIG);
		nc += vf_pace_due(&c, &q, t, HZ, 1000000, BIG);
		ca += da * da;
		cb += nb;
		cc += nc;
		counts[da < 63 ? da : 63]++;
	}
	assert_true(na > 10000000 - 5 * 3162 && na < 10000000 + 5 * 3162);
	assert_true(nc > 10000000 - 5 * 3162 && nc < 10000000 + 5 * 3162);
	/* the same seed: the same arrivals; another seed: others */
	assert_int_equal(na, nb);
	assert_true(cb != cc);
	/* frames per 1 us poll are Poisson with mean 1: variance 1 too, and
	 * P(0) = 1/e */
	for (unsigned int k = 0; k < 64; k++) {
		m += (double)k * counts[k];
		v += (double)k * k * counts[k];
	}
	m /= 1e7;
	v = v / 1e7 - m * m;
	assert_float_equal(m, 1.0, 0.005);
	assert_float_equal(v, 1.0, 0.01);
	assert_float_equal((double)counts[0] / 1e7, exp(-1), 0.002);
	(void)ca;
}

static void test_poisson_streams_differ(void **state)
{
	struct vf_pattern p = pat("poisson");
	struct vf_pace a, b;
	uint64_t diff = 0;

	(void)state;
	/* two streams of one run do not send in lockstep */
	vf_pace_start(&a, &p, 0, HZ, 0, 2);
	vf_pace_start(&b, &p, 0, HZ, 1, 2);
	for (uint64_t t = 0; t < HZ / 100; t += HZ / 1000000)
		diff += vf_pace_due(&a, &p, t, HZ, 500000, BIG) != vf_pace_due(&b, &p, t, HZ, 500000, BIG);
	assert_true(diff > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_burst_n_t),
		cmocka_unit_test(test_burst_rate),
		cmocka_unit_test(test_burst_full_bucket),
		cmocka_unit_test(test_exp_distribution),
		cmocka_unit_test(test_poisson),
		cmocka_unit_test(test_poisson_streams_differ),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
