/* Link impairment without DPDK: spec parser, decisions, delay line. */
#include "vf_impair.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vf_ctr.h"

#define KEYS "loss, loss-every, seed, dup, reorder, delay, jitter, rate, limit"

const char *const vf_impair_counter_names[] = {
	"rx", "tx", "dropped_loss", "dropped_overflow", "duplicated", "dup_failed",
	"reordered", "delayed", "flushed", "tx_dropped",
};
_Static_assert(sizeof(vf_impair_counter_names) / sizeof(vf_impair_counter_names[0]) ==
	       VF_IMPAIR_NB_COUNTERS, "a name for every impair counter");

/* ---- parsing ---- */

static int num(const char *s, double *v, const char **rest)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ' || !strchr("0123456789.", *s))
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || !isfinite(*v) || *v < 0)
		return -1;
	*rest = end;
	return 0;
}

static int parse_pct(const char *s, double *out)
{
	const char *rest;
	double v;

	if (num(s, &v, &rest) || (strcmp(rest, "%") && *rest) || v > 100)
		return -1;
	*out = v;
	return 0;
}

static int parse_time(const char *s, uint64_t *ns)
{
	static const struct { const char *sfx; double mul; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	const char *rest;
	double v;

	if (num(s, &v, &rest))
		return -1;
	if (!*rest && v == 0) {
		*ns = 0;
		return 0;
	}
	for (unsigned int i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(rest, units[i].sfx)) {
			double t = round(v * units[i].mul);
			if (t > (double)VF_IMPAIR_TIME_MAX_NS)
				return -1;
			*ns = (uint64_t)t;
			return 0;
		}
	return -1;
}

static int parse_rate(const char *s, uint64_t *rate, bool *bits)
{
	static const struct { const char *sfx; double mul; bool bits; } units[] = {
		{ "", 1, false }, { "pps", 1, false }, { "kpps", 1e3, false }, { "mpps", 1e6, false },
		{ "bit", 1, true }, { "kbit", 1e3, true }, { "mbit", 1e6, true }, { "gbit", 1e9, true },
	};
	const char *rest;
	double v;

	if (num(s, &v, &rest))
		return -1;
	for (unsigned int i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(rest, units[i].sfx)) {
			double r = round(v * units[i].mul);
			if (r > (double)(units[i].bits ? VF_IMPAIR_BITS_MAX : VF_IMPAIR_PPS_MAX) ||
			    (v > 0 && r < 1))
				return -1;
			*rate = (uint64_t)r;
			*bits = r > 0 && units[i].bits;
			return 0;
		}
	return -1;
}

static int parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || !strchr("0123456789", *s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int vf_impair_parse(const char *s, struct vf_impair_spec *sp, char *err, size_t errlen)
{
	struct vf_impair_spec n = { 0 };
	char buf[512], *save = NULL, *kv;
	unsigned int seen = 0;

	if (!s || !*s) {
		snprintf(err, errlen, "empty impair spec: expected none or key=value,... with keys " KEYS);
		return -1;
	}
	if (strlen(s) >= sizeof(buf)) {
		snprintf(err, errlen, "impair spec too long (max %zu characters)", sizeof(buf) - 1);
		return -1;
	}
	if (!strcmp(s, "none")) {
		*sp = n;
		return 0;
	}
	if (s[strlen(s) - 1] == ',' || s[0] == ',' || strstr(s, ",,")) {
		snprintf(err, errlen, "empty key in impair spec '%s': expected key=value,... with keys " KEYS, s);
		return -1;
	}
	strcpy(buf, s);
	for (kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		static const char *const keys[] = {
			"loss", "loss-every", "seed", "dup", "reorder", "delay", "jitter", "rate", "limit",
		};
		const char *expect = NULL;
		char *val = strchr(kv, '=');
		unsigned int k;
		uint64_t u;

		if (val)
			*val++ = '\0';
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!strcmp(kv, keys[k]))
				break;
		if (k == sizeof(keys) / sizeof(keys[0])) {
			snprintf(err, errlen, "unknown impair key '%s': accepted keys are " KEYS, kv);
			return -1;
		}
		if (!val || !*val) {
			snprintf(err, errlen, "impair key '%s' needs a value (%s=...)", kv, kv);
			return -1;
		}
		if (seen & (1u << k)) {
			snprintf(err, errlen, "impair key '%s' given twice", kv);
			return -1;
		}
		seen |= 1u << k;
		switch (k) {
		case 0:
			if (parse_pct(val, &n.loss))
				expect = "a percentage 0..100, e.g. 0.5%";
			break;
		case 1:
			if (parse_uint(val, 0, UINT32_MAX, &n.loss_every))
				expect = "an integer in 0 (off)..4294967295";
			break;
		case 2:
			if (parse_uint(val, 0, UINT64_MAX, &n.seed))
				expect = "an integer in 0..18446744073709551615";
			break;
		case 3:
			if (parse_pct(val, &n.dup))
				expect = "a percentage 0..100, e.g. 1%";
			break;
		case 4:
			if (parse_pct(val, &n.reorder))
				expect = "a percentage 0..100, e.g. 1%";
			break;
		case 5:
		case 6:
			if (parse_time(val, k == 5 ? &n.delay_ns : &n.jitter_ns))
				expect = "a time up to 60s with a unit ns, us, ms or s, e.g. 10ms";
			break;
		case 7:
			if (parse_rate(val, &n.rate, &n.rate_bits))
				expect = "packets/s (N, Npps, Nkpps, Nmpps, up to 1000000000) or "
					 "bits/s (Nbit, Nkbit, Nmbit, Ngbit, up to 1000gbit), 0: off";
			break;
		case 8:
			if (parse_uint(val, 1, VF_IMPAIR_LIMIT_MAX, &u))
				expect = "an integer in 1..1048576 (packets)";
			else
				n.limit = (uint32_t)u;
			break;
		}
		if (expect) {
			snprintf(err, errlen, "bad value '%s' for impair key '%s': expected %s", val, kv, expect);
			return -1;
		}
	}
	*sp = n;
	return 0;
}

static void add(char *buf, size_t len, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*off >= len)
		return;
	if (*off)
		buf[(*off)++] = ',';
	buf[*off] = '\0';
	va_start(ap, fmt);
	k = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (k > 0)
		*off += (size_t)k;
	if (*off >= len)
		*off = len - 1;
}

