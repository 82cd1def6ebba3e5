/* The impair mode's core without DPDK: spec parsing, the per-packet
 * decisions and the delay line, with fake packets (small integers cast to
 * pointers) and a fake clock (hz = 1e9: a cycle is a nanosecond). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vf_impair.h"

#define HZ 1000000000ull
#define COPY_BIT ((uintptr_t)1 << 40)
#define P(i) ((void *)(uintptr_t)(i))
#define ID(p) ((uintptr_t)(p))

static int copies_left = -1;	/* -1: unlimited */

static void *fake_copy(void *pkt, void *ctx)
{
	(void)ctx;
	if (copies_left == 0)
		return NULL;
	if (copies_left > 0)
		copies_left--;
	return (void *)(ID(pkt) | COPY_BIT);
}

static uint32_t fake_len(const void *pkt)
{
	(void)pkt;
	return 125;	/* 1000 bits */
}

static const struct vf_impair_ops ops = { fake_copy, fake_len, NULL };

struct line {
	struct vf_impair im;
	struct vf_impair_ent *ring;
};

static void line_init(struct line *l, const char *spec, unsigned int stream)
{
	struct vf_impair_spec sp;
	char err[256];
	uint32_t n;

	assert_int_equal(vf_impair_parse(spec, &sp, err, sizeof(err)), 0);
	n = vf_impair_ring_entries(&sp);
	l->ring = n ? calloc(n, sizeof(*l->ring)) : NULL;
	vf_impair_init(&l->im, &sp, stream, HZ, l->ring);
}

static void line_fini(struct line *l)
{
	free(l->ring);
}

/* Feeds packets first..first+n-1 in one burst; returns the bypass output. */
static unsigned int feed(struct line *l, uintptr_t first, unsigned int n, uint64_t now,
			 void **out, unsigned int *ndrop, void **drop)
{
	void *pkts[512];

	for (unsigned int i = 0; i < n; i++)
		pkts[i] = P(first + i);
	return vf_impair_input(&l->im, pkts, n, now, &ops, out, drop, ndrop);
}

static void parse_ok(const char *s, struct vf_impair_spec *sp)
{
	char err[256] = "";

	if (vf_impair_parse(s, sp, err, sizeof(err)))
		fail_msg("'%s' rejected: %s", s, err);
}

static void parse_bad(const char *s, const char *want1, const char *want2)
{
	struct vf_impair_spec sp = { .loss = 42 };
	char err[256] = "";

	if (vf_impair_parse(s, &sp, err, sizeof(err)) == 0)
		fail_msg("'%s' accepted", s);
	assert_non_null(strstr(err, want1));
	if (want2)
		assert_non_null(strstr(err, want2));
	assert_null(strchr(err, '\n'));
	assert_true(sp.loss == 42);	/* untouched on error */
}

static void test_parse_good(void **state)
{
	struct vf_impair_spec sp;
	char buf[512];

	(void)state;
	parse_ok("loss=1%,seed=7", &sp);
	assert_true(sp.loss == 1.0 && sp.seed == 7 && !vf_impair_uses_line(&sp));
	parse_ok("loss=0.5", &sp);
	assert_true(sp.loss == 0.5 && sp.seed == 0);
	parse_ok("loss=100%,dup=0%,reorder=12.5%", &sp);
	assert_true(sp.loss == 100 && sp.dup == 0 && sp.reorder == 12.5);
	parse_ok("loss-every=97", &sp);
	assert_int_equal(sp.loss_every, 97);
	parse_ok("delay=10ms,jitter=250us", &sp);
	assert_int_equal(sp.delay_ns, 10000000);
	assert_int_equal(sp.jitter_ns, 250000);
	assert_true(vf_impair_uses_line(&sp));
	assert_int_equal(vf_impair_limit(&sp), VF_IMPAIR_LIMIT_DEFAULT);
	assert_int_equal(vf_impair_ring_entries(&sp), VF_IMPAIR_LIMIT_DEFAULT);
	parse_ok("delay=1.5s", &sp);
	assert_int_equal(sp.delay_ns, 1500000000ull);
	parse_ok("delay=60s,jitter=7ns", &sp);
	assert_int_equal(sp.delay_ns, VF_IMPAIR_TIME_MAX_NS);
	assert_int_equal(sp.jitter_ns, 7);
	parse_ok("delay=0", &sp);
	assert_int_equal(sp.delay_ns, 0);
	parse_ok("rate=1000", &sp);
	assert_true(sp.rate == 1000 && !sp.rate_bits);
	parse_ok("rate=2kpps", &sp);
	assert_true(sp.rate == 2000 && !sp.rate_bits);
	parse_ok("rate=10mbit", &sp);
	assert_true(sp.rate == 10000000 && sp.rate_bits);
	parse_ok("rate=1.5Gbit,limit=1000", &sp);
	assert_true(sp.rate == 1500000000ull && sp.rate_bits && sp.limit == 1000);
	assert_int_equal(vf_impair_ring_entries(&sp), 1024);
	parse_ok("limit=1048576,rate=1gbit", &sp);
	assert_int_equal(sp.limit, VF_IMPAIR_LIMIT_MAX);
	parse_ok("none", &sp);
	assert_true(sp.loss == 0 && !vf_impair_uses_line(&sp));
	vf_impair_format(&sp, buf, sizeof(buf));
	assert_string_equal(buf, "none");

	/* The canonical form parses back to the same spec. */
	const char *specs[] = {
		"loss=1%,seed=7", "loss-every=3,delay=10ms,jitter=1500us,limit=100",
		"dup=2.25%,reorder=1%,seed=99,rate=10000000bit", "rate=500pps,delay=7ns",
	};
	for (unsigned int i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct vf_impair_spec a, b;

		parse_ok(specs[i], &a);
		vf_impair_format(&a, buf, sizeof(buf));
		parse_ok(buf, &b);
		assert_memory_equal(&a, &b, sizeof(a));
	}
	parse_ok("loss=1%,seed=7", &sp);
	vf_impair_format(&sp, buf, sizeof(buf));
	assert_string_equal(buf, "loss=1%,seed=7");
	parse_ok("delay=10ms,rate=10mbit", &sp);
	vf_impair_format(&sp, buf, sizeof(buf));
	assert_string_equal(buf, "delay=10ms,rate=10000000bit");
}

static void test_parse_bad(void **state)
{
	(void)state;
	parse_bad("", "empty", "loss-every");
	parse_bad("foo=1", "unknown impair key 'foo'", "loss, loss-every, seed, dup, reorder, delay, jitter, rate, limit");
	parse_bad("loss", "'loss' needs a value", NULL);
	parse_bad("loss=", "'loss' needs a value", NULL);
	parse_bad("loss=1%,loss=2%", "'loss' given twice", NULL);
	parse_bad("loss=101%", "key 'loss'", "0..100");
	parse_bad("loss=-1", "key 'loss'", "percentage");
	parse_bad("loss=1%%", "key 'loss'", NULL);
	parse_bad("loss=nan", "key 'loss'", NULL);
	parse_bad("loss=1x", "key 'loss'", NULL);
	parse_bad("dup=200", "key 'dup'", NULL);
	parse_bad("reorder=abc", "key 'reorder'", NULL);
	parse_bad("loss-every=-1", "key 'loss-every'", NULL);
	parse_bad("loss-every=4294967296", "key 'loss-every'", NULL);
	parse_bad("seed=x", "key 'seed'", NULL);
	parse_bad("delay=10", "key 'delay'", "ns, us, ms or s");
	parse_bad("delay=61s", "key 'delay'", "60s");
	parse_bad("jitter=1h", "key 'jitter'", NULL);
	parse_bad("rate=0.1", "key 'rate'", NULL);
	parse_bad("rate=2000000000", "key 'rate'", "pps");
	parse_bad("rate=2000gbit", "key 'rate'", "gbit");
	parse_bad("rate=10mbps", "key 'rate'", NULL);
	parse_bad("limit=0", "key 'limit'", "1..1048576");
	parse_bad("limit=1048577", "key 'limit'", NULL);
	parse_bad("loss=1%,", "empty key", NULL);
	parse_bad(",loss=1%", "empty key", NULL);
	parse_bad("loss=1%,,dup=1%", "empty key", NULL);
}

