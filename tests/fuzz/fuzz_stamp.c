/* libFuzzer: received frames (untrusted: whatever a peer or a device under
 * test hands back) through the measurement stamp parsers (the general and
 * the fast one, both --check modes) and the sequence window, in a buffer
 * of exactly the frame's size. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vf_hist.h"
#include "vf_seq.h"
#include "vf_stamp.h"

static struct vf_seq seq;
static struct vf_hist hist;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *f = malloc(size ? size : 1);
	struct vf_stamp s, t;
	enum vf_stamp_result full, part;

	if (!f)
		return 0;
	memcpy(f, data, size);
	/* the fast parser answers as the general one, in both modes */
	part = vf_stamp_parse_n(f, (uint32_t)size, &t, VF_STAMP_SUM_STAMP);
	if (vf_stamp_parse_fast(f, (uint32_t)size, &s, VF_STAMP_SUM_STAMP) != part)
		abort();
	full = vf_stamp_parse_fast(f, (uint32_t)size, &t, VF_STAMP_SUM_ALL);
	if (vf_stamp_parse(f, (uint32_t)size, &s) != full)
		abort();
	if (full == VF_STAMP_OK) {
		vf_seq_add(&seq, s.seq);
		vf_hist_add(&hist, s.tsc);
		if (vf_seq_unique(&seq) > seq.received)
			abort();
	}
	/* and the same bytes as a stream of sequence numbers */
	for (size_t i = 0; i + 8 <= size; i += 8) {
		uint64_t v;
		memcpy(&v, data + i, 8);
		vf_seq_add(&seq, v >> (data[0] & 63));
	}
	free(f);
	return 0;
}
