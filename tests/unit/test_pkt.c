/* The modes' per-packet transforms, checked byte by byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vf_pkt.h"

static const uint8_t A[6] = { 0x02, 0, 0, 0, 0, 0xaa }, B[6] = { 0x02, 0, 0, 0, 0, 0xbb };
static const uint8_t US[6] = { 0x02, 0x76, 0x66, 0, 0, 1 };

/* An independent RFC 1071 sum, so the test does not trust the code under test. */
static uint16_t csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static size_t eth(uint8_t *f, const uint8_t *dst, const uint8_t *src, uint16_t type)
{
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = (uint8_t)(type >> 8);
	f[13] = (uint8_t)type;
	return 14;
}

static size_t ipv4(uint8_t *ip, uint8_t proto, uint16_t payload, const uint8_t s[4], const uint8_t d[4])
{
	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[2] = (uint8_t)((20 + payload) >> 8);
	ip[3] = (uint8_t)(20 + payload);
	ip[8] = 17;
	ip[9] = proto;
	memcpy(ip + 12, s, 4);
	memcpy(ip + 16, d, 4);
	uint16_t c = csum(ip, 20);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	return 20;
}

static const uint8_t IP1[4] = { 10, 0, 0, 1 }, IP2[4] = { 10, 0, 0, 2 };

static size_t echo_request(uint8_t *f)
{
	size_t off = eth(f, A, B, 0x0800);
	uint8_t *icmp = f + off + 20;

	ipv4(f + off, 1, 8 + 32, IP1, IP2);
	memset(icmp, 0, 40);
	icmp[0] = 8;
	icmp[4] = 0x12; icmp[5] = 0x34; icmp[7] = 7;	/* id, seq */
	for (int i = 0; i < 32; i++)
		icmp[8 + i] = (uint8_t)i;
	uint16_t c = csum(icmp, 40);
	icmp[2] = (uint8_t)(c >> 8);
	icmp[3] = (uint8_t)c;
	return off + 60;
}

static void test_mac(void **state)
{
	uint8_t f[64] = { 0 };

	assert_true(vf_pkt_set_macs(f, 64, US, A));
	assert_memory_equal(f, A, 6);
	assert_memory_equal(f + 6, US, 6);
	assert_false(vf_pkt_set_macs(f, 13, US, A));
}

static void test_macswap(void **state)
{
	uint8_t f[64] = { 0 };

	eth(f, A, B, 0x0800);
	assert_true(vf_pkt_macswap(f, 64));
	assert_memory_equal(f, B, 6);
	assert_memory_equal(f + 6, A, 6);
	assert_false(vf_pkt_macswap(f, 10));
}

static void test_5tswap_udp4(void **state)
{
	uint8_t f[64] = { 0 };
	size_t off = eth(f, A, B, 0x0800);

	ipv4(f + off, 17, 8, IP1, IP2);
	f[34] = 0x10; f[35] = 0x01; f[36] = 0x20; f[37] = 0x02;
	assert_true(vf_pkt_5tswap(f, 64));
	assert_memory_equal(f, B, 6);
	assert_memory_equal(f + 26, IP2, 4);
	assert_memory_equal(f + 30, IP1, 4);
	assert_int_equal(f[34], 0x20);
	assert_int_equal(f[35], 0x02);
	assert_int_equal(f[36], 0x10);
	assert_int_equal(csum(f + 14, 20), 0);	/* header checksum still valid */
}

static void test_5tswap_tcp6(void **state)
{
	uint8_t f[80] = { 0 }, s6[16], d6[16];
	size_t off = eth(f, A, B, 0x86dd);

	for (int i = 0; i < 16; i++) {
		s6[i] = (uint8_t)i;
		d6[i] = (uint8_t)(0xf0 + i);
	}
	f[off] = 0x60;
	f[off + 6] = 6;
	memcpy(f + off + 8, s6, 16);
	memcpy(f + off + 24, d6, 16);
	f[off + 40] = 0xaa; f[off + 41] = 0x01; f[off + 42] = 0xbb; f[off + 43] = 0x02;
	assert_true(vf_pkt_5tswap(f, 80));
	assert_memory_equal(f + off + 8, d6, 16);
	assert_memory_equal(f + off + 24, s6, 16);
	assert_int_equal(f[off + 40], 0xbb);
	assert_int_equal(f[off + 42], 0xaa);
	/* truncated L4: addresses swapped, ports left alone, no overrun */
	assert_true(vf_pkt_5tswap(f, off + 41));
}

