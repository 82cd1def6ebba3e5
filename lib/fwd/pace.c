/* Burst and Poisson schedules of the generators (vf_pace.h). */
#include "vf_pace.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vf_parse.h"

/* The inverse of the exponential distribution at i / EXP_N, scaled so the
 * interpolated distribution's mean is 1.  4096 cells: the straight line
 * between two points overestimates the convex curve by under 1e-4 of the
 * mean, which the scaling takes out. */
#define EXP_BITS 12
#define EXP_N (1u << EXP_BITS)
static double exp_q[EXP_N + 1];

__attribute__((constructor)) static void exp_table(void)
{
	double sum = 0, m;

	for (unsigned int i = 0; i < EXP_N; i++)
		exp_q[i] = -log1p(-(double)i / EXP_N);
	/* mean m: the cells but the last are straight lines; the last is
	 * q[N-1] plus a fresh draw (mean m again) */
	for (unsigned int i = 0; i + 1 < EXP_N; i++)
		sum += (exp_q[i] + exp_q[i + 1]) / 2;
	sum += exp_q[EXP_N - 1];
	m = sum / (EXP_N - 1);
	for (unsigned int i = 0; i < EXP_N; i++)
		exp_q[i] /= m;
	exp_q[EXP_N] = exp_q[EXP_N - 1];	/* never interpolated to */
}

double vf_pace_exp(uint64_t *rng)
{
	double x = 0;

	for (;;) {
		uint64_t r = vf_pace_rand(rng);
		unsigned int i = (unsigned int)(r >> (64 - EXP_BITS));
		double f = (double)(r & ((1ull << (64 - EXP_BITS)) - 1)) * 0x1p-52;

		if (i + 1 < EXP_N)
			return x + exp_q[i] + f * (exp_q[i + 1] - exp_q[i]);
		x += exp_q[EXP_N - 1];	/* 1 in 4096: the tail, memoryless */
	}
}

static int parse_period(const char *s, uint64_t *ns)
{
	static const struct { const char *u; double mult; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char num[32];
	size_t n = strspn(s, "0123456789.");

	if (n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, s, n);
	num[n] = '\0';
	for (unsigned int i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		double v;

		if (strcmp(s + n, units[i].u))
			continue;
		if (vf_parse_double(num, 0, 1e12, &v))
			return -1;
		v = round(v * units[i].mult);
		if (v < 1 || v > (double)VF_PATTERN_MAX_PERIOD)
			return -1;
		*ns = (uint64_t)v;
		return 0;
	}
	return -1;
}

int vf_pattern_parse(const char *s, struct vf_pattern *p, char *err, size_t errlen)
{
	struct vf_pattern r = { .kind = VF_PATTERN_CONSTANT, .seed = 1 };

	if (!strcmp(s, "constant")) {
		/* r as it is */
	} else if (!strcmp(s, "poisson") || !strncmp(s, "poisson:", 8)) {
		r.kind = VF_PATTERN_POISSON;
		if (s[7] && vf_parse_u64(s + 8, 0, UINT64_MAX, &r.seed)) {
			snprintf(err, errlen, "bad poisson seed '%s': expected an integer", s + 8);
			return -1;
		}
	} else if (!strncmp(s, "burst:", 6)) {
		char num[24];
		const char *slash = strchr(s + 6, '/');
		size_t n = slash ? (size_t)(slash - s - 6) : strlen(s + 6);
		uint64_t v;

		r.kind = VF_PATTERN_BURST;
		if (n == 0 || n >= sizeof(num))
			goto bad_burst;
		memcpy(num, s + 6, n);
		num[n] = '\0';
		if (vf_parse_u64(num, 1, VF_PATTERN_MAX_BURST, &v))
			goto bad_burst;
		r.burst_n = (uint32_t)v;
		if (slash && parse_period(slash + 1, &r.burst_ns))
			goto bad_burst;
	} else {
		snprintf(err, errlen, "'%s' is not a pattern: expected %s", s, VF_PATTERN_FORMS);
		return -1;
	}
	*p = r;
	return 0;
bad_burst:
	snprintf(err, errlen, "bad burst '%s': expected burst:N or burst:N/T with N in 1..%u and T "
		 "in 1ns..1s with a unit (ns, us, ms, s), e.g. burst:64/1ms", s, VF_PATTERN_MAX_BURST);
	return -1;
}

double vf_pattern_pps(const struct vf_pattern *p)
{
	if (p->kind != VF_PATTERN_BURST || !p->burst_ns)
		return 0;
	return (double)p->burst_n * 1e9 / (double)p->burst_ns;
}

void vf_pace_start(struct vf_pace *p, const struct vf_pattern *pat, uint64_t now, uint64_t hz,
		   unsigned int idx, unsigned int nb)
{
	(void)hz;
	memset(p, 0, sizeof(*p));
	if (!nb)
		nb = 1;
	p->n = pat->burst_n / nb + (idx < pat->burst_n % nb);
	p->next_tsc = now;		/* a burst goes at once */
	p->rng = pat->seed ^ (0x632be59bd9b4e019ull * (idx + 1));
	vf_pace_rand(&p->rng);
	p->next = (double)now;
	p->started = true;
}

/* The burst schedule: the k-th burst is due at start + k * num / den
 * cycles, kept exact with the remainder, so its mean never drifts. */
static uint64_t burst_due(struct vf_pace *p, const struct vf_pattern *pat, uint64_t now,
			  uint64_t hz, uint64_t rate, uint64_t max)
{
	uint64_t num, den, got = 0, n = p->n ? p->n : 1;

	if (pat->burst_ns) {
		if (!p->n)		/* N smaller than the streams: none for this one */
			return 0;
		num = pat->burst_ns * hz;
		den = 1000000000ull;
	} else {
		num = n * hz;
		den = rate;
	}
	while (p->next_tsc <= now) {
		if (got + n > max) {
			/* the bucket is full: what it cannot hold is
			 * lost, and the schedule goes on from now */
			p->next_tsc = now + num / den;
			p->rem = 0;
			break;
		}
		got += n;
		p->next_tsc += num / den;
		p->rem += num % den;
		if (p->rem >= den) {
			p->next_tsc += p->rem / den;
			p->rem %= den;
		}
	}
	return got;
}

static uint64_t poisson_due(struct vf_pace *p, uint64_t now, uint64_t hz, uint64_t rate,
			    uint64_t max)
{
	double mean = (double)hz / (double)rate, t = (double)now;
	uint64_t got = 0;

	while (p->next <= t) {
		if (got == max) {
			p->next = t + mean * vf_pace_exp(&p->rng);
			break;
		}
		got++;
		p->next += mean * vf_pace_exp(&p->rng);
	}
	return got;
}

uint64_t vf_pace_due(struct vf_pace *p, const struct vf_pattern *pat, uint64_t now, uint64_t hz,
		     uint64_t rate, uint64_t max)
{
	if (!rate || !hz)
		return 0;
	if (!p->started)
		vf_pace_start(p, pat, now, hz, 0, 1);
	if (pat->kind == VF_PATTERN_BURST)
		return burst_due(p, pat, now, hz, rate, max);
	if (pat->kind == VF_PATTERN_POISSON)
		return poisson_due(p, now, hz, rate, max);
	return 0;
}
