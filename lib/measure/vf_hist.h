/* A fixed-size log-linear latency histogram (HdrHistogram's layout with 64
 * linear sub-buckets per power of two): values below 128 are exact, above
 * that each bucket is 1/64 of its power of two wide, so the midpoint that
 * is reported is within 1/128 (0.79 %) of every value in the bucket, from
 * 1 ns to 2^34 ns (17 s).  Larger values land in the last bucket and are
 * counted in `overflow`.  Adding is a few instructions, no allocation, no
 * lock: one writer per histogram (one per forwarding core), merged on read
 * by another thread while it runs, so every field is a single-writer
 * counter (vf_ctr.h: plain movs, no race in C terms). */
#ifndef VF_HIST_H
#define VF_HIST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vf_ctr.h"

#define VF_HIST_SUB_BITS 6			/* 64 sub-buckets per octave */
#define VF_HIST_MAX_SHIFT 27			/* top octave: 2^33 .. 2^34 */
#define VF_HIST_NBUCKETS (128 + VF_HIST_MAX_SHIFT * 64)
#define VF_HIST_MAX_VALUE ((1ull << 34) - 1)

struct vf_hist {
	uint64_t count;
	uint64_t sum;		/* of the recorded values (ns) */
	uint64_t min, max;	/* min is UINT64_MAX while empty */
	uint64_t overflow;	/* values above VF_HIST_MAX_VALUE (clamped) */
	uint64_t b[VF_HIST_NBUCKETS];
};

static inline unsigned int vf_hist_index(uint64_t v)
{
	unsigned int msb, shift;

	if (v < 128)
		return (unsigned int)v;
	if (v > VF_HIST_MAX_VALUE)
		v = VF_HIST_MAX_VALUE;
	msb = 63u - (unsigned int)__builtin_clzll(v);
	shift = msb - VF_HIST_SUB_BITS;
	return 128u + (shift - 1u) * 64u + (unsigned int)((v >> shift) - 64u);
}

/* n values of v at once: what a burst of frames with one latency costs. */
static inline void vf_hist_add_n(struct vf_hist *h, uint64_t v, uint64_t n)
{
	if (__builtin_expect(v > VF_HIST_MAX_VALUE, 0)) {
		vf_ctr_add(h->overflow, n);
		v = VF_HIST_MAX_VALUE;
	}
	vf_ctr_add(h->b[vf_hist_index(v)], n);
	vf_ctr_add(h->count, n);
	vf_ctr_add(h->sum, v * n);
	if (v < h->min)
		vf_ctr_set(h->min, v);
	if (v > h->max)
		vf_ctr_set(h->max, v);
}

static inline void vf_hist_add(struct vf_hist *h, uint64_t v)
{
	vf_hist_add_n(h, v, 1);
}

/* Both may run beside a reader on another thread (field by field). */
void vf_hist_reset(struct vf_hist *h);
/* dst += src (dst may be empty; src may be written meanwhile, a burst
 * old at worst). */
void vf_hist_merge(struct vf_hist *dst, const struct vf_hist *src);
/* The lowest and highest value that land in bucket i. */
uint64_t vf_hist_bucket_low(unsigned int i);
uint64_t vf_hist_bucket_high(unsigned int i);
/* The value at percentile pct (0..100): the midpoint of the bucket that
 * holds the ceil(pct/100 * count)-th value, clamped to [min, max].
 * 0 when empty. */
uint64_t vf_hist_percentile(const struct vf_hist *h, double pct);
double vf_hist_mean(const struct vf_hist *h);
double vf_hist_stddev(const struct vf_hist *h);
/* HdrHistogram's percentile-distribution text (as its
 * outputPercentileDistribution prints it), values divided by scale (1000:
 * microseconds), one line per non-empty bucket.  Returns 0 or -1 (I/O). */
int vf_hist_write_hdr(const struct vf_hist *h, FILE *f, double scale);

#endif
