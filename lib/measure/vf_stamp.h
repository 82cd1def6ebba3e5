/* The measurement stamp: 22 bytes right after the UDP header of a generated
 * Ethernet/IPv4/UDP frame, so that it fits in a 64-byte frame (IPv6/UDP:
 * at 62, in frames of 84 bytes and more).
 *
 *    0   magic    u16  0x7646 ("vF")
 *    2   stream   u16  the sending stream
 *    4   flow     u24  0 .. --flows-1
 *    7   epoch    u8   low byte of the run (trial) number: late packets
 *                      from an earlier run are told apart (stale)
 *    8   seq      u64  per stream and run, from 0
 *   16   tsc      u48  TSC at the transmit burst (low 48 bits)
 *
 * Fields are in host byte order: the same host writes and reads them.  The
 * UDP checksum is computed over the whole datagram, so a stamp that was
 * changed on the way is caught as corrupt (and the frames are valid UDP
 * for any device under test that checks).  The payload after the stamp is
 * zeros, which lets a receiver check the headers and the stamp without
 * reading the rest (--check stamp: VF_STAMP_SUM_STAMP). */
#ifndef VF_STAMP_H
#define VF_STAMP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define VF_STAMP_MAGIC 0x7646
#define VF_STAMP_LEN 22
#define VF_STAMP_OFF 42			/* Ethernet 14 + IPv4 20 + UDP 8 */
#define VF_STAMP_MIN_FRAME (VF_STAMP_OFF + VF_STAMP_LEN)
#define VF_STAMP_OFF6 62		/* Ethernet 14 + IPv6 40 + UDP 8 */
#define VF_STAMP_MIN_FRAME6 (VF_STAMP_OFF6 + VF_STAMP_LEN)
#define VF_STAMP_TSC_MASK ((1ull << 48) - 1)
/* How much of the UDP datagram the receiver sums (sum_max below): all of
 * it, or its header and the stamp, the rest taken as the zeros the
 * measure mode sends (a 1500-byte frame: one cache line read, not 24). */
#define VF_STAMP_SUM_ALL UINT32_MAX
#define VF_STAMP_SUM_STAMP (8u + VF_STAMP_LEN)

struct vf_stamp {
	uint16_t stream;
	uint32_t flow;		/* 24 bits */
	uint8_t epoch;
	uint64_t seq;
	uint64_t tsc;		/* 48 bits */
};

enum vf_stamp_result {
	VF_STAMP_OK,
	VF_STAMP_FOREIGN,	/* not IPv4 or IPv6/UDP with our magic where the stamp goes */
	VF_STAMP_CORRUPT,	/* our magic, but truncated or a bad checksum */
};

/* One's-complement sum of n bytes read as host-order 16-bit words (n even). */
static inline uint32_t vf_stamp_sum(const void *p, unsigned int n, uint32_t sum)
{
	const uint8_t *b = p;

	for (unsigned int i = 0; i + 1 < n; i += 2) {
		uint16_t w;
		memcpy(&w, b + i, 2);
		sum += w;
	}
	return sum;
}

static inline uint16_t vf_stamp_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The same sum in wider pieces.  Why it is the same: a 16-bit word at an
 * even offset k inside a wider word weighs 2^(8k), and 2^16 = 1 modulo
 * 2^16 - 1, the one's-complement modulus; the carry out of bit 63 weighs
 * 2^64 = 1 too, so it is added back (end-around).  n may be odd: the last
 * byte counts as the first byte of a word whose second byte is zero, as
 * RFC 768 pads.  p need not be aligned.  Any even-sized load at an even
 * offset weighs its words alike, so the tail is summed in 8-, 4-, 2- and
 * 1-byte pieces. */
static inline uint64_t vf_csum_add(uint64_t sum, uint64_t v)
{
	sum += v;
	return sum + (sum < v);
}

/* vf_csum64 from 128 bytes on (stamp.c): the 32-bit halves of each
 * 8-byte word go into two plain 64-bit sums (a 32-bit word at an even
 * offset weighs its two 16-bit words alike as well), added back once at
 * the end, so no add waits on a carry and the compiler vectorises the
 * loop.  The end-around chain of vf_csum64 waits on every carry: at 1518
 * bytes that was 40 % of a measuring core, 2.3 times slower.  Out of
 * line, so that the short sums (the 64-byte frame's datagram is 30
 * bytes), where the chain measured faster, keep their compact code. */
uint64_t vf__csum64_long(const uint8_t *b, uint32_t n, uint64_t sum);

static inline uint64_t vf_csum64(const void *p, uint32_t n, uint64_t sum)
{
	const uint8_t *b = p;
	uint64_t w8;
	uint32_t w4;
	uint16_t w2;

	if (__builtin_expect(n >= 128, 0))
		return vf__csum64_long(b, n, sum);
	for (; n >= 8; b += 8, n -= 8) {
		memcpy(&w8, b, 8);
		sum = vf_csum_add(sum, w8);
	}
	/* The tail in register-sized loads: a variable-length copy into a
	 * zeroed word would make the add wait on narrow stores. */
	if (n & 4) {
		memcpy(&w4, b, 4);
		sum = vf_csum_add(sum, w4);
		b += 4;
	}
	if (n & 2) {
		memcpy(&w2, b, 2);
		sum = vf_csum_add(sum, w2);
		b += 2;
	}
	if (n & 1) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		sum = vf_csum_add(sum, b[0]);
#else
		sum = vf_csum_add(sum, (uint64_t)b[0] << 8);
#endif
	}
	return sum;
}

static inline uint16_t vf_csum_fold64(uint64_t sum)
{
	uint32_t s = (uint32_t)sum, h = (uint32_t)(sum >> 32);

	s += h;
	s += s < h;
	return vf_stamp_fold(s);
}

