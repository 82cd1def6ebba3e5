/* The measurement stamp: written and read back over every frame length,
 * checksums valid (checked independently), flows, VLAN, and short, foreign
 * and corrupted frames classified without reading past the end; the
 * eight-bytes-at-a-time sum equals the word-by-word one, and the fast parser
 * gives the general one's answer for every input. */
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
	assert_int_equal(vf_stamp_parse_fast(t, sizeof(t), &r, VF_STAMP_SUM_ALL), VF_STAMP_OK);
	assert_int_equal(r.seq, 42);
}

/* vf_csum64 against the word-by-word sum (odd tail padded with zero), every
 * length and start offset, random bytes and the all-ones worst case for
 * carries. */
static void test_csum64_equals_words(void **state)
{
	uint8_t buf[1200];
	uint32_t x = 12345;

	for (int fill = 0; fill < 2; fill++) {
		for (size_t i = 0; i < sizeof(buf); i++) {
			x = x * 1103515245u + 12345u;
			buf[i] = fill ? 0xff : (uint8_t)(x >> 16);
		}
		for (uint32_t off = 0; off < 8; off++)
			for (uint32_t n = 0; n + off <= 1190; n++) {
				uint32_t w = vf_stamp_sum(buf + off, n & ~1u, 0xfffe);
				if (n & 1) {
					uint16_t t = 0;
					memcpy(&t, buf + off + n - 1, 1);
					w += t;
				}
				assert_int_equal(vf_csum_fold64(vf_csum64(buf + off, n, 0xfffe)),
						 vf_stamp_fold(w));
			}
	}
}

/* The fast parser and the general one agree on result and fields: our
 * frames of several lengths, each with every byte of its first 70 changed
 * in turn, cut short at every length, and VLAN-tagged. */
static void test_fast_parse_equals_general(void **state)
{
	static const uint32_t lens[] = { 64, 65, 66, 71, 128, 1001 };
	uint8_t f[1100], g[1100];

	for (unsigned int m = 0; m < 2; m++) {
	uint32_t cap = m ? VF_STAMP_SUM_STAMP : VF_STAMP_SUM_ALL;

	for (unsigned int k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		uint32_t len = lens[k];
		struct vf_stamp s = { .stream = 7, .flow = 3, .epoch = 2, .seq = 1000 + len,
				      .tsc = 0xabcdef012345ull }, a, b;

		build(f, len, s.flow, &s);
		for (uint32_t i = 0; i < 70 && i < len; i++)
			for (unsigned int x = 1; x < 256; x += 51) {
				memcpy(g, f, len);
				g[i] ^= (uint8_t)x;
				memset(&a, 0, sizeof(a));
				memset(&b, 0, sizeof(b));
				assert_int_equal(vf_stamp_parse_fast(g, len, &a, cap),
						 vf_stamp_parse_n(g, len, &b, cap));
				assert_memory_equal(&a, &b, sizeof(a));
			}
		for (uint32_t cut = 0; cut <= len; cut++) {
			uint8_t *p = malloc(cut ? cut : 1);	/* exact size: ASan sees overreads */
			memcpy(p, f, cut);
			memset(&a, 0, sizeof(a));
			memset(&b, 0, sizeof(b));
			assert_int_equal(vf_stamp_parse_fast(p, cut, &a, cap), vf_stamp_parse_n(p, cut, &b, cap));
			assert_memory_equal(&a, &b, sizeof(a));
			free(p);
		}
		assert_int_equal(vf_stamp_parse_fast(f, len, &a, cap), VF_STAMP_OK);
		assert_true(a.seq == s.seq && a.tsc == s.tsc && a.stream == 7 && a.flow == 3 &&
			    a.epoch == 2);
	}
	}
}

/* IPv6/UDP: the stamp at 62, the checksum over the IPv6 pseudo-header
 * (summed here independently, big-endian), zero not allowed; anything cut
 * short or changed is caught, read within the frame (exact allocations). */
static void build6(uint8_t *f, uint32_t len, const struct vf_stamp *s)
{
	static const uint8_t src[16] = { 0x20, 1, 0x0d, 0xb8, [15] = 1 };
	static const uint8_t dst[16] = { 0x20, 1, 0x0d, 0xb8, [7] = 1, [15] = 2 };
	uint16_t magic = VF_STAMP_MAGIC;
	uint32_t fe = (s->flow & 0xffffff) | (uint32_t)s->epoch << 24, sum = 0, ulen = len - 54;
	uint8_t *st = f + VF_STAMP_OFF6;

	assert_true(vf_pkt_build_udp6(f, len, A, B, src, dst));
	memcpy(st, &magic, 2);
	memcpy(st + 2, &s->stream, 2);
	memcpy(st + 4, &fe, 4);
	memcpy(st + 8, &s->seq, 8);
	memcpy(st + 16, &s->tsc, 6);
	for (int i = 22; i < 54; i += 2)
		sum += (uint32_t)(f[i] << 8 | f[i + 1]);
	sum += 17 + ulen;
	for (uint32_t i = 0; i < ulen; i += 2)
		sum += (uint32_t)(f[54 + i] << 8 | (i + 1 < ulen ? f[54 + i + 1] : 0));
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	if (sum == 0)
		sum = 0xffff;
	f[60] = (uint8_t)(sum >> 8);
	f[61] = (uint8_t)sum;
}

