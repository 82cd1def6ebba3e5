/* vf_pcap_split: a capture's frames in two sides, by source MAC or by
 * pcapng interface, each side in capture order, every frame on exactly one
 * side; the mode names; refusals (iface on a classic pcap, none) with a
 * message and nothing to free. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vf_pcap_split.h"

#define N 9

struct cap {
	uint8_t buf[N * 14];
	struct vf_pcap_frame frames[N];
	struct vf_pcap p;
};

/* Frame i: a bare Ethernet header whose source MAC ends in src[i], on
 * interface ifc[i]. */
static void make(struct cap *c, const uint8_t *src, const uint16_t *ifc, int ng)
{
	memset(c, 0, sizeof(*c));
	for (uint32_t i = 0; i < N; i++) {
		uint8_t *h = c->buf + i * 14;

		memset(h, 0xff, 6);
		memcpy(h + 6, "\x02\x00\x00\x00\x00", 5);
		h[11] = src[i];
		c->frames[i] = (struct vf_pcap_frame){ .ts_ns = i * 1000, .off = i * 14, .len = 14,
						       .iface = ifc[i] };
	}
	c->p = (struct vf_pcap){ .buf = c->buf, .size = sizeof(c->buf), .frames = c->frames, .n = N,
				 .bytes = N * 14, .ng = ng };
}

static void expect_side(const struct vf_pcap_split *s, unsigned int side, const uint32_t *want,
			uint32_t n)
{
	assert_int_equal(s->n[side], n);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(vf_pcap_split_side(s, side)[i], want[i]);
}

static void test_mac(void **state)
{
	static const uint8_t src[N] = { 7, 9, 7, 7, 9, 3, 7, 9, 9 };
	static const uint16_t ifc[N] = { 0 };
	static const uint32_t s0[] = { 0, 2, 3, 6 }, s1[] = { 1, 4, 5, 7, 8 };
	struct vf_pcap_split s;
	struct cap c;
	char err[128];

	(void)state;
	for (int ng = 0; ng < 2; ng++) {
		make(&c, src, ifc, ng);
		assert_int_equal(vf_pcap_split_build(&c.p, VF_PCAP_SPLIT_MAC, &s, err, sizeof(err)), 0);
		expect_side(&s, 0, s0, 4);
		expect_side(&s, 1, s1, 5);	/* any other MAC (3 too) is side 1 */
		vf_pcap_split_free(&s);
		assert_null(s.idx);
	}
	/* one MAC only: every frame on side 0, side 1 empty */
	make(&c, (const uint8_t[N]){ 0 }, ifc, 0);
	assert_int_equal(vf_pcap_split_build(&c.p, VF_PCAP_SPLIT_MAC, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n[0], N);
	assert_int_equal(s.n[1], 0);
	vf_pcap_split_free(&s);
}

static void test_iface(void **state)
{
	static const uint8_t src[N] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	static const uint16_t ifc[N] = { 1, 0, 2, 0, 1, 1, 0, 63, 0 };
	static const uint32_t s0[] = { 1, 3, 6, 8 }, s1[] = { 0, 2, 4, 5, 7 };
	struct vf_pcap_split s;
	struct cap c;
	char err[128];

	(void)state;
	make(&c, src, ifc, 1);
	/* interface 0 is side 0 even when the first frame is not on it */
	assert_int_equal(vf_pcap_split_build(&c.p, VF_PCAP_SPLIT_IFACE, &s, err, sizeof(err)), 0);
	expect_side(&s, 0, s0, 4);
	expect_side(&s, 1, s1, 5);
	vf_pcap_split_free(&s);
}

static void test_refused(void **state)
{
	static const uint8_t src[N] = { 1, 2 };
	static const uint16_t ifc[N] = { 0, 1 };
	struct vf_pcap_split s;
	struct cap c;
	char err[128];

	(void)state;
	make(&c, src, ifc, 0);
	err[0] = '\0';
	assert_int_equal(vf_pcap_split_build(&c.p, VF_PCAP_SPLIT_IFACE, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "needs a pcapng"));
	assert_null(s.idx);
	assert_int_equal(s.n[0] + s.n[1], 0);
	assert_int_equal(vf_pcap_split_build(&c.p, VF_PCAP_SPLIT_NONE, &s, err, sizeof(err)), -1);
	assert_null(s.idx);
	vf_pcap_split_free(&s);		/* harmless on a zeroed split */
}

static void test_names(void **state)
{
	enum vf_pcap_split_mode m = VF_PCAP_SPLIT_MAC;

	(void)state;
	assert_int_equal(vf_pcap_split_mode_parse("iface", &m), 0);
	assert_int_equal(m, VF_PCAP_SPLIT_IFACE);
	assert_int_equal(vf_pcap_split_mode_parse("none", &m), 0);
	assert_int_equal(m, VF_PCAP_SPLIT_NONE);
	assert_int_equal(vf_pcap_split_mode_parse("MAC", &m), -1);
	assert_int_equal(vf_pcap_split_mode_parse("", &m), -1);
	assert_int_equal(m, VF_PCAP_SPLIT_NONE);	/* unchanged by a refusal */
	assert_string_equal(vf_pcap_split_mode_name(VF_PCAP_SPLIT_MAC), "mac");
	assert_string_equal(vf_pcap_split_mode_name((enum vf_pcap_split_mode)42), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mac),
		cmocka_unit_test(test_iface),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