/* Writes the stamp at VF_STAMP_OFF and the UDP checksum.  base is the
 * folded-in sum of everything else the checksum covers (pseudo-header,
 * UDP header with checksum 0, payload after the stamp), computed once per
 * template by vf_stamp_base_sum(). */
static inline void vf_stamp_write(uint8_t *frame, const struct vf_stamp *s, uint32_t base)
{
	uint8_t st[24];
	uint16_t magic = VF_STAMP_MAGIC, ck;
	uint32_t fe = (s->flow & 0xffffff) | (uint32_t)s->epoch << 24;
	uint64_t tsc = s->tsc & VF_STAMP_TSC_MASK;

	memcpy(st, &magic, 2);
	memcpy(st + 2, &s->stream, 2);
	memcpy(st + 4, &fe, 4);
	memcpy(st + 8, &s->seq, 8);
	memcpy(st + 16, &tsc, 6);
	memcpy(frame + VF_STAMP_OFF, st, VF_STAMP_LEN);
	ck = (uint16_t)~vf_stamp_fold(vf_stamp_sum(st, VF_STAMP_LEN, base));
	if (ck == 0)
		ck = 0xffff;	/* 0 means "no checksum" in UDP/IPv4 */
	memcpy(frame + 40, &ck, 2);
}

/* The checksum sum of a template frame of len bytes (built by
 * vf_pkt_build_udp) without its stamp and without the parts a flow
 * changes (the low 16 bits of the IPv4 source, the UDP source port). */
uint32_t vf_stamp_base_sum(const uint8_t *frame, uint32_t len);

/* Checks and reads the stamp of a received frame (one untagged or one
 * VLAN-tagged Ethernet header, any IPv4 header length, or IPv6 with UDP
 * as its first next header); the checksum over the whole datagram. */
enum vf_stamp_result vf_stamp_parse(const uint8_t *frame, uint32_t len, struct vf_stamp *s);

/* The same with the checksum over the first sum_max bytes of the datagram
 * at most (VF_STAMP_SUM_ALL or VF_STAMP_SUM_STAMP), the rest taken as
 * zeros. */
enum vf_stamp_result vf_stamp_parse_n(const uint8_t *frame, uint32_t len, struct vf_stamp *s,
				      uint32_t sum_max);

/* The stamp's fields from the 22 bytes at st (magic already checked).
 * The 48-bit TSC is put together in registers: a 6-byte copy into a
 * zeroed 8-byte variable would make the next 8-byte load of it wait for
 * two narrower stores (a store-forwarding stall, a sixth of the receive
 * path's time before). */
static inline void vf_stamp_fields(const uint8_t *st, struct vf_stamp *s)
{
	uint32_t fe, lo;
	uint16_t hi;

	memcpy(&s->stream, st + 2, 2);
	memcpy(&fe, st + 4, 4);
	s->flow = fe & 0xffffff;
	s->epoch = (uint8_t)(fe >> 24);
	memcpy(&s->seq, st + 8, 8);
	memcpy(&lo, st + 16, 4);
	memcpy(&hi, st + 20, 2);
	s->tsc = (uint64_t)lo | (uint64_t)hi << 32;
}

/* vf_stamp_parse for the frames the measure mode sends, which are nearly
 * all it receives: untagged Ethernet, a 20-byte IPv4 header, UDP.  The same
 * checks (the same result for every input), with the UDP checksum summed
 * eight bytes at a time; any other frame (or any frame on a big-endian
 * host) goes the general way. */
static inline enum vf_stamp_result vf_stamp_parse_fast(const uint8_t *f, uint32_t len,
						       struct vf_stamp *s, uint32_t sum_max)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint8_t *ip = f + 14, *udp = f + 34;
	uint16_t ulen_be, iplen_be, magic, ck;
	uint64_t sum, w1, w2;
	uint32_t ulen;

	if (len < VF_STAMP_MIN_FRAME)
		return vf_stamp_parse_n(f, len, s, sum_max);
	/* Two masked 8-byte compares: bytes 12-14 are the EtherType 0x0800
	 * and version 4 with a 20-byte header (0x45); bytes 20-21 the
	 * fragment offset and more-fragments flag (0), byte 23 UDP (17). */
	memcpy(&w1, f + 8, 8);
	memcpy(&w2, f + 16, 8);
	memcpy(&magic, udp + 8, 2);
	if ((w1 & 0x00ffffff00000000ull) != 0x0045000800000000ull ||
	    (w2 & 0xff00ff3f00000000ull) != 0x1100000000000000ull || magic != VF_STAMP_MAGIC)
		return vf_stamp_parse_n(f, len, s, sum_max);
	memcpy(&ulen_be, udp + 4, 2);
	memcpy(&iplen_be, ip + 2, 2);
	ulen = (uint32_t)(ulen_be >> 8 | (ulen_be & 0xff) << 8);
	if (ulen < 8 + VF_STAMP_LEN || 34 + ulen > len ||
	    20 + ulen > (uint32_t)(iplen_be >> 8 | (iplen_be & 0xff) << 8))
		return VF_STAMP_CORRUPT;
	/* pseudo-header: addresses (8 bytes), then zero, protocol, length */
	sum = vf_csum64(ip + 12, 8, (uint64_t)17 << 8);
	sum = vf_csum_add(sum, ulen_be);
	sum = vf_csum64(udp, ulen < sum_max ? ulen : sum_max, sum);
	memcpy(&ck, udp + 6, 2);
	if (ck == 0 || vf_csum_fold64(sum) != 0xffff)
		return VF_STAMP_CORRUPT;
	vf_stamp_fields(udp + 8, s);
	return VF_STAMP_OK;
#else
	return vf_stamp_parse_n(f, len, s, sum_max);
#endif
}

#endif