/* Packets N, 2N, 3N... of the stream are dropped, whatever the bursts. */
static void test_loss_every(void **state)
{
	struct line l;
	void *out[VF_IMPAIR_ROOM(512)], *drop[VF_IMPAIR_ROOM(512)];
	uintptr_t next = 1;
	unsigned int sizes[] = { 1, 32, 7, 512, 3, 100, 64 }, total = 0, outs = 0;

	(void)state;
	line_init(&l, "loss-every=7", 0);
	for (unsigned int r = 0; r < 20; r++)
		for (unsigned int s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			unsigned int nd, no = feed(&l, next, sizes[s], 0, out, &nd, drop);

			for (unsigned int i = 0; i < nd; i++)
				assert_int_equal(ID(drop[i]) % 7, 0);
			for (unsigned int i = 0; i < no; i++)
				assert_int_not_equal(ID(out[i]) % 7, 0);
			assert_int_equal(no + nd, sizes[s]);
			next += sizes[s];
			total += sizes[s];
			outs += no;
		}
	assert_int_equal(l.im.c.rx, total);
	assert_int_equal(l.im.c.dropped_loss, total / 7);
	assert_int_equal(outs, total - total / 7);
	line_fini(&l);

	line_init(&l, "loss-every=1", 0);
	unsigned int nd, no = feed(&l, 1, 50, 0, out, &nd, drop);
	assert_int_equal(no, 0);
	assert_int_equal(nd, 50);
	line_fini(&l);
}

static uint64_t run_loss(const char *spec, unsigned int stream, unsigned int n, uint8_t *fate)
{
	struct line l;
	void *out[VF_IMPAIR_ROOM(512)], *drop[VF_IMPAIR_ROOM(512)];
	uint64_t dropped;

	line_init(&l, spec, stream);
	for (unsigned int done = 0; done < n;) {
		unsigned int k = n - done < 256 ? n - done : 256, nd;

		feed(&l, done + 1, k, 0, out, &nd, drop);
		for (unsigned int i = 0; i < nd; i++)
			fate[ID(drop[i]) - 1] = 1;
		done += k;
	}
	dropped = l.im.c.dropped_loss;
	line_fini(&l);
	return dropped;
}

/* loss=P%: within 5 standard deviations of n*p, and the same packets for
 * the same seed and stream. */
static void test_loss_random(void **state)
{
	enum { N = 200000 };
	static uint8_t a[N], b[N], c[N], d[N];
	double p = 0.1, sd = sqrt(N * p * (1 - p));
	uint64_t k;

	(void)state;
	k = run_loss("loss=10%,seed=7", 0, N, a);
	assert_true(fabs((double)k - N * p) < 5 * sd);
	assert_int_equal(run_loss("loss=10%,seed=7", 0, N, b), k);
	assert_memory_equal(a, b, N);
	run_loss("loss=10%,seed=8", 0, N, c);
	assert_memory_not_equal(a, c, N);
	run_loss("loss=10%,seed=7", 1, N, d);	/* another stream: another sequence */
	assert_memory_not_equal(a, d, N);
	memset(c, 0, N);
	assert_int_equal(run_loss("loss=0%", 0, N, c), 0);
	assert_int_equal(run_loss("loss=100%", 0, 1000, c), 1000);
	k = run_loss("loss=0.5%,seed=1", 0, N, c);
	sd = sqrt(N * 0.005 * 0.995);
	assert_true(fabs((double)k - N * 0.005) < 5 * sd);
	/* The other keys do not change which packets are lost (the line is
	 * big enough to take them all, so every drop here is a loss). */
	memset(c, 0, N);
	run_loss("loss=10%,seed=7,dup=30%,reorder=20%,delay=1ms,jitter=1ms,limit=1048576", 0, N, c);
	assert_memory_equal(a, c, N);
}

/* reorder=100%: every other packet is held and comes out behind the next
 * one; one held at a time. */
