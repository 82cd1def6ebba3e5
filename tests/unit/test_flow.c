/* vf_flow and vf_frames: the --flow-* fields (parsing and its errors),
 * the flow count, the random ranges' permutation (coverage, bounds,
 * seeding), the odometer walk (n flows are n distinct tuples, seek agrees
 * with stepping), and the frames built from a mix and a walk, their
 * checksums checked independently (vf_pkt_cksums_ok and a plain sum). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vf_flow.h"
#include "vf_frames.h"
#include "vf_pkt.h"

static struct vf_field field(enum vf_field_id id, const char *s)
{
	struct vf_field f;
	char err[320] = "";

	if (vf_field_parse(id, s, &f, err, sizeof(err)))
		fail_msg("'%s': %s", s, err);
	return f;
}

static void bad(enum vf_field_id id, const char *s, const char *why)
{
	struct vf_field f = { .mode = 2, .lo = 5, .hi = 7, .seed = 3 };
	char err[320] = "";

	assert_int_equal(vf_field_parse(id, s, &f, err, sizeof(err)), -1);
	if (!strstr(err, why) || !strstr(err, vf_field_option(id)))
		fail_msg("'%s': '%s' lacks '%s'", s, err, why);
	assert_true(f.mode == 2 && f.lo == 5 && f.hi == 7 && f.seed == 3);	/* unchanged */
}

static void test_parse(void **state)
{
	struct vf_field f;
	char buf[64];

	(void)state;
	f = field(VF_FIELD_SRC, "10.0.0.1");
	assert_true(f.given && f.mode == VF_FIELD_FIXED && f.lo == 0x0a000001 && f.hi == f.lo);
	f = field(VF_FIELD_SRC, "10.0.0.1-10.0.3.255");
	assert_true(f.mode == VF_FIELD_INC && f.lo == 0x0a000001 && f.hi == 0x0a0003ff);
	assert_int_equal(vf_field_size(&f), 1023);
	vf_field_fmt(buf, sizeof(buf), VF_FIELD_SRC, &f);
	assert_string_equal(buf, "10.0.0.1-10.0.3.255");
	f = field(VF_FIELD_DST, "10.0.0.0/22");
	assert_true(f.mode == VF_FIELD_INC && f.lo == 0x0a000000 && f.hi == 0x0a0003ff);
	f = field(VF_FIELD_DST, "10.1.2.3/24");		/* host bits dropped */
	assert_true(f.lo == 0x0a010200 && f.hi == 0x0a0102ff);
	f = field(VF_FIELD_DST, "10.1.2.3/32");
	assert_true(f.mode == VF_FIELD_FIXED && f.lo == 0x0a010203);
	f = field(VF_FIELD_DST, "0.0.0.0/1");
	assert_int_equal(vf_field_size(&f), 1ull << 31);
	f = field(VF_FIELD_DPORT, "1024-65535:random");
	assert_true(f.mode == VF_FIELD_RANDOM && f.lo == 1024 && f.hi == 65535 && f.seed == 1);
	f = field(VF_FIELD_DPORT, "1024-65535:random:42");
	assert_int_equal(f.seed, 42);
	vf_field_fmt(buf, sizeof(buf), VF_FIELD_DPORT, &f);
	assert_string_equal(buf, "1024-65535:random:42");
	f = field(VF_FIELD_SPORT, "0-65535:inc");
	assert_true(f.mode == VF_FIELD_INC && vf_field_size(&f) == 65536);
	f = field(VF_FIELD_SPORT, "7");
	vf_field_fmt(buf, sizeof(buf), VF_FIELD_SPORT, &f);
	assert_string_equal(buf, "7");
	f = field(VF_FIELD_SPORT, "7-7");
	assert_true(f.mode == VF_FIELD_FIXED);
}

