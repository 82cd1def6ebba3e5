/* Traffic patterns of the generators (--pattern): when a stream's frames
 * fall due.  The constant pattern is the token bucket of gen.c; the others
 * are schedules of arrivals that credit that bucket, so every generating
 * mode (txonly, flowgen, measure, the search's trials) paces the same way
 * and the bucket's depth still bounds a catch-up.
 *
 * Pure arithmetic on TSC values: no clock is read here, so the unit tests
 * drive it with simulated time. */
#ifndef VF_PACE_H
#define VF_PACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum vf_pattern_kind {
	VF_PATTERN_CONSTANT,	/* evenly spread (the default) */
	VF_PATTERN_BURST,	/* N frames back to back, then a pause */
	VF_PATTERN_POISSON,	/* exponential inter-arrival times, seeded */
};

/* As given by --pattern; the counts and the rate are of all generating
 * streams together, as --rate's are. */
struct vf_pattern {
	enum vf_pattern_kind kind;
	uint32_t burst_n;	/* burst: frames per burst */
	uint64_t burst_ns;	/* burst: period; 0: N / --rate */
	uint64_t seed;		/* poisson */
};

#define VF_PATTERN_MAX_BURST  (1u << 20)
#define VF_PATTERN_MAX_PERIOD 1000000000ull	/* 1 s: T * tsc_hz fits 64 bits */
#define VF_PATTERN_FORMS "constant, burst:N/T (e.g. burst:64/1ms), burst:N (with --rate) or poisson[:SEED]"

/* constant | burst:N/T (T a number with ns, us, ms or s) | burst:N |
 * poisson | poisson:SEED.  0, or -1 with a message in err. */
int vf_pattern_parse(const char *s, struct vf_pattern *p, char *err, size_t errlen);
/* Mean packets per second of burst:N/T (0 for the other patterns). */
double vf_pattern_pps(const struct vf_pattern *p);

/* One stream's place in its schedule. */
struct vf_pace {
	uint64_t next_tsc, rem;	/* burst: when the next burst is due, and
				 * the fraction of a cycle, over den */
	double next;		/* poisson: when the next frame is due */
	uint64_t rng;		/* poisson: splitmix64 state */
	uint32_t n;		/* burst: this stream's share of N */
	bool started;
};

/* A stream's schedule starts at now.  Stream idx of nb takes its share of
 * a burst (N split as evenly as it goes, the first streams one more). */
void vf_pace_start(struct vf_pace *p, const struct vf_pattern *pat, uint64_t now, uint64_t hz,
		   unsigned int idx, unsigned int nb);
/* Frames due by now, at most max (the room in the bucket); a schedule that
 * fell further behind than max skips the rest, as a full bucket drops its
 * credit.  rate: this stream's mean packets/s (read for poisson and for
 * burst:N; burst:N/T keeps its own period). */
uint64_t vf_pace_due(struct vf_pace *p, const struct vf_pattern *pat, uint64_t now, uint64_t hz,
		     uint64_t rate, uint64_t max);

/* An exponentially distributed number with mean 1 (exactly, up to double
 * rounding), from the state *rng; no libm call: a table of the inverse
 * distribution, interpolated, with the tail drawn again (the exponential
 * forgets). */
double vf_pace_exp(uint64_t *rng);
/* splitmix64: the next 64 random bits of *state. */
static inline uint64_t vf_pace_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif
