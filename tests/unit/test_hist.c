/* The latency histogram: relative error against exact percentiles of
 * known distributions, bucket edges, merging, extremes, the HdrHistogram
 * text output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "vf_hist.h"

static struct vf_hist h, h2;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The exact percentile: the ceil(p/100 * n)-th smallest value. */
static uint64_t exact(const uint64_t *sorted, size_t n, double p)
{
	size_t k = (size_t)ceil(p / 100.0 * (double)n);
	if (k < 1)
		k = 1;
	return sorted[k - 1];
}

static uint64_t rng = 88172645463325252ull;
static uint64_t xs(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void check_dist(uint64_t *v, size_t n)
{
	static const double pcts[] = { 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99 };

	vf_hist_reset(&h);
	for (size_t i = 0; i < n; i++)
		vf_hist_add(&h, v[i]);
	qsort(v, n, sizeof(v[0]), cmp_u64);
	assert_int_equal(h.count, n);
	assert_int_equal(h.min, v[0]);
	assert_int_equal(h.max, v[n - 1]);
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		double e = (double)exact(v, n, pcts[i]);
		double g = (double)vf_hist_percentile(&h, pcts[i]);
		if (fabs(g - e) > 0.01 * e + 0.5) {
			fprintf(stderr, "p%g: exact %.0f, histogram %.0f\n", pcts[i], e, g);
			fail();
		}
	}
}

static void test_uniform_and_lognormal(void **state)
{
	static uint64_t v[200000];
	size_t n = sizeof(v) / sizeof(v[0]);

	/* uniform 100 ns .. 10 s */
	for (size_t i = 0; i < n; i++)
		v[i] = 100 + xs() % (10000000000ull - 100);
	check_dist(v, n);
	/* log-uniform over 100 ns .. 10 s: every octave populated */
	for (size_t i = 0; i < n; i++)
		v[i] = (uint64_t)(100.0 * pow(1e8, (double)(xs() % 1000000) / 1e6));
	check_dist(v, n);
	/* a narrow peak with a long tail, as real latency is */
	for (size_t i = 0; i < n; i++)
		v[i] = 2000 + xs() % 300 + (i % 1000 == 0 ? xs() % 5000000 : 0);
	check_dist(v, n);
}

static void test_every_value_within_bound(void **state)
{
	/* every value maps into a bucket whose midpoint is within 1/128 of it */
	for (uint64_t v = 1; v < VF_HIST_MAX_VALUE; v = v + 1 + v / 97) {
		unsigned int i = vf_hist_index(v);
		uint64_t lo = vf_hist_bucket_low(i), hi = vf_hist_bucket_high(i);
		double mid = ((double)lo + (double)hi + 1) / 2;

		assert_true(i < VF_HIST_NBUCKETS);
		assert_true(lo <= v && v <= hi);
		assert_true(fabs(mid - (double)v) <= (double)v / 128.0 + 0.5);
	}
	/* buckets tile the range without gaps */
	for (unsigned int i = 1; i < VF_HIST_NBUCKETS; i++)
		assert_int_equal(vf_hist_bucket_low(i), vf_hist_bucket_high(i - 1) + 1);
	assert_int_equal(vf_hist_bucket_high(VF_HIST_NBUCKETS - 1), VF_HIST_MAX_VALUE);
}

static void test_extremes(void **state)
{
	vf_hist_reset(&h);
	assert_int_equal(vf_hist_percentile(&h, 50), 0);
	vf_hist_add(&h, 0);
	vf_hist_add(&h, UINT64_MAX);
	vf_hist_add(&h, VF_HIST_MAX_VALUE + 1);
	assert_int_equal(h.count, 3);
	assert_int_equal(h.overflow, 2);
	assert_int_equal(h.min, 0);
	assert_int_equal(h.max, VF_HIST_MAX_VALUE);
	assert_int_equal(vf_hist_percentile(&h, 0), 0);
	assert_int_equal(vf_hist_percentile(&h, 100), VF_HIST_MAX_VALUE);
	/* exact below 128 */
	vf_hist_reset(&h);
	for (uint64_t v = 0; v < 128; v++)
		vf_hist_add(&h, v);
	assert_int_equal(vf_hist_percentile(&h, 50), 63);
	assert_int_equal(h.b[127], 1);
}

static void test_merge(void **state)
{
	static uint64_t v[50000];
	size_t n = sizeof(v) / sizeof(v[0]);
	static struct vf_hist all;

	vf_hist_reset(&h);
	vf_hist_reset(&h2);
	vf_hist_reset(&all);
	for (size_t i = 0; i < n; i++) {
		v[i] = 500 + xs() % 1000000;
		vf_hist_add(i % 3 ? &h : &h2, v[i]);
		vf_hist_add(&all, v[i]);
	}
	vf_hist_merge(&h, &h2);
	assert_memory_equal(h.b, all.b, sizeof(all.b));
	assert_int_equal(h.count, all.count);
	assert_int_equal(h.sum, all.sum);
	assert_int_equal(h.min, all.min);
	assert_int_equal(h.max, all.max);
	/* merging into an empty one copies min */
	vf_hist_reset(&h2);
	vf_hist_merge(&h2, &all);
	assert_int_equal(h2.min, all.min);
	/* an empty source changes nothing */
	vf_hist_reset(&h2);
	vf_hist_merge(&all, &h2);
	assert_int_equal(all.count, n);
}

static void test_hdr_text(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned long long last = 0;
	double lastp = -1;
	int lines = 0;

	vf_hist_reset(&h);
	for (uint64_t v = 1000; v < 3000; v++)
		vf_hist_add(&h, v);
	assert_int_equal(vf_hist_write_hdr(&h, f, 1000.0), 0);
	fclose(f);
	assert_non_null(strstr(buf, "Value     Percentile TotalCount 1/(1-Percentile)"));
	assert_non_null(strstr(buf, "#[Max     =        2.999, Total count    =         2000]"));
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n")) {
		double val, p;
		unsigned long long c;
		if (l[0] == '#' || sscanf(l, "%lf %lf %llu", &val, &p, &c) != 3)
			continue;
		assert_true(p > lastp && c > last);
		lastp = p;
		last = c;
		lines++;
	}
	assert_int_equal(last, 2000);
	assert_true(lastp == 1.0);
	assert_true(lines > 10);
	free(buf);
}

/* n values at once is n single adds, overflow included. */
static void test_add_n(void **state)
{
	static struct vf_hist a, b;
	static const uint64_t v[] = { 0, 5, 127, 128, 1000, 123456, VF_HIST_MAX_VALUE,
				      VF_HIST_MAX_VALUE + 1, 3 };
	static const uint64_t n[] = { 1, 32, 2, 7, 1, 31, 3, 4, 256 };

	vf_hist_reset(&a);
	vf_hist_reset(&b);
	for (unsigned int i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		vf_hist_add_n(&a, v[i], n[i]);
		for (uint64_t k = 0; k < n[i]; k++)
			vf_hist_add(&b, v[i]);
		assert_memory_equal(&a, &b, sizeof(a));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uniform_and_lognormal),
		cmocka_unit_test(test_every_value_within_bound),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_hdr_text),
		cmocka_unit_test(test_add_n),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