static void test_parse6(void **state)
{
	struct vf_field f;
	struct vf_flows fl;
	char buf[96], err[320] = "";
	static const uint8_t db8[12] = { 0x20, 0x01, 0x0d, 0xb8 };

	(void)state;
	f = field(VF_FIELD_SRC, "2001:db8::1");
	assert_true(f.v6 && f.mode == VF_FIELD_FIXED && f.lo == 1 && !memcmp(f.hi96, db8, 12));
	f = field(VF_FIELD_SRC, "2001:db8::1:1-2001:db8::2:3:random:9");
	assert_true(f.v6 && f.mode == VF_FIELD_RANDOM && f.seed == 9 && f.lo == 0x10001 &&
		    f.hi == 0x20003);
	vf_field_fmt(buf, sizeof(buf), VF_FIELD_SRC, &f);
	assert_string_equal(buf, "2001:db8::1:1-2001:db8::2:3:random:9");
	f = field(VF_FIELD_DST, "2001:db8::abcd/112:inc");
	assert_true(f.v6 && f.mode == VF_FIELD_INC && f.lo == 0 && f.hi == 0xffff);
	f = field(VF_FIELD_DST, "2001:db8::/97");
	assert_int_equal(vf_field_size(&f), 1ull << 31);
	/* the family of the given address sets the other's default */
	memset(&fl, 0, sizeof(fl));
	fl.f[VF_FIELD_DST] = field(VF_FIELD_DST, "2001:db8::5");
	assert_int_equal(vf_flows_resolve(&fl, 0, true, err, sizeof(err)), 0);
	assert_true(fl.v6 && fl.f[VF_FIELD_SRC].v6 && fl.n == 1);
	vf_field_fmt(buf, sizeof(buf), VF_FIELD_SRC, &fl.f[VF_FIELD_SRC]);
	assert_string_equal(buf, "2001:2::1");
	memset(&fl, 0, sizeof(fl));
	fl.f[VF_FIELD_SRC] = field(VF_FIELD_SRC, "2001:db8::1");
	assert_int_equal(vf_flows_resolve(&fl, 0, false, err, sizeof(err)), 0);
	vf_field_fmt(buf, sizeof(buf), VF_FIELD_DST, &fl.f[VF_FIELD_DST]);
	assert_string_equal(buf, "2001:2:0:1::2");
	/* one of each family */
	memset(&fl, 0, sizeof(fl));
	fl.f[VF_FIELD_SRC] = field(VF_FIELD_SRC, "2001:db8::1");
	fl.f[VF_FIELD_DST] = field(VF_FIELD_DST, "10.0.0.1");
	assert_int_equal(vf_flows_resolve(&fl, 0, false, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "one IPv4 and one IPv6"));
	/* IPv4 stays IPv4 */
	memset(&fl, 0, sizeof(fl));
	assert_int_equal(vf_flows_resolve(&fl, 0, true, err, sizeof(err)), 0);
	assert_false(fl.v6);
}

/* MAC addresses (the last 32 bits vary) and the VLAN ID. */
static void test_parse_l2(void **state)
{
	struct vf_field f;
	char buf[96];

	(void)state;
	f = field(VF_FIELD_SMAC, "02:00:00:00:00:01");
	assert_true(f.mode == VF_FIELD_FIXED && f.lo == 1 && f.hi == 1 && f.hi96[0] == 2 && f.hi96[1] == 0);
	f = field(VF_FIELD_DMAC, "0A:bC:00:00:01:00-0a:bc:00:00:01:ff:random:9");
	assert_true(f.mode == VF_FIELD_RANDOM && f.lo == 0x100 && f.hi == 0x1ff && f.seed == 9);
	assert_true(f.hi96[0] == 0x0a && f.hi96[1] == 0xbc);
	vf_field_fmt(buf, sizeof(buf), VF_FIELD_DMAC, &f);
	assert_string_equal(buf, "0a:bc:00:00:01:00-0a:bc:00:00:01:ff:random:9");
	f = field(VF_FIELD_SMAC, "02:00:ff:ff:ff:fe-02:00:ff:ff:ff:ff:inc");
	assert_true(f.mode == VF_FIELD_INC && vf_field_size(&f) == 2);
	f = field(VF_FIELD_VLAN, "4095");
	assert_true(f.mode == VF_FIELD_FIXED && f.lo == 4095);
	f = field(VF_FIELD_VLAN, "100-199:random:2");
	assert_true(f.mode == VF_FIELD_RANDOM && f.lo == 100 && f.hi == 199 && f.seed == 2);
	vf_field_fmt(buf, sizeof(buf), VF_FIELD_VLAN, &f);
	assert_string_equal(buf, "100-199:random:2");
	bad(VF_FIELD_SMAC, "02:00:00:00:00", "expected a MAC address");
	bad(VF_FIELD_SMAC, "02:00:00:00:00:01:02", "expected a MAC address");
	bad(VF_FIELD_SMAC, "02:00:00:00:00:0g", "expected a MAC address");
	bad(VF_FIELD_SMAC, "2:0:0:0:0:1", "expected a MAC address");
	bad(VF_FIELD_SMAC, "02:00:00:00:00:01-04:00:00:00:00:01", "last 32 bits");
	bad(VF_FIELD_SMAC, "02:00:00:00:00:09-02:00:00:00:00:01", "expected");
	bad(VF_FIELD_SMAC, "02:00:00:00:00:01:random", "one value");
	bad(VF_FIELD_DMAC, "02:00:00:00:00:01-02:00:00:00:00:09:rand", "expected");
	bad(VF_FIELD_SMAC, "02:00:00:00:00:00-02:00:ff:ff:ff:ff", "expected");	/* 2^32 */
	bad(VF_FIELD_VLAN, "4096", "0..4095");
	bad(VF_FIELD_VLAN, "10-5", "VLAN ID");
	bad(VF_FIELD_VLAN, "1/8", "VLAN ID");
	bad(VF_FIELD_VLAN, "5:random", "one value");
}

