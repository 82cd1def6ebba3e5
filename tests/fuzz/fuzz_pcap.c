/* libFuzzer: capture files (untrusted: whatever --pcap names) through the
 * pcap and pcapng reader, in a buffer of exactly the file's size; every
 * frame it accepts must lie inside the buffer and within the limits. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vf_pcap_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct vf_pcap_limits lim = { 1u << 20, 4096, 2048 };
	uint8_t *f = malloc(size ? size : 1);
	struct vf_pcap p;
	char err[256];

	if (!f)
		return 0;
	memcpy(f, data, size);
	if (vf_pcap_parse(f, size, &lim, &p, err, sizeof(err)) == 0) {
		uint64_t bytes = 0, ts = 0;

		if (p.n == 0 || p.n > lim.max_frames)
			abort();
		for (uint32_t i = 0; i < p.n; i++) {
			const struct vf_pcap_frame *fr = &p.frames[i];

			if (fr->off > size || fr->len > size - fr->off || fr->len > lim.max_frame_len ||
			    fr->ts_ns < ts)
				abort();
			ts = fr->ts_ns;
			bytes += f[fr->off] + f[fr->off + fr->len - 1];	/* touch both ends */
			(void)bytes;
		}
		free(p.frames);
	} else if (!err[0]) {
		abort();	/* a refusal always says why */
	}
	free(f);
	return 0;
}