static void fmt_time(char *b, size_t len, uint64_t ns)
{
	if (ns % 1000000000u == 0)
		snprintf(b, len, "%" PRIu64 "s", ns / 1000000000u);
	else if (ns % 1000000 == 0)
		snprintf(b, len, "%" PRIu64 "ms", ns / 1000000);
	else if (ns % 1000 == 0)
		snprintf(b, len, "%" PRIu64 "us", ns / 1000);
	else
		snprintf(b, len, "%" PRIu64 "ns", ns);
}

void vf_impair_format(const struct vf_impair_spec *sp, char *buf, size_t len)
{
	size_t off = 0;
	char t[32];

	if (!len)
		return;
	buf[0] = '\0';
	if (sp->loss > 0)
		add(buf, len, &off, "loss=%.10g%%", sp->loss);
	if (sp->loss_every)
		add(buf, len, &off, "loss-every=%" PRIu64, sp->loss_every);
	if (sp->dup > 0)
		add(buf, len, &off, "dup=%.10g%%", sp->dup);
	if (sp->reorder > 0)
		add(buf, len, &off, "reorder=%.10g%%", sp->reorder);
	if (sp->loss > 0 || sp->dup > 0 || sp->reorder > 0 || sp->jitter_ns || sp->seed)
		add(buf, len, &off, "seed=%" PRIu64, sp->seed);
	if (sp->delay_ns) {
		fmt_time(t, sizeof(t), sp->delay_ns);
		add(buf, len, &off, "delay=%s", t);
	}
	if (sp->jitter_ns) {
		fmt_time(t, sizeof(t), sp->jitter_ns);
		add(buf, len, &off, "jitter=%s", t);
	}
	if (sp->rate)
		add(buf, len, &off, "rate=%" PRIu64 "%s", sp->rate, sp->rate_bits ? "bit" : "pps");
	if (sp->limit)
		add(buf, len, &off, "limit=%" PRIu32, sp->limit);
	if (!off)
		snprintf(buf, len, "none");
}

