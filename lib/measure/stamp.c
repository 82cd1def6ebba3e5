#include "vf_stamp.h"

static uint16_t rd16be(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint64_t vf__csum64_long(const uint8_t *b, uint32_t n, uint64_t sum)
{
	uint64_t lo = 0, hi = 0, x, y;

	/* n is 32-bit: under 2^29 halves below 2^32 in each sum, no
	 * overflow of 64 bits */
	for (; n >= 16; b += 16, n -= 16) {
		memcpy(&x, b, 8);
		memcpy(&y, b + 8, 8);
		lo += (uint32_t)x + (uint64_t)(uint32_t)y;
		hi += (x >> 32) + (y >> 32);
	}
	return vf_csum64(b, n, vf_csum_add(vf_csum_add(sum, lo), hi));
}

uint32_t vf_stamp_base_sum(const uint8_t *f, uint32_t len)
{
	const uint8_t *ip = f + 14, *udp = ip + 20;
	uint16_t proto = 0, ulen;
	uint32_t sum = 0;

	/* pseudo-header: source (high half only), destination, protocol, length */
	sum = vf_stamp_sum(ip + 12, 2, sum);
	sum = vf_stamp_sum(ip + 16, 4, sum);
	((uint8_t *)&proto)[1] = 17;	/* the bytes 0, 17 as a host-order word */
	sum += proto;
	memcpy(&ulen, udp + 4, 2);
	sum += ulen;
	/* UDP header: destination port and length (source port per flow) */
	sum = vf_stamp_sum(udp + 2, 4, sum);
	/* payload after the stamp; an odd last byte is padded with zero */
	if (len > VF_STAMP_MIN_FRAME) {
		uint32_t n = len - VF_STAMP_MIN_FRAME;
		sum = vf_stamp_sum(f + VF_STAMP_MIN_FRAME, n & ~1u, sum);
		if (n & 1) {
			uint16_t w = 0;
			memcpy(&w, f + len - 1, 1);
			sum += w;
		}
	}
	return sum;
}

/* The UDP checksum, non-zero and right: the pseudo-header (the two
 * addresses, alen bytes at addrs; protocol 17; the length) plus the
 * datagram of ulen bytes, of which the first sum_max at most are summed
 * (the rest taken as zeros). */
static bool udp_cksum_ok(const uint8_t *addrs, uint32_t alen, const uint8_t *udp, uint32_t ulen,
			 uint32_t sum_max)
{
	uint64_t sum64 = vf_csum64(addrs, alen, 0);
	uint16_t proto = 0, w;

	((uint8_t *)&proto)[1] = 17;
	sum64 = vf_csum_add(sum64, proto);
	memcpy(&w, udp + 4, 2);
	sum64 = vf_csum_add(sum64, w);
	sum64 = vf_csum64(udp, ulen < sum_max ? ulen : sum_max, sum64);
	memcpy(&w, udp + 6, 2);
	return w != 0 && vf_csum_fold64(sum64) == 0xffff;
}

/* IPv6 at off: UDP right after the fixed header (extension headers are
 * not ours), the checksum over the pseudo-header and the datagram, and a
 * zero checksum is not allowed (RFC 8200 8.1). */
static enum vf_stamp_result parse6(const uint8_t *f, uint32_t len, uint32_t off,
				   struct vf_stamp *s, uint32_t sum_max)
{
	const uint8_t *ip = f + off, *udp = ip + 40, *st = udp + 8;
	uint16_t magic;
	uint32_t ulen;

	if (len < off + 40 + 8 + 2 || (ip[0] >> 4) != 6 || ip[6] != 17)
		return VF_STAMP_FOREIGN;
	memcpy(&magic, st, 2);
	if (magic != VF_STAMP_MAGIC)
		return VF_STAMP_FOREIGN;
	ulen = rd16be(udp + 4);
	if (ulen < 8 + VF_STAMP_LEN || off + 40 + ulen > len || ulen > rd16be(ip + 4))
		return VF_STAMP_CORRUPT;	/* ours, cut short */
	if (!udp_cksum_ok(ip + 8, 32, udp, ulen, sum_max))
		return VF_STAMP_CORRUPT;
	vf_stamp_fields(st, s);
	return VF_STAMP_OK;
}

enum vf_stamp_result vf_stamp_parse(const uint8_t *f, uint32_t len, struct vf_stamp *s)
{
	return vf_stamp_parse_n(f, len, s, VF_STAMP_SUM_ALL);
}

enum vf_stamp_result vf_stamp_parse_n(const uint8_t *f, uint32_t len, struct vf_stamp *s,
				      uint32_t sum_max)
{
	uint32_t off = 14, hl, ulen;
	uint16_t type, magic;
	const uint8_t *ip, *udp, *st;

	if (len < 14)
		return VF_STAMP_FOREIGN;
	type = rd16be(f + 12);
	if (type == 0x8100 && len >= 18) {
		type = rd16be(f + 16);
		off = 18;
	}
	if (type == 0x86dd)
		return parse6(f, len, off, s, sum_max);
	if (type != 0x0800 || len < off + 20)
		return VF_STAMP_FOREIGN;
	ip = f + off;
	hl = (ip[0] & 0xfu) * 4u;
	if ((ip[0] >> 4) != 4 || hl < 20 || ip[9] != 17 || (rd16be(ip + 6) & 0x3fff))
		return VF_STAMP_FOREIGN;	/* not IPv4/UDP, or a fragment */
	udp = ip + hl;
	st = udp + 8;
	if (len < off + hl + 8 + 2)
		return VF_STAMP_FOREIGN;	/* too short to hold even the magic */
	memcpy(&magic, st, 2);
	if (magic != VF_STAMP_MAGIC)
		return VF_STAMP_FOREIGN;
	ulen = rd16be(udp + 4);
	if (ulen < 8 + VF_STAMP_LEN || off + hl + ulen > len ||
	    hl + ulen > rd16be(ip + 2))
		return VF_STAMP_CORRUPT;	/* ours, cut short */
	if (!udp_cksum_ok(ip + 12, 8, udp, ulen, sum_max))
		return VF_STAMP_CORRUPT;
	vf_stamp_fields(st, s);
	return VF_STAMP_OK;
}
