/* Rates as people give them: packets per second, L2 or L1 bit/s, or a
 * percentage of the link, and the conversions between them.
 *
 * Frame lengths here are what a generator puts in an mbuf (--txpkts),
 * which, as everywhere in DPDK, excludes the 4-byte FCS the wire adds.
 * L2 bit/s counts the frame with its FCS (as TRex's L2 rate and RFC 2544's
 * frame sizes do: --txpkts 60 is the "64-byte frame"); L1 bit/s adds the
 * preamble and SFD (8 bytes) and the minimum inter-frame gap (12 bytes),
 * so 10 Gbit/s of L1 at --txpkts 60 is 14.88 Mpps.  A percentage is of
 * the link speed, L1 (line rate), as TRex's. */
#ifndef VF_RATE_H
#define VF_RATE_H

#include <stddef.h>
#include <stdint.h>

#define VF_RATE_FCS	4	/* bytes the wire adds to an mbuf's frame */
#define VF_RATE_L1_EXTRA 20	/* preamble + SFD (8) + inter-frame gap (12) */

enum vf_rate_unit {
	VF_RATE_PPS,		/* value: packets per second */
	VF_RATE_L2_BPS,		/* value: bit/s of frames with FCS */
	VF_RATE_L1_BPS,		/* value: bit/s with preamble, SFD and gap */
	VF_RATE_PCT,		/* value: percent (0, 100] of the link, L1 */
};

struct vf_rate {
	enum vf_rate_unit unit;
	double value;
};

/* What vf_rate_parse accepts, for --help and messages. */
#define VF_RATE_SPEC_FORMS \
	"packets/s (200000, 200k, 1.5M, 1.5Mpps, 1G), L2 bit/s (1Mbps, 10Gbps), L1 bit/s (10Gbps-L1) " \
	"or a percent of the link (50%)"

/* A number (decimals allowed) with an optional k, M, G or T and a unit: none
 * or pps (packets/s), bps (L2), bps-L1 or bpsL1 (L1, either case), or %.
 * 0, or -1 with what is accepted in err (not s itself); *r unchanged then.  Bounds: 1 pps ..
 * 1 Gpps, 1 bit/s .. 10 Tbit/s, percent in (0, 100]. */
int vf_rate_parse(const char *s, struct vf_rate *r, char *err, size_t errlen);

/* Bits one frame of len bytes (without FCS) takes on the wire; len may be
 * the mean of a mix of lengths (vf_mix.h), not a whole number. */
static inline double vf_rate_l2_bits(double len)
{
	return 8.0 * (len + VF_RATE_FCS);
}
static inline double vf_rate_l1_bits(double len)
{
	return 8.0 * (len + VF_RATE_FCS + VF_RATE_L1_EXTRA);
}
static inline double vf_rate_l2_bps(double pps, double len)
{
	return pps * vf_rate_l2_bits(len);
}
static inline double vf_rate_l1_bps(double pps, double len)
{
	return pps * vf_rate_l1_bits(len);
}

/* The packets per second r asks for with frames of len bytes (without
 * FCS) on a link of link_bps (L1; only read for a percentage).  -1 when r
 * is a percentage and link_bps is 0 (the port does not know its speed). */
double vf_rate_to_pps(const struct vf_rate *r, double len, uint64_t link_bps);

/* r as text, as given: "1.5 Mpps", "10 Gbit/s L1", "50 %". */
void vf_rate_fmt(char *buf, size_t len, const struct vf_rate *r);

#endif