bool vf_impair_uses_line(const struct vf_impair_spec *sp)
{
	return sp->delay_ns || sp->jitter_ns || sp->rate;
}

uint32_t vf_impair_limit(const struct vf_impair_spec *sp)
{
	return sp->limit ? sp->limit : VF_IMPAIR_LIMIT_DEFAULT;
}

uint32_t vf_impair_ring_entries(const struct vf_impair_spec *sp)
{
	uint32_t lim = vf_impair_limit(sp), n = 1;

	if (!vf_impair_uses_line(sp))
		return 0;
	while (n < lim)
		n <<= 1;
	return n;
}

/* ---- decisions ---- */

static inline uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t pct_thr(double pct)
{
	return (uint64_t)llround(pct / 100.0 * 4294967296.0);
}

static uint64_t ns_to_cyc(uint64_t ns, uint64_t hz)
{
	return (uint64_t)((unsigned __int128)ns * hz / 1000000000u);
}

void vf_impair_init(struct vf_impair *im, const struct vf_impair_spec *sp, unsigned int stream_id,
		    uint64_t hz, struct vf_impair_ent *ring)
{
	uint32_t n = vf_impair_ring_entries(sp);
	uint64_t s;

	memset(im, 0, sizeof(*im));
	im->loss_thr = pct_thr(sp->loss);
	im->dup_thr = pct_thr(sp->dup);
	im->reorder_thr = pct_thr(sp->reorder);
	im->loss_every = sp->loss_every;
	im->hz = hz;
	im->delay_cyc = ns_to_cyc(sp->delay_ns, hz);
	im->jitter_cyc = ns_to_cyc(sp->jitter_ns, hz);
	im->rate = sp->rate;
	im->rate_bits = sp->rate_bits;
	im->line_on = n && ring;
	im->limit = vf_impair_limit(sp);
	im->mask = n ? n - 1 : 0;
	im->ring = ring;
	/* A generator per kind of decision, all from the seed and the stream
	 * id: which packets are lost does not depend on dup, reorder or the
	 * line, nor jitter on the decisions. */
	s = sp->seed ^ ((uint64_t)stream_id * 0xd1342543de82ef95ull);
	im->prng_loss = splitmix64(&s);
	im->prng_dup = splitmix64(&s);
	im->prng_reorder = splitmix64(&s);
	im->prng_jitter = splitmix64(&s);
}

unsigned int vf_impair_decide(struct vf_impair *im)
{
	unsigned int f = 0;

	im->seen++;
	if (im->loss_thr && (splitmix64(&im->prng_loss) >> 32) < im->loss_thr)
		f |= VF_IMPAIR_LOSS;
	if (im->loss_every && im->seen % im->loss_every == 0)
		f |= VF_IMPAIR_LOSS;
	if (im->dup_thr && (splitmix64(&im->prng_dup) >> 32) < im->dup_thr)
		f |= VF_IMPAIR_DUP;
	if (im->reorder_thr && (splitmix64(&im->prng_reorder) >> 32) < im->reorder_thr)
		f |= VF_IMPAIR_REORDER;
	return f;
}

/* ---- the line ---- */