static void test_parse_errors(void **state)
{
	(void)state;
	bad(VF_FIELD_SRC, "", "expected an address");
	bad(VF_FIELD_SRC, "10.0.0", "expected");
	bad(VF_FIELD_SRC, "10.0.0.256", "expected");
	bad(VF_FIELD_SRC, "10.0.0.9-10.0.0.1", "expected");		/* backwards */
	bad(VF_FIELD_SRC, "10.0.0.1-", "expected");
	bad(VF_FIELD_SRC, "10.0.0.0/33", "expected");
	bad(VF_FIELD_SRC, "10.0.0.0/0", "expected");			/* 2^32: one too many */
	bad(VF_FIELD_SRC, "0.0.0.0-255.255.255.255", "expected");
	bad(VF_FIELD_SRC, "10.0.0.1:random", "one value");
	bad(VF_FIELD_SRC, "10.0.0.1-10.0.0.9:rand", ":inc, :random");
	bad(VF_FIELD_SRC, "10.0.0.1-10.0.0.9:random:", ":random:SEED");
	bad(VF_FIELD_SRC, "10.0.0.1-10.0.0.9:random:x", ":random:SEED");
	bad(VF_FIELD_SRC, "10.0.0.1-10.0.0.9:inc:3", ":inc, :random");
	bad(VF_FIELD_SRC, "fe80::1-fe80::1:0:0", "last 32 bits");	/* upper bits differ */
	bad(VF_FIELD_SRC, "2001:db8::/96", "expected");			/* 2^32: one too many */
	bad(VF_FIELD_SRC, "2001:db8::/129", "expected");
	bad(VF_FIELD_SRC, "2001:db8::1-10.0.0.1", "expected");		/* two families */
	bad(VF_FIELD_SRC, "10.0.0.1-2001:db8::1", "expected");
	bad(VF_FIELD_SRC, "2001:db8::1:random", "one value");
	bad(VF_FIELD_SRC, "2001:db8:::1", "expected");
	bad(VF_FIELD_DPORT, "65536", "0..65535");
	bad(VF_FIELD_DPORT, "-1", "0..65535");
	bad(VF_FIELD_DPORT, "10-5", "0..65535");
	bad(VF_FIELD_DPORT, "1/8", "0..65535");				/* no prefixes for ports */
	bad(VF_FIELD_DPORT, "10.0.0.1", "0..65535");
	bad(VF_FIELD_DPORT, "1024-65535:random:-1", ":random:SEED");
	bad(VF_FIELD_DPORT, "01234567890123456789012345678901234567890123456789", "expected");
}

static void test_resolve(void **state)
{
	struct vf_flows fl;
	char err[320];

	(void)state;
	/* nothing given: txonly one flow, flowgen/measure --flows (1024) */
	memset(&fl, 0, sizeof(fl));
	assert_int_equal(vf_flows_resolve(&fl, 0, false, err, sizeof(err)), 0);
	assert_int_equal(fl.n, 1);
	memset(&fl, 0, sizeof(fl));
	assert_int_equal(vf_flows_resolve(&fl, 0, true, err, sizeof(err)), 0);
	assert_int_equal(fl.n, 1024);
	assert_true(fl.f[VF_FIELD_SRC].lo == 0xc6120001 && fl.f[VF_FIELD_DST].lo == 0xc6130002);
	memset(&fl, 0, sizeof(fl));
	assert_int_equal(vf_flows_resolve(&fl, VF_FLOWS_MAX, true, err, sizeof(err)), 0);
	assert_int_equal(fl.n, VF_FLOWS_MAX);
	/* ranges given: every tuple, or the --flows first ones */
	memset(&fl, 0, sizeof(fl));
	fl.f[VF_FIELD_SRC] = field(VF_FIELD_SRC, "10.0.0.1-10.0.3.255");
	fl.f[VF_FIELD_DPORT] = field(VF_FIELD_DPORT, "1000-1009:random");
	assert_int_equal(vf_flows_resolve(&fl, 0, false, err, sizeof(err)), 0);
	assert_int_equal(fl.n, 10230);
	assert_true(fl.f[VF_FIELD_SPORT].lo == 9 && fl.f[VF_FIELD_SPORT].mode == VF_FIELD_FIXED);
	assert_int_equal(vf_flows_resolve(&fl, 500, true, err, sizeof(err)), 0);
	assert_int_equal(fl.n, 500);
	assert_int_equal(vf_flows_resolve(&fl, 10231, true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "10230 distinct tuples"));
	/* fixed fields only: one flow */
	memset(&fl, 0, sizeof(fl));
	fl.f[VF_FIELD_DST] = field(VF_FIELD_DST, "10.9.9.9");
	assert_int_equal(vf_flows_resolve(&fl, 0, true, err, sizeof(err)), 0);
	assert_int_equal(fl.n, 1);
	assert_int_equal(vf_flows_resolve(&fl, 2, true, err, sizeof(err)), -1);
	/* too many tuples without --flows */
	memset(&fl, 0, sizeof(fl));
	fl.f[VF_FIELD_SRC] = field(VF_FIELD_SRC, "10.0.0.0/8");
	fl.f[VF_FIELD_DST] = field(VF_FIELD_DST, "10.0.0.0/8");
	assert_int_equal(vf_flows_resolve(&fl, 0, true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "give --flows"));
	assert_int_equal(vf_flows_resolve(&fl, 1000000, true, err, sizeof(err)), 0);
}