static void test_reorder(void **state)
{
	struct line l;
	void *out[VF_IMPAIR_ROOM(512)], *drop[VF_IMPAIR_ROOM(512)], *fl[4];
	unsigned int nd, no;

	(void)state;
	line_init(&l, "reorder=100%", 0);
	no = feed(&l, 1, 9, 0, out, &nd, drop);
	assert_int_equal(nd, 0);
	assert_int_equal(no, 8);
	uintptr_t want[] = { 2, 1, 4, 3, 6, 5, 8, 7 };
	for (unsigned int i = 0; i < no; i++)
		assert_int_equal(ID(out[i]), want[i]);
	assert_int_equal(l.im.c.reordered, 4);
	/* 9 is held across bursts: it comes out behind 10 */
	no = feed(&l, 10, 1, 0, out, &nd, drop);
	assert_int_equal(no, 2);
	assert_int_equal(ID(out[0]), 10);
	assert_int_equal(ID(out[1]), 9);
	assert_int_equal(l.im.c.reordered, 5);
	/* held at stop: flushed, not counted as reordered */
	no = feed(&l, 11, 1, 0, out, &nd, drop);
	assert_int_equal(no, 0);
	assert_int_equal(vf_impair_flush(&l.im, fl, 4), 1);
	assert_int_equal(ID(fl[0]), 11);
	assert_int_equal(vf_impair_flush(&l.im, fl, 4), 0);
	assert_int_equal(l.im.c.flushed, 1);
	assert_int_equal(l.im.c.reordered, 5);
	line_fini(&l);

	/* a partial rate: every reordered packet comes out right behind the
	 * next one, so the output is increasing but for adjacent swaps */
	line_init(&l, "reorder=30%,seed=3", 0);
	uintptr_t n = 1, last_out = 0;
	uint64_t swaps = 0, emitted = 0;
	for (int r = 0; r < 1000; r++) {
		no = feed(&l, n, 16, 0, out, &nd, drop);
		n += 16;
		for (unsigned int i = 0; i < no; i++) {
			if (ID(out[i]) < last_out) {
				assert_true(i > 0);
				assert_true(ID(out[i]) < ID(out[i - 1]));
				swaps++;
			}
			last_out = ID(out[i]);
		}
		emitted += no;
	}
	assert_int_equal(swaps, l.im.c.reordered);
	assert_true(swaps > 16000 * 0.15 && swaps < 16000 * 0.3);
	assert_int_equal(emitted + l.im.nheld, 16000);
	line_fini(&l);
}

static void test_dup(void **state)
{
	struct line l;
	void *out[VF_IMPAIR_ROOM(512)], *drop[VF_IMPAIR_ROOM(512)];
	unsigned int nd, no;

	(void)state;
	line_init(&l, "dup=100%", 0);
	copies_left = -1;
	no = feed(&l, 1, 5, 0, out, &nd, drop);
	assert_int_equal(no, 10);
	for (unsigned int i = 0; i < 5; i++) {
		assert_int_equal(ID(out[2 * i]), i + 1);
		assert_int_equal(ID(out[2 * i + 1]), (i + 1) | COPY_BIT);
	}
	assert_int_equal(l.im.c.duplicated, 5);
	/* the pool runs dry: the original still goes, the copy is counted */
	copies_left = 2;
	no = feed(&l, 6, 5, 0, out, &nd, drop);
	assert_int_equal(no, 7);
	assert_int_equal(l.im.c.duplicated, 7);
	assert_int_equal(l.im.c.dup_failed, 3);
	copies_left = -1;
	line_fini(&l);

	/* a duplicate travels with its original when that one is held */
	line_init(&l, "dup=100%,reorder=100%", 0);
	no = feed(&l, 1, 2, 0, out, &nd, drop);
	assert_int_equal(no, 4);
	assert_int_equal(ID(out[0]), 2);
	assert_int_equal(ID(out[1]), 2 | COPY_BIT);
	assert_int_equal(ID(out[2]), 1);
	assert_int_equal(ID(out[3]), 1 | COPY_BIT);
	assert_int_equal(l.im.c.reordered, 1);
	line_fini(&l);

	/* about the asked share, deterministic */
	line_init(&l, "dup=5%,seed=11", 0);
	for (int r = 0; r < 1000; r++)
		feed(&l, 1, 100, 0, out, &nd, drop);
	assert_true(fabs((double)l.im.c.duplicated - 5000) < 5 * sqrt(100000 * 0.05 * 0.95));
	line_fini(&l);
}

/* Delay and jitter: release times never go backwards, nothing leaves
 * before its time, the order is the input order. */
