/* The measurement stamp: 22 bytes right after the UDP header of a generated
 * Ethernet/IPv4/UDP frame, so that it fits in a 64-byte frame.
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
 * for any device under test that checks). */
#ifndef VF_STAMP_H
#define VF_STAMP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define VF_STAMP_MAGIC 0x7646
#define VF_STAMP_LEN 22
#define VF_STAMP_OFF 42			/* Ethernet 14 + IPv4 20 + UDP 8 */
#define VF_STAMP_MIN_FRAME (VF_STAMP_OFF + VF_STAMP_LEN)
#define VF_STAMP_TSC_MASK ((1ull << 48) - 1)

struct vf_stamp {
	uint16_t stream;
	uint32_t flow;		/* 24 bits */
	uint8_t epoch;
	uint64_t seq;
	uint64_t tsc;		/* 48 bits */
};

enum vf_stamp_result {
	VF_STAMP_OK,
	VF_STAMP_FOREIGN,	/* not IPv4/UDP with our magic where the stamp goes */
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
 * VLAN-tagged Ethernet header, any IPv4 header length). */
enum vf_stamp_result vf_stamp_parse(const uint8_t *frame, uint32_t len, struct vf_stamp *s);

#endif
