/* Per-stream sequence accounting at the receiver: duplicates, reordering
 * and (with the sender's count) loss, in fixed memory.
 *
 * `next` is one past the highest sequence number seen.  A window bitmap
 * remembers which of the VF_SEQ_WIN numbers below `next` arrived, so a
 * packet that comes again is a duplicate and one that arrives behind a
 * higher number is reordered.  A packet older than the window is counted
 * as reordered and `late` (whether it was also a duplicate cannot be told).
 * A jump of any size costs at most one clear of the bitmap. */
#ifndef VF_SEQ_H
#define VF_SEQ_H

#include <stdint.h>
#include <string.h>

#include "vf_ctr.h"

#define VF_SEQ_WIN 4096u
#define VF_SEQ_WORDS (VF_SEQ_WIN / 64)

struct vf_seq {
	uint64_t next;
	/* the receiving core writes these (vf_ctr_add), the main thread
	 * reads them while it runs (vf_ctr_read) */
	uint64_t received;	/* every packet, duplicates included */
	uint64_t dups, reordered, late;
	uint64_t win[VF_SEQ_WORDS];
};

enum vf_seq_kind { VF_SEQ_IN_ORDER, VF_SEQ_REORDERED, VF_SEQ_DUP };

static inline void vf_seq_reset(struct vf_seq *s)
{
	memset(s, 0, sizeof(*s));
}

static inline enum vf_seq_kind vf_seq_add(struct vf_seq *s, uint64_t seq)
{
	uint64_t bit = 1ull << (seq % 64);
	uint64_t *w = &s->win[(seq / 64) % VF_SEQ_WORDS];

	vf_ctr_add(s->received, 1);
	if (__builtin_expect(seq == s->next, 1)) {
		/* The common case, in order: the bit to set is the one the
		 * window forgets (seq - VF_SEQ_WIN), so setting it is the slide. */
		*w |= bit;
		s->next = seq + 1;
		return VF_SEQ_IN_ORDER;
	}
	if (seq >= s->next) {
		/* Forget the numbers the window slides over: [next, seq]. */
		if (seq - s->next >= VF_SEQ_WIN) {
			memset(s->win, 0, sizeof(s->win));
		} else {
			/* A word at a time (a burst that arrives backwards jumps
			 * 31 ahead every 32 frames); counted, not compared: seq
			 * may be the largest number. */
			uint64_t q = s->next, left = seq - s->next + 1;

			while (left) {
				unsigned int b = q % 64;
				uint64_t take = 64 - b < left ? 64 - b : left;
				uint64_t mask = take == 64 ? ~0ull : ((1ull << take) - 1) << b;

				s->win[(q / 64) % VF_SEQ_WORDS] &= ~mask;
				q += take;
				left -= take;
			}
		}
		*w |= bit;
		s->next = seq + 1;
		return VF_SEQ_IN_ORDER;
	}
	if (s->next - seq > VF_SEQ_WIN) {
		vf_ctr_add(s->reordered, 1);
		vf_ctr_add(s->late, 1);
		return VF_SEQ_REORDERED;
	}
	if (*w & bit) {
		vf_ctr_add(s->dups, 1);
		return VF_SEQ_DUP;
	}
	*w |= bit;
	vf_ctr_add(s->reordered, 1);
	return VF_SEQ_REORDERED;
}

/* Distinct packets received (duplicates removed); any thread. */
static inline uint64_t vf_seq_unique(const struct vf_seq *s)
{
	return vf_ctr_read(s->received) - vf_ctr_read(s->dups);
}

#endif