static void test_delay_fifo(void **state)
{
	struct line l;
	void *out[VF_IMPAIR_ROOM(512)], *drop[VF_IMPAIR_ROOM(512)];
	unsigned int nd, no;
	uintptr_t expect = 1;
	uint64_t now = 1000;

	(void)state;
	line_init(&l, "delay=100us", 0);
	no = feed(&l, 1, 10, now, out, &nd, drop);
	assert_int_equal(no, 0);
	assert_int_equal(vf_impair_queued(&l.im), 10);
	assert_int_equal(l.im.c.delayed, 10);
	assert_int_equal(vf_impair_due(&l.im, now + 99999, out, 32), 0);
	assert_int_equal(vf_impair_due(&l.im, now + 100000, out, 4), 4);
	assert_int_equal(ID(out[0]), 1);
	vf_impair_sent(&l.im, 2);	/* the port took two */
	assert_int_equal(vf_impair_due(&l.im, now + 100000, out, 32), 8);
	assert_int_equal(ID(out[0]), 3);
	vf_impair_sent(&l.im, 8);
	assert_int_equal(l.im.c.tx, 10);
	assert_int_equal(vf_impair_queued(&l.im), 0);
	line_fini(&l);

	line_init(&l, "delay=1ms,jitter=5ms,seed=5", 0);
	uintptr_t next = 1;
	uint64_t prev_t = 0;
	for (int r = 0; r < 2000; r++) {
		feed(&l, next, 8, now, out, &nd, drop);
		next += 8;
		for (uint32_t i = l.im.head; i != l.im.tail; i++) {
			const struct vf_impair_ent *e = &l.ring[i & l.im.mask];
			assert_true(e->t >= prev_t || i != l.im.tail - 1);
		}
		/* release what is due, check order and time */
		no = vf_impair_due(&l.im, now, out, 512);
		for (unsigned int i = 0; i < no; i++)
			assert_int_equal(ID(out[i]), expect++);
		for (unsigned int i = 0; i < no; i++) {
			const struct vf_impair_ent *e = &l.ring[(l.im.head + i) & l.im.mask];
			assert_true(e->t <= now && e->t >= prev_t);
			prev_t = e->t;
		}
		vf_impair_sent(&l.im, no);
		now += 3000;
	}
	/* every release time is in [arrival + delay, arrival + delay + jitter]
	 * or pushed later by FIFO; check the monotony of the rest */
	for (uint32_t i = l.im.head; i + 1 != l.im.tail; i++)
		assert_true(l.ring[i & l.im.mask].t <= l.ring[(i + 1) & l.im.mask].t);
	uint64_t q = vf_impair_queued(&l.im), f = 0, k;
	while ((k = vf_impair_flush(&l.im, out, 100)) > 0) {
		for (unsigned int i = 0; i < k; i++)
			assert_int_equal(ID(out[i]), expect++);
		f += k;
	}
	assert_int_equal(f, q);
	assert_int_equal(l.im.c.flushed, q);
	assert_int_equal(l.im.c.tx + l.im.c.flushed, l.im.c.rx);
	line_fini(&l);
}

static void test_jitter_bounds(void **state)
{
	struct line l;
	void *out[4], *drop[4];
	unsigned int nd;
	uint64_t now = 0, lo = UINT64_MAX, hi = 0;

	(void)state;
	line_init(&l, "delay=1ms,jitter=1ms,seed=2", 0);
	/* widely spaced arrivals: FIFO never pushes, so each release time is
	 * arrival + 1 ms + U(0, 1 ms) */
	for (int i = 0; i < 5000; i++) {
		feed(&l, (uintptr_t)i + 1, 1, now, out, &nd, drop);
		uint64_t t = l.ring[(l.im.tail - 1) & l.im.mask].t - now;
		assert_true(t >= 1000000 && t <= 2000000);
		lo = t < lo ? t : lo;
		hi = t > hi ? t : hi;
		vf_impair_sent(&l.im, vf_impair_due(&l.im, now + 2000000, out, 4));
		now += 3000000;
	}
	assert_true(lo < 1010000 && hi > 1990000);	/* the whole range is used */
	line_fini(&l);
}

