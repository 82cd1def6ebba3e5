/* The flows of the generators (--flow-src, --flow-dst, --flow-sport,
 * --flow-dport, --flow-src-mac, --flow-dst-mac, --flow-vlan, --flows):
 * which addresses, UDP ports, MAC addresses and VLAN ID the frames carry,
 * and in what order.
 *
 * Each field is a fixed value, an increasing range or a range in a seeded
 * random order.  The tuples are the product of the ranges, walked as an
 * odometer: the source address turns fastest, then the destination, the
 * source port, the destination port, the source and destination MAC, the
 * VLAN ID.  Flow k of n is the k-th tuple of
 * that walk, so n flows are n distinct tuples (n is at most the product),
 * and a stream sends flow 0, 1, ... n-1, 0, ...
 *
 * A random range is a permutation of the range chosen by its seed (a
 * bijection on the next power of two, cycle-walked into the range): every
 * value once before any repeats, in an order that looks random and is the
 * same for the same seed.  The walk moves one flow per frame without a
 * division: a digit counts up and carries; only the digits that changed
 * are recomputed, and the words the checksums need are kept beside them
 * (RFC 1624: the checksum follows the words that change).  Pure
 * computation, no DPDK: unit-tested directly. */
#ifndef VF_FLOW_H
#define VF_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <arpa/inet.h>

enum vf_field_id {
	VF_FIELD_SRC, VF_FIELD_DST, VF_FIELD_SPORT, VF_FIELD_DPORT,
	VF_FIELD_SMAC, VF_FIELD_DMAC, VF_FIELD_VLAN, VF_NB_FIELDS
};
enum vf_field_mode { VF_FIELD_FIXED, VF_FIELD_INC, VF_FIELD_RANDOM };

#define VF_FLOWS_MAX (1u << 24)		/* the measuring stamp's flow is 24 bits */
#define VF_FIELD_FORMS_ADDR "an address (10.0.0.1 or 2001:2::1), a range (10.0.0.1-10.0.3.255, " \
	"2001:2::1-2001:2::ffff) or a prefix (10.0.0.0/22, 2001:2::/112), a range optionally followed " \
	"by :inc (the default) or :random[:SEED]"
#define VF_FIELD_FORMS_PORT "a port (9), or a range (1024-65535) optionally followed by :inc " \
	"(the default) or :random[:SEED]"
#define VF_FIELD_FORMS_MAC "a MAC address (02:00:00:00:00:01) or a range " \
	"(02:00:00:00:00:01-02:00:00:00:ff:ff, the last 32 bits vary) optionally followed by :inc " \
	"(the default) or :random[:SEED]"
#define VF_FIELD_FORMS_VLAN "a VLAN ID (100) or a range (100-199), 0..4095, optionally " \
	"followed by :inc (the default) or :random[:SEED]"

struct vf_field {
	uint8_t mode;		/* enum vf_field_mode */
	bool given;		/* on the command line (else: the default) */
	uint32_t lo, hi;	/* host order; fixed: lo == hi */
	uint64_t seed;		/* random */
	bool v6;		/* an IPv6 address: lo and hi are its last 32 bits */
	uint8_t hi96[12];	/* IPv6: the first 96 bits, the same over the
				 * range; a MAC address: its first 16 bits */
};

/* The fields and the flow count: what the options ask for. */
struct vf_flows {
	struct vf_field f[VF_NB_FIELDS];
	uint32_t n;		/* flows, once resolved (vf_flows_resolve) */
	bool v6;		/* IPv6 frames, once resolved */
	bool vlan;		/* one 802.1Q tag (--flow-vlan given), once resolved */
};

/* The option that sets field id ("flow-src" ...), for messages. */
const char *vf_field_option(enum vf_field_id id);
/* Parses s into *f (given := true): VF_FIELD_FORMS_ADDR for the
 * addresses, VF_FIELD_FORMS_PORT for the ports, VF_FIELD_FORMS_MAC and
 * VF_FIELD_FORMS_VLAN.  0, or -1 with what is
 * wrong and what is accepted in err; *f unchanged then. */
int vf_field_parse(enum vf_field_id id, const char *s, struct vf_field *f, char *err,
		   size_t errlen);
/* f as it parses back: "10.0.0.1-10.0.3.255:random:7". */
int vf_field_fmt(char *buf, size_t len, enum vf_field_id id, const struct vf_field *f);
/* Values in f's range. */
static inline uint64_t vf_field_size(const struct vf_field *f)
{
	return (uint64_t)f->hi - f->lo + 1;
}

