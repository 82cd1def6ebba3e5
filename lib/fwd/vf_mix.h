/* Frame-size mixes (--txpkts): one length, a list (64,570,1518), a list
 * with weights (64:7,570:4,1518:1) or a named mix (imix), and the fixed
 * order in which a generating stream sends them.
 *
 * Lengths are what a generator puts in an mbuf, without the 4-byte FCS the
 * wire adds (as --txpkts has always been, and as vf_rate.h counts).  The
 * order is a schedule of period = sum of the weights (reduced by their
 * greatest common divisor) slots, interleaved so that every size is spread
 * as evenly over the period as its weight allows (smooth weighted round
 * robin): frame i of a stream has the length of slot i mod period, so the
 * hot path reads a table and counts; it never draws a random number or
 * divides.  Pure computation, no DPDK: unit-tested directly. */
#ifndef VF_MIX_H
#define VF_MIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VF_MIX_MAX_SIZES 16		/* lengths in one mix */
#define VF_MIX_MAX_PERIOD 65536u	/* sum of the weights (after the gcd) */
#define VF_MIX_MIN_LEN 42		/* Ethernet + IPv4 + UDP headers */
#define VF_MIX_MAX_LEN 9000		/* jumbo; past one mbuf's data room, chained (vf_chain.h) */

/* The named mixes, for messages and completion. */
#define VF_MIX_NAMES "imix"
#define VF_MIX_FORMS "a length (64), a list (64,570,1518), lengths with weights " \
	"(64:7,570:4,1518:1) or imix (64:7,570:4,1518:1)"

struct vf_mix {
	uint16_t n;				/* lengths, >= 1 */
	uint16_t len[VF_MIX_MAX_SIZES];		/* as given (a length may repeat) */
	uint32_t weight[VF_MIX_MAX_SIZES];	/* reduced by their gcd */
	char name[8];				/* "imix", or "" */
};

/* One length, no weights: what --txpkts N has always meant. */
void vf_mix_single(struct vf_mix *m, uint16_t len);
/* Parses s (VF_MIX_FORMS) with every length in [min_len, max_len] and
 * every weight in 1..VF_MIX_MAX_PERIOD, their sum after the gcd at most
 * VF_MIX_MAX_PERIOD.  0, or -1 with what is wrong and what is accepted in
 * err; *m is unchanged then. */
int vf_mix_parse(const char *s, struct vf_mix *m, unsigned int min_len, unsigned int max_len,
		 char *err, size_t errlen);
/* m as text, as it parses back: "64", "64,128", "64:7,570:4,1518:1",
 * "imix".  Returns what snprintf returns. */
int vf_mix_fmt(char *buf, size_t len, const struct vf_mix *m);
/* m described for a report: "64-byte", "imix (64:7,570:4,1518:1, mean
 * 353.8 bytes)". */
void vf_mix_describe(char *buf, size_t len, const struct vf_mix *m, unsigned int min_len);

/* Slots in one period: the sum of the weights. */
uint32_t vf_mix_period(const struct vf_mix *m);
/* The mean frame length, each length raised to min_len first (the
 * measuring mode's stamp needs a minimum frame). */
double vf_mix_mean(const struct vf_mix *m, unsigned int min_len);
/* The longest and the shortest length. */
unsigned int vf_mix_max(const struct vf_mix *m);
unsigned int vf_mix_min(const struct vf_mix *m);
/* True when the mix is one length. */
static inline bool vf_mix_is_single(const struct vf_mix *m)
{
	return m->n == 1;
}

/* Writes the schedule, vf_mix_period(m) entries: the index in m->len of
 * each slot's length.  Every index i appears weight[i] times, two of its
 * slots (around the wrap too) at most m->n further apart than the even
 * spacing ceil(period / weight[i]); the same schedule every time. */
void vf_mix_schedule(const struct vf_mix *m, uint8_t *slot);
/* How many of the first count frames of a stream have length index i
 * (for tests and reports: exact, from the schedule). */
uint64_t vf_mix_count(const struct vf_mix *m, const uint8_t *slot, uint64_t count, unsigned int i);

#endif