static void test_ipv6(void **state)
{
	static const uint32_t lens[] = { 84, 85, 128, 1001 };
	uint8_t f[1100], g[1100];

	(void)state;
	for (unsigned int k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		uint32_t len = lens[k];
		struct vf_stamp s = { .stream = 9, .flow = 0x123456, .epoch = 5, .seq = 77 + len,
				      .tsc = 0x0000fedcba987654ull }, a, b;

		build6(f, len, &s);
		assert_true(vf_pkt_cksums_ok(f, len));
		memset(&a, 0, sizeof(a));
		assert_int_equal(vf_stamp_parse_fast(f, len, &a, VF_STAMP_SUM_ALL), VF_STAMP_OK);
		assert_true(a.seq == s.seq && a.tsc == s.tsc && a.stream == 9 &&
			    a.flow == 0x123456 && a.epoch == 5);
		/* any byte changed from the addresses on: caught */
		for (uint32_t i = 22; i < len; i++) {
			memcpy(g, f, len);
			g[i] ^= 0x40;
			assert_int_not_equal(vf_stamp_parse(g, len, &b), VF_STAMP_OK);
		}
		/* cut short: never OK, never read past the end */
		for (uint32_t cut = 0; cut < len; cut++) {
			uint8_t *p = malloc(cut ? cut : 1);

			memcpy(p, f, cut);
			assert_int_not_equal(vf_stamp_parse_fast(p, cut, &b, VF_STAMP_SUM_ALL), VF_STAMP_OK);
			free(p);
		}
		/* a zero checksum is not allowed in IPv6 */
		memcpy(g, f, len);
		g[60] = g[61] = 0;
		assert_int_equal(vf_stamp_parse(g, len, &b), VF_STAMP_CORRUPT);
		/* an extension header first (hop-by-hop): not ours */
		memcpy(g, f, len);
		g[20] = 0;
		assert_int_equal(vf_stamp_parse(g, len, &b), VF_STAMP_FOREIGN);
	}
}

/* --check stamp (VF_STAMP_SUM_STAMP): the headers and the stamp are
 * checked as before, the payload after the stamp is not read.  IPv4
 * (fast and general parser), VLAN-tagged and IPv6: every byte changed in
 * turn; from the addresses to the stamp's end both modes say corrupt or
 * foreign, after it only the full check says corrupt; a 64-byte IPv4
 * frame has nothing after its stamp, so the modes agree on every byte. */
static void test_check_stamp(void **state)
{
	static const uint32_t lens[] = { 64, 65, 128, 1001 };
	uint8_t f[1100], g[1100];
	struct vf_stamp s = { .stream = 4, .flow = 1, .epoch = 3, .seq = 5, .tsc = 6 }, a;

	(void)state;
	for (unsigned int k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		for (int kind = 0; kind < 3; kind++) {	/* IPv4, VLAN, IPv6 */
			uint32_t len = lens[k] + (kind == 1 ? 4 : 0), end, from;

			if (kind == 2) {
				if (lens[k] < VF_STAMP_MIN_FRAME6)
					continue;
				build6(f, lens[k], &s);
				len = lens[k];
				from = 22;
				end = VF_STAMP_MIN_FRAME6;
			} else {
				build(f, lens[k], s.flow, &s);
				from = 26;
				end = VF_STAMP_MIN_FRAME;
				if (kind == 1) {
					memmove(f + 16, f + 12, lens[k] - 12);
					f[12] = 0x81; f[13] = 0x00; f[14] = 0; f[15] = 10;
					from += 4;
					end += 4;
				}
			}
			assert_int_equal(vf_stamp_parse_n(f, len, &a, VF_STAMP_SUM_STAMP), VF_STAMP_OK);
			assert_int_equal(vf_stamp_parse_fast(f, len, &a, VF_STAMP_SUM_STAMP), VF_STAMP_OK);
			assert_true(a.seq == 5 && a.tsc == 6 && a.stream == 4);
			for (uint32_t i = from; i < len; i++) {
				enum vf_stamp_result full, part;

				memcpy(g, f, len);
				g[i] ^= 0x21;
				full = vf_stamp_parse_n(g, len, &a, VF_STAMP_SUM_ALL);
				part = vf_stamp_parse_fast(g, len, &a, VF_STAMP_SUM_STAMP);
				assert_int_not_equal(full, VF_STAMP_OK);
				if (i < end)
					assert_int_not_equal(part, VF_STAMP_OK);
				else
					assert_int_equal(part, VF_STAMP_OK);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_all_lengths),
		cmocka_unit_test(test_corruption_caught),
		cmocka_unit_test(test_short_and_foreign),
		cmocka_unit_test(test_vlan),
		cmocka_unit_test(test_csum64_equals_words),
		cmocka_unit_test(test_fast_parse_equals_general),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_check_stamp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
