/* The frames a generating stream sends (txonly, flowgen, measure): one
 * Ethernet/IPv4/UDP or Ethernet/IPv6/UDP template of the longest length
 * (with --flow-vlan, one 802.1Q tag after the MAC addresses: everything
 * after it VF_FRAMES_VLAN_LEN bytes further), the lengths of the --txpkts
 * mix in their schedule (vf_mix.h) and the walk over the flows
 * (vf_flow.h).  The offsets below are those of an untagged frame.
 *
 * Per frame: the template's first len bytes are copied, the two length
 * fields, the addresses and ports written, and the IPv4 checksum taken
 * from the length's precomputed sum plus the flow's address words (RFC
 * 1624; IPv6 has none); the UDP checksum's sum of everything but what the caller writes
 * later (the measuring stamp) comes back the same way.  Frame i of a
 * stream has the schedule's slot i mod period and flow i mod n, so a
 * stream that takes frames back (a full ring) seeks to where it was. */
#ifndef VF_FRAMES_H
#define VF_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_memcpy.h>

#include "vf_flow.h"
#include "vf_mix.h"

#define VF_FRAMES_L4_OFF 34		/* Ethernet 14 + IPv4 20 */
#define VF_FRAMES_PAYLOAD_OFF 42	/* + UDP 8 */
#define VF_FRAMES_L4_OFF6 54		/* Ethernet 14 + IPv6 40 */
#define VF_FRAMES_PAYLOAD_OFF6 62	/* + UDP 8 */
#define VF_FRAMES_SRC6_LOW 34		/* the IPv6 source's last 32 bits */
#define VF_FRAMES_DST6_LOW 50		/* the destination's */
#define VF_FRAMES_VLAN_LEN 4		/* an 802.1Q tag: TPID 0x8100, TCI */

struct vf_frame_len {
	uint16_t len;
	uint16_t ip_len_be, udp_len_be;	/* as stored in the frame */
	uint32_t ip_sum;	/* IPv4 header words but addresses and checksum */
	uint32_t udp_sum;	/* UDP checksum words but addresses, ports and checksum:
				 * pseudo-header protocol and length, the length
				 * field, the template's payload (IPv6: and the
				 * addresses' fixed first 96 bits) */
};

struct vf_frames {
	uint32_t pos, period;		/* the schedule: the next slot, slots */
	const uint8_t *sched;		/* length index of each slot */
	bool mixed;			/* more than one length */
	bool flows;			/* more than one flow */
	bool v6;			/* IPv6: the offsets below */
	bool l2;			/* a MAC address or the VLAN ID varies */
	uint8_t sh;			/* the tag's length, or 0: the L3 header's shift */
	uint16_t l4_off, payload_off;	/* VF_FRAMES_L4_OFF ... or their IPv6 forms,
					 * + sh */
	uint16_t nlens;
	struct vf_frame_len lens[VF_MIX_MAX_SIZES];
	struct vf_flow_walk walk;
	uint16_t tmpl_len;		/* the longest length */
	uint8_t *tmpl;			/* in the caller's memory; sched follows it */
};

/* Bytes of memory vf_frames_init needs for a mix and fl's resolved flows
 * (the template and the schedule). */
size_t vf_frames_mem_size(const struct vf_mix *mix, const struct vf_flows *fl,
			  unsigned int min_len);
/* Builds g in mem (vf_frames_mem_size bytes, cache-line aligned; g points
 * into it, so it lives as long as mem does: nothing else to free) for
 * frames with the lengths of mix (each at least min_len) and the flows of
 * fl (resolved; its family), from smac to dmac (unless fl gives them), with
 * payload_len bytes of payload at the start of the UDP payload (the rest
 * zero).  A length below the headers' (42 or 62 bytes, 4 more with a tag)
 * is raised to them. */
void vf_frames_init(struct vf_frames *g, void *mem, const struct vf_mix *mix,
		    const struct vf_flows *fl, unsigned int min_len, const uint8_t smac[6],
		    const uint8_t dmac[6], const void *payload, size_t payload_len);