/* The flows as the options ask for them, into fl->n, with the fields not
 * given set to their defaults (source 198.18.0.1, destination 198.19.0.2,
 * both ports 9; RFC 2544's benchmarking range; with IPv6, 2001:2::1 and
 * 2001:2:0:1::2 in RFC 5180's 2001:2::/48; the MAC addresses the port's
 * and --eth-peer, filled in by vf_frames_init; no VLAN tag).  A MAC
 * address or VLAN ID given as one value is not a choice of flows: the
 * default spread below stays.  flows: --flows, 0 when
 * not given.  vary: the mode spreads flows by default (flowgen, measure):
 * with no field given the source address walks 198.18.0.1 .. 198.18.255.254
 * and then the source port up from 9, over flows (default 1024) tuples.
 * Otherwise n is --flows or, without it, every tuple of the ranges.  0, or
 * -1 with a message in err (more flows asked than the ranges hold, more
 * than VF_FLOWS_MAX, an IPv4 address beside an IPv6 one). */
int vf_flows_resolve(struct vf_flows *fl, uint32_t flows, bool vary, char *err, size_t errlen);

/* A random range's order: a bijection on [0, 2^bits) cycle-walked into
 * [0, size). */
struct vf_perm {
	uint32_t size, mask, mul1, mul2, add;
	uint8_t shift;
};
void vf_perm_init(struct vf_perm *p, uint32_t size, uint64_t seed);
static inline uint32_t vf_perm_mix(const struct vf_perm *p, uint32_t x)
{
	x = (x * p->mul1) & p->mask;
	x ^= x >> p->shift;
	x = (x + p->add) & p->mask;
	x = (x * p->mul2) & p->mask;
	x ^= x >> p->shift;
	return x;
}
/* The c-th value (0 <= c < size) of the permutation: a value in
 * [0, size), each once over c = 0 .. size - 1.  At most two steps of the
 * bijection on average (2^bits < 2 size). */
static inline uint32_t vf_perm_at(const struct vf_perm *p, uint32_t c)
{
	do
		c = vf_perm_mix(p, c);
	while (c >= p->size);
	return c;
}

/* One stream's place in the walk, and the current tuple as the frame
 * holds it. */
struct vf_flow_walk {
	uint32_t k, n;			/* this flow, of n */
	uint8_t nd;			/* digits: the fields with more than one value */
	uint8_t fld[VF_NB_FIELDS];	/* the field of each digit, fastest first */
	uint32_t c[VF_NB_FIELDS];	/* digit counters */
	uint32_t size[VF_NB_FIELDS];	/* digit sizes */
	struct vf_perm perm[VF_NB_FIELDS];	/* a random digit's order */
	bool random[VF_NB_FIELDS];
	uint32_t lo[VF_NB_FIELDS];	/* by field */
	/* the current tuple, in network order as stored in the frame (IPv6:
	 * the addresses' last 32 bits; the MAC addresses' last 32 bits; the
	 * tag's TCI, priority 0) */
	uint32_t src_be, dst_be;
	uint16_t sport_be, dport_be;
	uint32_t smac_be, dmac_be;
	uint16_t tci_be;
	/* one's-complement sums of the 16-bit words, read in host order as
	 * the checksum code reads frames: the two addresses, the two ports */
	uint32_t addr_sum, port_sum;
};

/* Starts a walk over fl's resolved flows at flow 0. */
void vf_flow_walk_init(struct vf_flow_walk *w, const struct vf_flows *fl);
/* Moves the walk to flow k % n (a division: not for the hot path). */
void vf_flow_seek(struct vf_flow_walk *w, uint64_t k);
/* Field id's current value, host order. */
uint32_t vf_flow_value(const struct vf_flow_walk *w, enum vf_field_id id);

void vf__flow_carry(struct vf_flow_walk *w);

/* Digit d's field from its counter, and the sums. */
static inline void vf__flow_set(struct vf_flow_walk *w, unsigned int d)
{
	unsigned int f = w->fld[d];
	uint32_t v = w->c[d];

	if (w->random[d])
		v = vf_perm_at(&w->perm[d], v);
	v += w->lo[f];
	switch (f) {
	case VF_FIELD_SRC: w->src_be = htonl(v); break;
	case VF_FIELD_DST: w->dst_be = htonl(v); break;
	case VF_FIELD_SPORT: w->sport_be = htons((uint16_t)v); break;
	case VF_FIELD_DPORT: w->dport_be = htons((uint16_t)v); break;
	case VF_FIELD_SMAC: w->smac_be = htonl(v); break;
	case VF_FIELD_DMAC: w->dmac_be = htonl(v); break;
	default: w->tci_be = htons((uint16_t)v); break;
	}
	w->addr_sum = (w->src_be & 0xffff) + (w->src_be >> 16) + (w->dst_be & 0xffff) + (w->dst_be >> 16);
	w->port_sum = (uint32_t)w->sport_be + w->dport_be;
}

/* The next flow: flow 0 after n - 1. */
static inline void vf_flow_next(struct vf_flow_walk *w)
{
	if (w->n <= 1)
		return;
	if (__builtin_expect(++w->k == w->n, 0)) {
		vf_flow_seek(w, 0);
		return;
	}
	if (__builtin_expect(++w->c[0] == w->size[0], 0)) {
		vf__flow_carry(w);
		return;
	}
	vf__flow_set(w, 0);
}

#endif