/* A permutation: every value of [0, size) once, none outside. */
static void test_perm(void **state)
{
	static const uint32_t sizes[] = { 1, 2, 3, 7, 64, 100, 1000, 4097, 64512, 65536, 1000003 };

	(void)state;
	for (unsigned int k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uint32_t size = sizes[k];
		uint8_t *seen = calloc(size, 1);
		struct vf_perm p, q;
		uint32_t same = 0, fixed_points = 0;

		assert_non_null(seen);
		vf_perm_init(&p, size, 7);
		vf_perm_init(&q, size, 8);
		for (uint32_t c = 0; c < size; c++) {
			uint32_t v = vf_perm_at(&p, c);

			assert_true(v < size);
			assert_int_equal(seen[v], 0);
			seen[v] = 1;
			same += v == vf_perm_at(&q, c);
			fixed_points += v == c;
		}
		/* another seed, another order; and not the identity */
		if (size >= 64) {
			assert_true(same < size / 16 + 4);
			assert_true(fixed_points < size / 16 + 4);
		}
		/* the same seed, the same order */
		vf_perm_init(&q, size, 7);
		for (uint32_t c = 0; c < size; c += 1 + size / 97)
			assert_int_equal(vf_perm_at(&p, c), vf_perm_at(&q, c));
		free(seen);
	}
	/* the whole 32-bit range's bijection stays in range */
	{
		struct vf_perm p;

		vf_perm_init(&p, UINT32_MAX, 3);
		for (uint32_t c = 0; c < 100000; c++)
			assert_true(vf_perm_at(&p, c) < UINT32_MAX);
	}
}

/* A random range looks random: the mean of many values is near the
 * middle, and consecutive values do not simply count. */
static void test_perm_uniform(void **state)
{
	struct vf_perm p;
	double sum = 0;
	uint32_t steps_of_one = 0, prev = 0;
	const uint32_t size = 64512, n = 5000;

	(void)state;
	vf_perm_init(&p, size, 1);
	for (uint32_t c = 0; c < n; c++) {
		uint32_t v = vf_perm_at(&p, c);

		sum += v;
		steps_of_one += c && v == prev + 1;
		prev = v;
	}
	/* the mean of n uniform draws: sd = size / sqrt(12 n) ~ 263 */
	assert_true(sum / n > size / 2.0 - 1500 && sum / n < size / 2.0 + 1500);
	assert_true(steps_of_one < 10);
}

struct tuple {
	uint32_t src, dst;
	uint16_t sport, dport;
	uint32_t smac, dmac, vlan;
};

static int cmp_tuple(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct tuple));
}

static struct tuple cur(const struct vf_flow_walk *w)
{
	struct tuple t;

	memset(&t, 0, sizeof(t));
	t.src = vf_flow_value(w, VF_FIELD_SRC);
	t.dst = vf_flow_value(w, VF_FIELD_DST);
	t.sport = (uint16_t)vf_flow_value(w, VF_FIELD_SPORT);
	t.dport = (uint16_t)vf_flow_value(w, VF_FIELD_DPORT);
	t.smac = vf_flow_value(w, VF_FIELD_SMAC);
	t.dmac = vf_flow_value(w, VF_FIELD_DMAC);
	t.vlan = vf_flow_value(w, VF_FIELD_VLAN);
	return t;
}

/* n flows of the walk: n distinct tuples, each field within its range,
 * flow n is flow 0 again, seek lands where stepping does, and the sums
 * are of the words stored. */