/* Segments of seg bytes that a frame of len bytes takes. */
static inline unsigned int vf_frames_segs(uint32_t len, uint32_t seg)
{
	return len <= seg ? 1 : (len + seg - 1) / seg;
}

/* Tail segments (all but the first) the next n frames need, from the
 * schedule's lengths: so that a burst takes them from the pool at once. */
static inline unsigned int vf_frames_tails(const struct vf_frames *g, unsigned int n, uint32_t seg)
{
	unsigned int k = 0;
	uint32_t pos = g->pos;

	for (unsigned int i = 0; i < n; i++) {
		k += vf_frames_segs(g->lens[g->sched[pos]].len, seg) - 1;
		if (++pos == g->period)
			pos = 0;
	}
	return k;
}

/* The UDP checksum from the sum vf_frames_next gave (with what the caller
 * added), stored at off: IPv4 may leave it out, IPv6 may not. */
static inline void vf_frames_udp_cksum(uint8_t *d, uint16_t off, uint32_t sum)
{
	uint16_t ck;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ck = (uint16_t)~sum;
	if (ck == 0)
		ck = 0xffff;
	memcpy(d + off + 6, &ck, 2);
}

/* Frame seq of the stream comes next (slot and flow; a division). */
void vf_frames_seek(struct vf_frames *g, uint64_t seq);

/* Writes the next frame into d (room for tmpl_len bytes) and returns its
 * length; *flow: its flow number; *udp_sum: the UDP checksum's words
 * but the checksum and what the caller adds to the payload (the
 * template's payload is in). */
static inline uint16_t vf_frames_next(struct vf_frames *g, uint8_t *d, uint32_t *flow,
				      uint32_t *udp_sum)
{
	const struct vf_frame_len *z = &g->lens[g->sched[g->pos]];
	struct vf_flow_walk *w = &g->walk;

	if (++g->pos == g->period)
		g->pos = 0;
	rte_memcpy(d, g->tmpl, z->len);
	*flow = w->k;
	*udp_sum = z->udp_sum + w->addr_sum + w->port_sum;
	if (unlikely(g->l2)) {	/* the MAC addresses' last 32 bits, the tag */
		memcpy(d + 2, &w->dmac_be, 4);
		memcpy(d + 8, &w->smac_be, 4);
		if (g->sh)
			memcpy(d + 14, &w->tci_be, 2);
	}
	d += g->sh;	/* past the tag: the untagged offsets */
	if (unlikely(g->v6)) {
		/* no IP checksum; the lengths and the addresses' last words */
		if (g->mixed) {
			memcpy(d + 18, &z->ip_len_be, 2);
			memcpy(d + VF_FRAMES_L4_OFF6 + 4, &z->udp_len_be, 2);
		}
		if (g->flows) {
			memcpy(d + VF_FRAMES_SRC6_LOW, &w->src_be, 4);
			memcpy(d + VF_FRAMES_DST6_LOW, &w->dst_be, 4);
			memcpy(d + VF_FRAMES_L4_OFF6, &w->sport_be, 2);
			memcpy(d + VF_FRAMES_L4_OFF6 + 2, &w->dport_be, 2);
			vf_flow_next(w);
		}
		return z->len;
	}
	if (g->mixed) {
		memcpy(d + 16, &z->ip_len_be, 2);
		memcpy(d + VF_FRAMES_L4_OFF + 4, &z->udp_len_be, 2);
	}
	if (g->flows || g->mixed) {
		uint32_t s = z->ip_sum + w->addr_sum;
		uint16_t ck;

		s = (s & 0xffff) + (s >> 16);
		s = (s & 0xffff) + (s >> 16);
		ck = (uint16_t)~s;
		memcpy(d + 24, &ck, 2);
		memcpy(d + 26, &w->src_be, 4);
		memcpy(d + 30, &w->dst_be, 4);
		memcpy(d + VF_FRAMES_L4_OFF, &w->sport_be, 2);
		memcpy(d + VF_FRAMES_L4_OFF + 2, &w->dport_be, 2);
		vf_flow_next(w);
	}
	return z->len;
}

#endif