static void test_overflow(void **state)
{
	struct line l;
	void *out[VF_IMPAIR_ROOM(512)], *drop[VF_IMPAIR_ROOM(512)];
	unsigned int nd, no;

	(void)state;
	line_init(&l, "delay=1ms,limit=5", 0);
	assert_int_equal(vf_impair_ring_entries(&(struct vf_impair_spec){ .delay_ns = 1, .limit = 5 }), 8);
	no = feed(&l, 1, 12, 0, out, &nd, drop);
	assert_int_equal(no, 0);
	assert_int_equal(nd, 7);
	for (unsigned int i = 0; i < nd; i++)
		assert_int_equal(ID(drop[i]), 6 + i);	/* the late ones */
	assert_int_equal(l.im.c.dropped_overflow, 7);
	assert_int_equal(vf_impair_queued(&l.im), 5);
	/* room again after the line drains, also across the ring's wrap */
	for (int r = 0; r < 10; r++) {
		vf_impair_sent(&l.im, vf_impair_due(&l.im, UINT64_MAX, out, 32));
		feed(&l, 100, 5, 0, out, &nd, drop);
		assert_int_equal(nd, 0);
	}
	assert_int_equal(l.im.c.delayed, 55);
	line_fini(&l);
}

/* rate: the serializer spaces packets exactly, and queues up to the limit. */
static void test_rate(void **state)
{
	struct line l;
	void *out[VF_IMPAIR_ROOM(512)], *drop[VF_IMPAIR_ROOM(512)];
	unsigned int nd;

	(void)state;
	line_init(&l, "rate=3pps,limit=10", 0);	/* 333333333.33 cycles each */
	feed(&l, 1, 12, 1000, out, &nd, drop);
	assert_int_equal(nd, 2);
	assert_int_equal(l.im.c.dropped_overflow, 2);
	for (unsigned int i = 0; i < 10; i++) {
		uint64_t want = 1000 + (uint64_t)((i + 1) * HZ / 3);
		assert_int_equal(l.ring[i].t, want);	/* no drift: exact remainder */
	}
	line_fini(&l);

	line_init(&l, "rate=1mbit,delay=10us", 0);	/* 125-byte frames: 1 ms each */
	feed(&l, 1, 3, 0, out, &nd, drop);
	assert_int_equal(l.ring[0].t, 1000000 + 10000);
	assert_int_equal(l.ring[2].t, 3000000 + 10000);
	/* an idle link starts from the arrival again */
	feed(&l, 4, 1, 50000000, out, &nd, drop);
	assert_int_equal(l.ring[3].t, 51000000 + 10000);
	line_fini(&l);
}

/* Everything together: each packet is accounted for exactly once. */
static void test_conservation(void **state)
{
	struct line l;
	void *out[VF_IMPAIR_ROOM(512)], *drop[VF_IMPAIR_ROOM(512)];
	unsigned int nd, no;
	uint64_t now = 0, tx = 0, freed = 0;

	(void)state;
	copies_left = -1;
	line_init(&l, "loss=3%,loss-every=50,dup=4%,reorder=5%,delay=20us,jitter=30us,rate=5mpps,limit=300,seed=9", 2);
	for (int r = 0; r < 5000; r++) {
		if (r % 100 == 0)
			copies_left = 3;	/* now and then, an empty pool */
		feed(&l, 1, 64, now, out, &nd, drop);
		freed += nd;
		no = vf_impair_due(&l.im, now, out, 32);
		no = no > 20 ? no - 7 : no;	/* the port refuses some */
		vf_impair_sent(&l.im, no);
		tx += no;
		now += 10000;
	}
	copies_left = -1;
	while ((no = vf_impair_flush(&l.im, out, 64)) > 0)
		freed += no;
	const struct vf_impair_counters *c = &l.im.c;
	assert_int_equal(c->rx, 5000 * 64);
	assert_int_equal(c->tx, tx);
	assert_int_equal(freed, c->dropped_loss + c->dropped_overflow + c->flushed);
	assert_int_equal(c->rx + c->duplicated,
			 c->tx + c->dropped_loss + c->dropped_overflow + c->flushed + c->tx_dropped);
	assert_true(c->dropped_loss > 0 && c->dropped_overflow > 0 && c->duplicated > 0 &&
		    c->dup_failed > 0 && c->reordered > 0 && c->flushed > 0);
	line_fini(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_loss_every),
		cmocka_unit_test(test_loss_random),
		cmocka_unit_test(test_reorder),
		cmocka_unit_test(test_dup),
		cmocka_unit_test(test_delay_fifo),
		cmocka_unit_test(test_jitter_bounds),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_conservation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
