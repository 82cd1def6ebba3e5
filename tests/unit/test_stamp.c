/* The measurement stamp: written and read back over every frame length,
 * checksums valid (checked independently), flows, VLAN, and short, foreign
 * and corrupted frames classified without reading past the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vf_pkt.h"
#include "vf_stamp.h"

static const uint8_t A[6] = { 0x02, 0, 0, 0, 0, 0xaa }, B[6] = { 0x02, 0, 0, 0, 0, 0xbb };

static uint16_t host16(const uint8_t *p)
{
	uint16_t w;
	memcpy(&w, p, 2);
	return w;
}

/* A stamped frame as the measure mode builds it (flow in the IPv4 source
 * and UDP source port, IPv4 checksum recomputed). */
static void build(uint8_t *f, uint32_t len, uint32_t flow, const struct vf_stamp *s)
{
	assert_true(vf_pkt_build_udp(f, len, A, B, flow));
	vf_stamp_write(f, s, vf_stamp_base_sum(f, len) + host16(f + 28) + host16(f + 34));
}

/* Independent RFC 768 check of the UDP checksum, big-endian arithmetic. */
static int udp_ok(const uint8_t *f, uint32_t len)
{
	const uint8_t *ip = f + 14, *u = ip + 20;
	uint32_t ulen = (uint32_t)(u[4] << 8 | u[5]), s = 0;

	for (int i = 12; i < 20; i += 2)
		s += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	s += 17 + ulen;
	for (uint32_t i = 0; i < ulen; i += 2)
		s += (uint32_t)(u[i] << 8 | (i + 1 < ulen ? u[i + 1] : 0));
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s == 0xffff && (u[6] | u[7]);
}

static void test_roundtrip_all_lengths(void **state)
{
	uint8_t f[2048];

	for (uint32_t len = VF_STAMP_MIN_FRAME; len <= sizeof(f); len++) {
		struct vf_stamp s = { .stream = (uint16_t)len, .flow = len * 7919 % 0xffffff,
				      .epoch = (uint8_t)len, .seq = 0x0123456789abcdefull + len,
				      .tsc = 0xfedcba987654ull + len }, r;
		build(f, len, s.flow, &s);
		assert_true(vf_pkt_cksums_ok(f, len));
		assert_true(udp_ok(f, len));
		assert_int_equal(vf_stamp_parse(f, len, &r), VF_STAMP_OK);
		assert_int_equal(r.stream, s.stream);
		assert_int_equal(r.flow, s.flow);
		assert_int_equal(r.epoch, s.epoch);
		assert_int_equal(r.seq, s.seq);
		assert_int_equal(r.tsc, s.tsc & VF_STAMP_TSC_MASK);
	}
}

static void test_corruption_caught(void **state)
{
	uint8_t f[128], g[128];
	struct vf_stamp s = { .stream = 3, .flow = 5, .epoch = 9, .seq = 77, .tsc = 12345 }, r;

	build(f, sizeof(f), 5, &s);
	/* any single-byte change from the UDP header on is corrupt or foreign */
	for (uint32_t i = 34; i < sizeof(f); i++)
		for (unsigned int x = 1; x < 256; x += 37) {
			enum vf_stamp_result res;
			memcpy(g, f, sizeof(f));
			g[i] ^= (uint8_t)x;
			res = vf_stamp_parse(g, sizeof(g), &r);
			assert_true(res != VF_STAMP_OK);
			if (i < VF_STAMP_OFF || i >= VF_STAMP_OFF + 2)
				assert_int_equal(res, VF_STAMP_CORRUPT);
		}
	/* a UDP checksum of 0 ("none") is not accepted for our stamp */
	memcpy(g, f, sizeof(f));
	g[40] = g[41] = 0;
	assert_int_equal(vf_stamp_parse(g, sizeof(g), &r), VF_STAMP_CORRUPT);
	/* a frame truncated by the link: the IP/UDP lengths say more */
	assert_int_equal(vf_stamp_parse(f, 100, &r), VF_STAMP_CORRUPT);
	/* an IP total length shorter than the UDP datagram */
	memcpy(g, f, sizeof(f));
	g[17] = 40;
	assert_int_equal(vf_stamp_parse(g, sizeof(g), &r), VF_STAMP_CORRUPT);
}

static void test_short_and_foreign(void **state)
{
	uint8_t f[64];
	struct vf_stamp s = { .stream = 1, .seq = 1 }, r;

	build(f, sizeof(f), 0, &s);
	/* every prefix, each in a buffer of exactly its size (ASan sees overreads) */
	for (uint32_t len = 0; len < sizeof(f); len++) {
		uint8_t *p = malloc(len ? len : 1);
		enum vf_stamp_result res;
		memcpy(p, f, len);
		res = vf_stamp_parse(p, len, &r);
		assert_true(res == (len < 44 ? VF_STAMP_FOREIGN : VF_STAMP_CORRUPT));
		free(p);
	}
	/* not IPv4 */
	uint8_t g[64];
	memcpy(g, f, 64);
	g[12] = 0x86; g[13] = 0xdd;
	assert_int_equal(vf_stamp_parse(g, 64, &r), VF_STAMP_FOREIGN);
	/* not UDP */
	memcpy(g, f, 64);
	g[23] = 6;
	assert_int_equal(vf_stamp_parse(g, 64, &r), VF_STAMP_FOREIGN);
	/* a fragment */
	memcpy(g, f, 64);
	g[20] = 0x20;
	assert_int_equal(vf_stamp_parse(g, 64, &r), VF_STAMP_FOREIGN);
	/* plain UDP without our magic (e.g. txonly's zero payload) */
	assert_true(vf_pkt_build_udp(g, 64, A, B, 0));
	assert_int_equal(vf_stamp_parse(g, 64, &r), VF_STAMP_FOREIGN);
	/* a bad IHL */
	memcpy(g, f, 64);
	g[14] = 0x44;
	assert_int_equal(vf_stamp_parse(g, 64, &r), VF_STAMP_FOREIGN);
	/* an IHL pointing past the frame */
	memcpy(g, f, 64);
	g[14] = 0x4f;
	assert_int_equal(vf_stamp_parse(g, 64, &r), VF_STAMP_FOREIGN);
}

static void test_vlan(void **state)
{
	uint8_t f[100], t[104];
	struct vf_stamp s = { .stream = 2, .seq = 42, .tsc = 99 }, r;

	build(f, sizeof(f), 0, &s);
	memcpy(t, f, 12);
	t[12] = 0x81; t[13] = 0x00; t[14] = 0; t[15] = 10;
	memcpy(t + 16, f + 12, sizeof(f) - 12);
	assert_int_equal(vf_stamp_parse(t, sizeof(t), &r), VF_STAMP_OK);
	assert_int_equal(r.seq, 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_all_lengths),
		cmocka_unit_test(test_corruption_caught),
		cmocka_unit_test(test_short_and_foreign),
		cmocka_unit_test(test_vlan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