static void walk_check(struct vf_flows *fl, uint32_t flows, bool vary)
{
	struct vf_flow_walk w, s;
	struct tuple *t, first;
	char err[320];
	uint32_t n;

	assert_int_equal(vf_flows_resolve(fl, flows, vary, err, sizeof(err)), 0);
	n = fl->n;
	t = calloc(n, sizeof(*t));
	assert_non_null(t);
	vf_flow_walk_init(&w, fl);
	first = cur(&w);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t v[VF_NB_FIELDS];

		assert_int_equal(w.k, k);
		t[k] = cur(&w);
		for (unsigned int i = 0; i < VF_NB_FIELDS; i++)
			v[i] = vf_flow_value(&w, (enum vf_field_id)i);
		assert_true(v[0] == t[k].src && v[1] == t[k].dst && v[2] == t[k].sport &&
			    v[3] == t[k].dport);
		for (unsigned int i = 0; i < VF_NB_FIELDS; i++)
			assert_true(v[i] >= fl->f[i].lo && v[i] <= fl->f[i].hi);
		assert_int_equal(w.addr_sum, (w.src_be & 0xffff) + (w.src_be >> 16) +
					     (w.dst_be & 0xffff) + (w.dst_be >> 16));
		assert_int_equal(w.port_sum, (uint32_t)w.sport_be + w.dport_be);
		if (k % 97 == 0) {
			vf_flow_walk_init(&s, fl);
			vf_flow_seek(&s, k + (uint64_t)n * 3);
			struct tuple a = cur(&s);
			assert_memory_equal(&a, &t[k], sizeof(a));
			assert_int_equal(s.k, k);
		}
		vf_flow_next(&w);
	}
	assert_int_equal(w.k, 0);
	struct tuple again = cur(&w);
	assert_memory_equal(&again, &first, sizeof(first));
	qsort(t, n, sizeof(*t), cmp_tuple);
	for (uint32_t k = 1; k < n; k++)
		assert_true(cmp_tuple(&t[k - 1], &t[k]) != 0);
	free(t);
}

static void test_walk(void **state)
{
	struct vf_flows fl;

	(void)state;
	/* the old mapping gave 994 distinct tuples for 1000 flows */
	memset(&fl, 0, sizeof(fl));
	walk_check(&fl, 1000, true);
	memset(&fl, 0, sizeof(fl));
	walk_check(&fl, 200000, true);			/* past the source range: ports turn */
	memset(&fl, 0, sizeof(fl));
	fl.f[VF_FIELD_SRC] = field(VF_FIELD_SRC, "10.0.0.1-10.0.3.255");
	walk_check(&fl, 0, false);
	memset(&fl, 0, sizeof(fl));
	fl.f[VF_FIELD_DPORT] = field(VF_FIELD_DPORT, "1024-65535:random");
	walk_check(&fl, 0, false);
	memset(&fl, 0, sizeof(fl));
	fl.f[VF_FIELD_SRC] = field(VF_FIELD_SRC, "10.0.0.1-10.0.0.7:random:5");
	fl.f[VF_FIELD_DST] = field(VF_FIELD_DST, "10.1.0.0/29");
	fl.f[VF_FIELD_SPORT] = field(VF_FIELD_SPORT, "100-102:random:5");
	fl.f[VF_FIELD_DPORT] = field(VF_FIELD_DPORT, "7-11");
	walk_check(&fl, 0, false);			/* 7 * 8 * 3 * 5 = 840: all */
	walk_check(&fl, 333, false);			/* the first 333 */
	memset(&fl, 0, sizeof(fl));
	fl.f[VF_FIELD_SRC] = field(VF_FIELD_SRC, "0.0.0.0/1:random:9");
	walk_check(&fl, 100000, false);
	memset(&fl, 0, sizeof(fl));
	fl.f[VF_FIELD_SPORT] = field(VF_FIELD_SPORT, "100-102");
	fl.f[VF_FIELD_SMAC] = field(VF_FIELD_SMAC, "02:00:00:00:00:00-02:00:00:00:00:06:random:2");
	fl.f[VF_FIELD_DMAC] = field(VF_FIELD_DMAC, "02:00:00:00:00:fe-02:00:00:00:01:01");
	fl.f[VF_FIELD_VLAN] = field(VF_FIELD_VLAN, "1-5:random");
	walk_check(&fl, 0, false);			/* 3 * 7 * 4 * 5 = 420: all */
	memset(&fl, 0, sizeof(fl));
	walk_check(&fl, 0, false);			/* one flow */
}

