#include "vf_hist.h"

#include <math.h>
#include <string.h>

void vf_hist_reset(struct vf_hist *h)
{
	for (unsigned int i = 0; i < VF_HIST_NBUCKETS; i++)
		vf_ctr_set(h->b[i], 0);
	vf_ctr_set(h->count, 0);
	vf_ctr_set(h->sum, 0);
	vf_ctr_set(h->max, 0);
	vf_ctr_set(h->overflow, 0);
	vf_ctr_set(h->min, UINT64_MAX);
}

void vf_hist_merge(struct vf_hist *dst, const struct vf_hist *src)
{
	uint64_t min = vf_ctr_read(src->min), max = vf_ctr_read(src->max);

	if (!vf_ctr_read(src->count))
		return;
	for (unsigned int i = 0; i < VF_HIST_NBUCKETS; i++)
		dst->b[i] += vf_ctr_read(src->b[i]);
	if (!dst->count || min < dst->min)
		dst->min = min;
	if (max > dst->max)
		dst->max = max;
	dst->count += vf_ctr_read(src->count);
	dst->sum += vf_ctr_read(src->sum);
	dst->overflow += vf_ctr_read(src->overflow);
}

uint64_t vf_hist_bucket_low(unsigned int i)
{
	unsigned int shift;

	if (i < 128)
		return i;
	shift = (i - 128) / 64 + 1;
	return (uint64_t)(64 + (i - 128) % 64) << shift;
}

uint64_t vf_hist_bucket_high(unsigned int i)
{
	if (i < 128)
		return i;
	return vf_hist_bucket_low(i) + (1ull << ((i - 128) / 64 + 1)) - 1;
}

static uint64_t clamp(const struct vf_hist *h, uint64_t v)
{
	if (v < h->min)
		return h->min;
	if (v > h->max)
		return h->max;
	return v;
}

uint64_t vf_hist_percentile(const struct vf_hist *h, double pct)
{
	uint64_t want, seen = 0;

	if (!h->count)
		return 0;
	if (pct <= 0)
		return h->min;
	if (pct >= 100)
		return h->max;
	want = (uint64_t)ceil(pct / 100.0 * (double)h->count);
	if (want < 1)
		want = 1;
	for (unsigned int i = 0; i < VF_HIST_NBUCKETS; i++) {
		seen += h->b[i];
		if (seen >= want)
			return clamp(h, (vf_hist_bucket_low(i) + vf_hist_bucket_high(i) + 1) / 2);
	}
	return h->max;
}

double vf_hist_mean(const struct vf_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}

double vf_hist_stddev(const struct vf_hist *h)
{
	double mean = vf_hist_mean(h), acc = 0;

	if (h->count < 2)
		return 0.0;
	for (unsigned int i = 0; i < VF_HIST_NBUCKETS; i++) {
		double mid, d;

		if (!h->b[i])
			continue;
		mid = ((double)vf_hist_bucket_low(i) + (double)vf_hist_bucket_high(i)) / 2;
		d = mid - mean;
		acc += d * d * (double)h->b[i];
	}
	return sqrt(acc / (double)h->count);
}

int vf_hist_write_hdr(const struct vf_hist *h, FILE *f, double scale)
{
	uint64_t seen = 0;
	unsigned int nb = 0;

	fprintf(f, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount",
		"1/(1-Percentile)");
	for (unsigned int i = 0; i < VF_HIST_NBUCKETS && h->count; i++) {
		double p, v;

		if (!h->b[i])
			continue;
		nb++;
		seen += h->b[i];
		p = (double)seen / (double)h->count;
		/* HdrHistogram prints each bucket's highest equivalent value. */
		v = (double)clamp(h, vf_hist_bucket_high(i)) / scale;
		if (seen < h->count)
			fprintf(f, "%12.3f %2.12f %10llu %14.2f\n", v, p,
				(unsigned long long)seen, 1.0 / (1.0 - p));
		else
			fprintf(f, "%12.3f %2.12f %10llu\n", v, p, (unsigned long long)seen);
	}
	fprintf(f, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n",
		vf_hist_mean(h) / scale, vf_hist_stddev(h) / scale);
	fprintf(f, "#[Max     = %12.3f, Total count    = %12llu]\n",
		(double)(h->count ? h->max : 0) / scale, (unsigned long long)h->count);
	fprintf(f, "#[Buckets = %12u, SubBuckets     = %12u]\n", nb, 128u);
	return ferror(f) ? -1 : 0;
}