static void test_icmpecho_reply(void **state)
{
	uint8_t f[128], orig[128];
	size_t len = echo_request(f);

	memcpy(orig, f, len);
	assert_true(vf_pkt_icmpecho(f, (uint32_t)len, US));
	assert_memory_equal(f, B, 6);		/* back to the sender */
	assert_memory_equal(f + 6, US, 6);
	assert_memory_equal(f + 26, IP2, 4);
	assert_memory_equal(f + 30, IP1, 4);
	assert_int_equal(f[34], 0);		/* echo reply */
	assert_int_equal(csum(f + 14, 20), 0);
	assert_int_equal(csum(f + 34, 40), 0);
	assert_memory_equal(f + 38, orig + 38, 36);	/* id, seq, data kept */
	assert_true(vf_pkt_cksums_ok(f, (uint32_t)len));
}

static void test_icmpecho_drops(void **state)
{
	uint8_t f[128];
	size_t len = echo_request(f);

	f[34] = 0;	/* already a reply */
	assert_false(vf_pkt_icmpecho(f, (uint32_t)len, US));
	len = echo_request(f);
	assert_false(vf_pkt_icmpecho(f, 40, US));	/* truncated */
	len = echo_request(f);
	f[23] = 17;	/* UDP */
	assert_false(vf_pkt_icmpecho(f, (uint32_t)len, US));
	len = echo_request(f);
	f[20] = 0x20;	/* more fragments */
	assert_false(vf_pkt_icmpecho(f, (uint32_t)len, US));
	memset(f, 0, sizeof(f));
	assert_false(vf_pkt_icmpecho(f, 60, US));
	(void)len;
}

static void test_icmpecho_arp(void **state)
{
	uint8_t f[60] = { 0 };
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	size_t off = eth(f, bcast, A, 0x0806);
	uint8_t *a = f + off;

	a[1] = 1; a[2] = 0x08; a[4] = 6; a[5] = 4; a[7] = 1;	/* request */
	memcpy(a + 8, A, 6);
	memcpy(a + 14, IP1, 4);
	memcpy(a + 24, IP2, 4);
	assert_true(vf_pkt_icmpecho(f, 60, US));
	assert_memory_equal(f, A, 6);
	assert_memory_equal(f + 6, US, 6);
	assert_int_equal(a[7], 2);		/* reply */
	assert_memory_equal(a + 8, US, 6);	/* sender = us */
	assert_memory_equal(a + 14, IP2, 4);	/* for the asked address */
	assert_memory_equal(a + 18, A, 6);
	assert_memory_equal(a + 24, IP1, 4);
	/* an ARP reply is not answered */
	assert_false(vf_pkt_icmpecho(f, 60, US));
}

static void test_txonly_frame(void **state)
{
	uint8_t f[1600];

	for (uint32_t len = 42; len <= 1514; len += 97) {
		memset(f, 0xee, sizeof(f));
		assert_true(vf_pkt_build_udp(f, len, US, A, 0));
		assert_memory_equal(f, A, 6);
		assert_memory_equal(f + 6, US, 6);
		assert_int_equal(f[12] << 8 | f[13], 0x0800);
		assert_int_equal(f[16] << 8 | f[17], len - 14);		/* IP total length */
		assert_int_equal(f[23], 17);
		assert_int_equal(f[38] << 8 | f[39], len - 34);		/* UDP length */
		assert_int_equal(csum(f + 14, 20), 0);
		assert_true(vf_pkt_cksums_ok(f, len));
		assert_int_equal(f[len], 0xee);				/* nothing past len */
	}
	assert_false(vf_pkt_build_udp(f, 41, US, A, 0));
	assert_false(vf_pkt_build_udp(f, 9001, US, A, 0));
	/* flows differ in source address, checksums stay right */
	uint8_t g[64];
	vf_pkt_build_udp(f, 64, US, A, 1);
	vf_pkt_build_udp(g, 64, US, A, 2);
	assert_memory_not_equal(f + 26, g + 26, 4);
	assert_int_equal(csum(g + 14, 20), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mac),
		cmocka_unit_test(test_macswap),
		cmocka_unit_test(test_5tswap_udp4),
		cmocka_unit_test(test_5tswap_tcp6),
		cmocka_unit_test(test_icmpecho_reply),
		cmocka_unit_test(test_icmpecho_drops),
		cmocka_unit_test(test_icmpecho_arp),
		cmocka_unit_test(test_txonly_frame),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