/* The walk's default (no --flow-*) is vf_pkt_build_udp's flow k. */
static void test_walk_default_matches_build(void **state)
{
	static const uint8_t A[6] = { 2, 0, 0, 0, 0, 1 }, B[6] = { 2, 0, 0, 0, 0, 2 };
	struct vf_flows fl;
	struct vf_flow_walk w;
	char err[320];
	uint8_t f[64];

	(void)state;
	memset(&fl, 0, sizeof(fl));
	assert_int_equal(vf_flows_resolve(&fl, 140000, true, err, sizeof(err)), 0);
	vf_flow_walk_init(&w, &fl);
	for (uint32_t k = 0; k < 140000; k++) {
		assert_true(vf_pkt_build_udp(f, 64, A, B, k));
		if (memcmp(f + 26, &w.src_be, 4) || memcmp(f + 30, &w.dst_be, 4) ||
		    memcmp(f + 34, &w.sport_be, 2) || memcmp(f + 36, &w.dport_be, 2))
			fail_msg("flow %u differs", k);
		vf_flow_next(&w);
	}
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The UDP checksum of a frame, summed plainly (big-endian words). */
static uint16_t udp_cksum(const uint8_t *f, uint32_t len)
{
	uint32_t ulen = len - 34, s = 17 + ulen;

	for (unsigned int i = 26; i < 34; i += 2)
		s += rd16(f + i);
	for (uint32_t i = 0; i < ulen; i += 2)
		s += (uint32_t)f[34 + i] << 8 | (i + 1 < ulen ? f[35 + i] : 0);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* Frames of a mix over flows: lengths in the schedule's order, valid
 * IPv4 headers, and a UDP checksum made from the returned sum that a
 * plain sum over the frame agrees with. */
static void test_frames(void **state)
{
	static const uint8_t A[6] = { 2, 0, 0, 0, 0, 1 }, B[6] = { 2, 0, 0, 0, 0, 2 };
	static const char *const mixes[] = { "64", "imix", "42:3,65:2,1001:1" };
	const uint8_t payload[4] = { 0x46, 0x76, 3, 0 };

	(void)state;
	for (unsigned int k = 0; k < 3; k++) {
		struct vf_mix m;
		struct vf_flows fl;
		struct vf_frames g;
		char err[320];
		uint8_t slot[16], *mem, *f;

		assert_int_equal(vf_mix_parse(mixes[k], &m, 42, 2048, err, sizeof(err)), 0);
		memset(&fl, 0, sizeof(fl));
		fl.f[VF_FIELD_SRC] = field(VF_FIELD_SRC, "10.0.0.250-10.0.1.5");
		fl.f[VF_FIELD_DPORT] = field(VF_FIELD_DPORT, "1-65535:random:3");
		assert_int_equal(vf_flows_resolve(&fl, 5000, false, err, sizeof(err)), 0);
		mem = aligned_alloc(64, vf_frames_mem_size(&m, &fl, k == 2 ? 64 : 0));
		f = malloc(2048);
		assert_non_null(mem);
		assert_non_null(f);
		vf_frames_init(&g, mem, &m, &fl, k == 2 ? 64 : 0, A, B, payload, sizeof(payload));
		vf_mix_schedule(&m, slot);
		for (uint32_t i = 0; i < 6000; i++) {
			uint32_t flow, sum;
			uint16_t len, want = m.len[slot[i % vf_mix_period(&m)]], ck;

			/* the tails of the next 3 frames in segments of 100 bytes */
			{
				unsigned int tails = 0;

				for (uint32_t j = 0; j < 3; j++) {
					uint32_t l = m.len[slot[(i + j) % vf_mix_period(&m)]];

					tails += vf_frames_segs(k == 2 && l < 64 ? 64 : l, 100) - 1;
				}
				assert_int_equal(vf_frames_tails(&g, 3, 100), tails);
			}
			memset(f, 0xee, 2048);
			len = vf_frames_next(&g, f, &flow, &sum);
			if (k == 2 && want < 64)
				want = 64;
			assert_int_equal(len, want);
			assert_int_equal(flow, i % 5000);
			assert_int_equal(rd16(f + 16), len - 14);
			assert_int_equal(rd16(f + 38), len - 34);
			assert_int_equal(f[len], 0xee);
			assert_memory_equal(f + 42, payload, 4);
			assert_true(vf_pkt_cksums_ok(f, len));	/* IPv4 header (UDP: 0) */
			/* the caller's last step (as the measuring mode's) */
			sum = (sum & 0xffff) + (sum >> 16);
			sum = (sum & 0xffff) + (sum >> 16);
			ck = (uint16_t)~sum;
			memcpy(f + 40, &ck, 2);
			assert_int_equal(udp_cksum(f, len), 0);
			assert_true(vf_pkt_cksums_ok(f, len));
		}
		/* seek: frame 4321 again */
		{
			uint32_t flow, sum, flow2, sum2;
			uint8_t *h = malloc(2048);
			uint16_t l1, l2;

			assert_non_null(h);
			vf_frames_seek(&g, 4321);
			l1 = vf_frames_next(&g, f, &flow, &sum);
			vf_frames_seek(&g, 4321 + 5000ull * vf_mix_period(&m));
			l2 = vf_frames_next(&g, h, &flow2, &sum2);
			assert_true(l1 == l2 && flow == flow2 && sum == sum2 && flow == 4321);
			assert_memory_equal(f, h, l1);
			free(h);
		}
		free(f);
		free(mem);
	}
}

/* IPv6: every frame's UDP checksum (required) from the kept sums, the
 * addresses' last 32 bits and the ports walked, lengths raised to 62. */
static void test_frames6(void **state)
{
	static const uint8_t A[6] = { 2, 0, 0, 0, 0, 1 }, B[6] = { 2, 0, 0, 0, 0, 2 };
	static const char *const mixes[] = { "64", "imix", "60:3,65:2,1001:1" };
	const uint8_t payload[4] = { 0x46, 0x76, 3, 0 };

	(void)state;
	for (unsigned int k = 0; k < 3; k++) {
		struct vf_mix m;
		struct vf_flows fl;
		struct vf_frames g;
		char err[320];
		uint8_t slot[16], *mem, *f;
		uint32_t seen_src = 0;

		assert_int_equal(vf_mix_parse(mixes[k], &m, 42, 2048, err, sizeof(err)), 0);
		memset(&fl, 0, sizeof(fl));
		fl.f[VF_FIELD_SRC] = field(VF_FIELD_SRC, "2001:db8::fffe-2001:db8::1:2");
		fl.f[VF_FIELD_DST] = field(VF_FIELD_DST, "2001:db8:1::/120:random:4");
		fl.f[VF_FIELD_DPORT] = field(VF_FIELD_DPORT, "1-65535:random:3");
		assert_int_equal(vf_flows_resolve(&fl, 5000, false, err, sizeof(err)), 0);
		assert_true(fl.v6);
		mem = aligned_alloc(64, vf_frames_mem_size(&m, &fl, 62));
		f = malloc(2048);
		assert_non_null(mem);
		assert_non_null(f);
		vf_frames_init(&g, mem, &m, &fl, 0, A, B, payload, sizeof(payload));
		assert_true(g.v6 && g.payload_off == 62);
		vf_mix_schedule(&m, slot);
		for (uint32_t i = 0; i < 6000; i++) {
			uint32_t flow, sum;
			uint16_t len, want = m.len[slot[i % vf_mix_period(&m)]], ck;

			memset(f, 0xee, 2048);
			len = vf_frames_next(&g, f, &flow, &sum);
			if (want < 62)
				want = 62;
			assert_int_equal(len, want);
			assert_int_equal(flow, i % 5000);
			assert_int_equal(rd16(f + 12), 0x86dd);
			assert_int_equal(rd16(f + 18), len - 54);	/* payload length */
			assert_int_equal(rd16(f + 58), len - 54);	/* UDP length */
			assert_int_equal(f[len], 0xee);
			if (len >= 66)
				assert_memory_equal(f + 62, payload, 4);
			assert_memory_equal(f + 22, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0", 12);
			assert_memory_equal(f + 38, "\x20\x01\x0d\xb8\0\x01\0\0\0\0\0\0", 12);
			assert_true(rd16(f + 48) == 0 && f[52] == 0);	/* the /120: last byte only */
			if (rd16(f + 34) == 0 && rd16(f + 36) >= 0xfffe)
				seen_src |= 1u << (rd16(f + 36) - 0xfffe);
			else if (rd16(f + 34) == 1 && rd16(f + 36) <= 2)
				seen_src |= 4u << rd16(f + 36);
			else
				fail_msg("source low word %04x:%04x", rd16(f + 34), rd16(f + 36));
			sum = (sum & 0xffff) + (sum >> 16);
			sum = (sum & 0xffff) + (sum >> 16);
			ck = (uint16_t)~sum;
			memcpy(f + 60, &ck, 2);
			assert_true(vf_pkt_cksums_ok(f, len));
			memcpy(f + 60, "\0\0", 2);
			assert_false(vf_pkt_cksums_ok(f, len));	/* IPv6 needs one */
		}
		assert_int_equal(seen_src, 0x1f);	/* ::fffe, ::ffff, ::1:0, ::1:1, ::1:2 */
		free(f);
		free(mem);
	}
}

/* MAC ranges and a VLAN tag, IPv4 and IPv6: the tag after the MAC
 * addresses, every header after it 4 bytes on with right lengths and
 * checksums, every asked MAC and VLAN ID seen, a MAC address not given the
 * caller's; a fixed tag keeps the default flows; 64-byte frames raised to
 * the headers' 46 and 66 bytes. */
static void test_frames_l2(void **state)
{
	static const uint8_t A[6] = { 2, 0, 0, 0, 0, 1 }, B[6] = { 2, 0, 0, 0, 0, 2 };
	const uint8_t payload[4] = { 0x46, 0x76, 3, 0 };

	(void)state;
	for (unsigned int k = 0; k < 4; k++) {
		bool v6 = k & 1, fixed = k >= 2;
		struct vf_mix m;
		struct vf_flows fl;
		struct vf_frames g;
		char err[320];
		uint8_t *mem, *f;
		uint64_t seen_vid = 0, seen_mac = 0;
		unsigned int hdr = v6 ? 66 : 46;

		assert_int_equal(vf_mix_parse("42:1,64:1,1000:1", &m, 42, 2048, err, sizeof(err)), 0);
		memset(&fl, 0, sizeof(fl));
		if (v6)
			fl.f[VF_FIELD_SRC] = field(VF_FIELD_SRC, "2001:db8::1");
		if (fixed) {
			fl.f[VF_FIELD_VLAN] = field(VF_FIELD_VLAN, "4094");
		} else {
			fl.f[VF_FIELD_SMAC] = field(VF_FIELD_SMAC, "0a:00:00:00:00:fe-0a:00:00:00:01:05");
			fl.f[VF_FIELD_VLAN] = field(VF_FIELD_VLAN, "10-49:random:5");
		}
		assert_int_equal(vf_flows_resolve(&fl, 0, true, err, sizeof(err)), 0);
		assert_true(fl.vlan && fl.v6 == v6);
		/* a fixed tag alone keeps the default spread (an address given
		 * is a choice of flows) */
		assert_int_equal(fl.n, fixed ? (v6 ? 1 : 1024) : 8 * 40);
		mem = aligned_alloc(64, vf_frames_mem_size(&m, &fl, 0));
		f = malloc(2048);
		assert_non_null(mem);
		assert_non_null(f);
		vf_frames_init(&g, mem, &m, &fl, 0, A, B, payload, sizeof(payload));
		assert_int_equal(g.payload_off, hdr);
		assert_int_equal(g.l4_off, hdr - 8);
		for (uint32_t i = 0; i < 3 * fl.n; i++) {
			uint32_t flow, sum;
			uint16_t len, ck, vid, want = m.len[i % 3];

			memset(f, 0xee, 2048);
			len = vf_frames_next(&g, f, &flow, &sum);
			assert_int_equal(len, want < hdr ? hdr : want);
			assert_int_equal(flow, i % fl.n);
			assert_memory_equal(f, B, 6);			/* --eth-peer's */
			assert_int_equal(rd16(f + 12), 0x8100);
			vid = rd16(f + 14);
			assert_int_equal(rd16(f + 16), v6 ? 0x86dd : 0x0800);
			assert_int_equal(f[len], 0xee);
			if (len >= hdr + 4)
				assert_memory_equal(f + hdr, payload, 4);
			if (fixed) {
				assert_int_equal(vid, 4094);
				assert_memory_equal(f + 6, A, 6);	/* the port's */
			} else {
				uint32_t low = (uint32_t)f[8] << 24 | (uint32_t)f[9] << 16 | rd16(f + 10);

				assert_true(vid >= 10 && vid <= 49 && low >= 0xfe && low <= 0x105);
				assert_true(f[6] == 0x0a && f[7] == 0);
				seen_vid |= 1ull << (vid - 10);
				seen_mac |= 1ull << (low - 0xfe);
				/* the walk's order: the MAC turns faster */
				assert_int_equal(low - 0xfe, (i % fl.n) % 8);
			}
			if (v6) {
				assert_int_equal(rd16(f + 22), len - 58);	/* payload length */
				assert_int_equal(rd16(f + 62), len - 58);	/* UDP length */
			} else {
				assert_int_equal(rd16(f + 20), len - 18);
				assert_int_equal(rd16(f + 42), len - 38);
			}
			sum = (sum & 0xffff) + (sum >> 16);
			sum = (sum & 0xffff) + (sum >> 16);
			ck = (uint16_t)~sum;
			if (!ck)
				ck = 0xffff;
			memcpy(f + g.l4_off + 6, &ck, 2);
			assert_true(vf_pkt_cksums_ok(f, len));
			ck = (uint16_t)(ck ^ 0x0100);
			memcpy(f + g.l4_off + 6, &ck, 2);
			assert_false(vf_pkt_cksums_ok(f, len));	/* the check sees the tagged frame */
		}
		if (!fixed) {
			assert_true(seen_vid == (1ull << 40) - 1);
			assert_int_equal(seen_mac, 0xff);
		}
		free(f);
		free(mem);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse6),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_l2),
		cmocka_unit_test(test_frames_l2),
		cmocka_unit_test(test_frames6),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_perm),
		cmocka_unit_test(test_perm_uniform),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_walk_default_matches_build),
		cmocka_unit_test(test_frames),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
