/* libFuzzer: received frames (untrusted: whatever a peer or a device under
 * test hands back) through the measurement stamp parser and the sequence
 * window, in a buffer of exactly the frame's size. */
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
	struct vf_stamp s;

	if (!f)
		return 0;
	memcpy(f, data, size);
	if (vf_stamp_parse(f, (uint32_t)size, &s) == VF_STAMP_OK) {
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