static void enqueue(struct vf_impair *im, void *p, uint64_t now, const struct vf_impair_ops *ops,
		    void **drop, unsigned int *nd)
{
	uint64_t t = now;

	if (im->tail - im->head >= im->limit) {
		drop[(*nd)++] = p;
		vf_ctr_add(im->c.dropped_overflow, 1);
		return;
	}
	if (im->rate) {
		/* Serialization at the rate: a packet leaves when the ones
		 * before it and itself have been "sent"; exact in integers
		 * (cycles plus a remainder in 1/rate cycles). */
		uint64_t cost = im->rate_bits ? (uint64_t)(ops && ops->len ? ops->len(p) : 0) * 8 : 1;
		uint64_t w = cost * im->hz;

		if (im->rate_t < now) {
			im->rate_t = now;
			im->rate_rem = 0;
		}
		im->rate_t += w / im->rate;
		im->rate_rem += w % im->rate;
		if (im->rate_rem >= im->rate) {
			im->rate_t++;
			im->rate_rem -= im->rate;
		}
		t = im->rate_t;
	}
	t += im->delay_cyc;
	if (im->jitter_cyc)
		t += (uint64_t)(((unsigned __int128)splitmix64(&im->prng_jitter) *
				 (im->jitter_cyc + 1)) >> 64);
	/* FIFO: never before the packet ahead, so jitter does not reorder. */
	if (t < im->last_release)
		t = im->last_release;
	im->last_release = t;
	im->ring[im->tail & im->mask] = (struct vf_impair_ent){ p, t };
	im->tail++;
	vf_ctr_add(im->c.delayed, 1);
}

static inline void emit(struct vf_impair *im, void *p, uint64_t now, const struct vf_impair_ops *ops,
			void **out, unsigned int *no, void **drop, unsigned int *nd)
{
	if (im->line_on)
		enqueue(im, p, now, ops, drop, nd);
	else
		out[(*no)++] = p;
}

unsigned int vf_impair_input(struct vf_impair *im, void **pkts, unsigned int n, uint64_t now,
			     const struct vf_impair_ops *ops, void **out, void **drop,
			     unsigned int *ndrop)
{
	unsigned int no = 0, nd = 0;

	vf_ctr_add(im->c.rx, n);
	for (unsigned int i = 0; i < n; i++) {
		unsigned int f = vf_impair_decide(im), nu = 1;
		void *unit[2] = { pkts[i], NULL };

		if (f & VF_IMPAIR_LOSS) {
			drop[nd++] = pkts[i];
			vf_ctr_add(im->c.dropped_loss, 1);
			continue;
		}
		if (f & VF_IMPAIR_DUP) {
			unit[1] = ops && ops->copy ? ops->copy(pkts[i], ops->ctx) : NULL;
			if (unit[1]) {
				nu = 2;
				vf_ctr_add(im->c.duplicated, 1);
			} else {
				vf_ctr_add(im->c.dup_failed, 1);
			}
		}
		/* Reorder: hold this one (with its copy) until the next passes. */
		if ((f & VF_IMPAIR_REORDER) && !im->nheld) {
			im->held[0] = unit[0];
			im->held[1] = unit[1];
			im->nheld = nu;
			continue;
		}
		for (unsigned int u = 0; u < nu; u++)
			emit(im, unit[u], now, ops, out, &no, drop, &nd);
		if (im->nheld) {
			for (unsigned int u = 0; u < im->nheld; u++)
				emit(im, im->held[u], now, ops, out, &no, drop, &nd);
			im->nheld = 0;
			vf_ctr_add(im->c.reordered, 1);
		}
	}
	*ndrop = nd;
	return no;
}

unsigned int vf_impair_due(const struct vf_impair *im, uint64_t now, void **out, unsigned int max)
{
	unsigned int k = 0;

	for (uint32_t i = im->head; i != im->tail && k < max; i++) {
		const struct vf_impair_ent *e = &im->ring[i & im->mask];

		if (e->t > now)
			break;
		out[k++] = e->pkt;
	}
	return k;
}

void vf_impair_sent(struct vf_impair *im, unsigned int k)
{
	im->head += k;
	vf_ctr_add(im->c.tx, k);
}

unsigned int vf_impair_flush(struct vf_impair *im, void **out, unsigned int max)
{
	unsigned int k = 0;

	while (im->nheld && k < max)
		out[k++] = im->held[--im->nheld];
	while (im->head != im->tail && k < max)
		out[k++] = im->ring[im->head++ & im->mask].pkt;
	vf_ctr_add(im->c.flushed, k);
	return k;
}
