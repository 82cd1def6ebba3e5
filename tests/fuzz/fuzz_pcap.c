/* libFuzzer: capture files (untrusted: whatever --pcap names) through the
 * pcap and pcapng reader, in a buffer of exactly the file's size; every
 * frame it accepts must lie inside the buffer and within the limits, and
 * each split (--split) must put every frame on one side, in order. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vf_pcap_read.h"
#include "vf_pcap_split.h"

/* Side 0 then side 1, each ascending, together every frame once: as
 * the two sides partition 0..n-1 in order, their merge must be it. */
static void check_split(const struct vf_pcap *p, enum vf_pcap_split_mode mode)
{
	struct vf_pcap_split s;
	char err[256];
	uint32_t a = 0, b = 0;

	if (vf_pcap_split_build(p, mode, &s, err, sizeof(err))) {
		if (mode == VF_PCAP_SPLIT_IFACE && p->ng)
			abort();	/* only a classic pcap is refused */
		return;
	}
	if (s.n[0] + s.n[1] != p->n)
		abort();
	for (uint32_t i = 0; i < p->n; i++) {
		if (a < s.n[0] && vf_pcap_split_side(&s, 0)[a] == i)
			a++;
		else if (b < s.n[1] && vf_pcap_split_side(&s, 1)[b] == i)
			b++;
		else
			abort();
	}
	vf_pcap_split_free(&s);
}

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
			    fr->ts_ns < ts || fr->iface >= 64 || (!p.ng && fr->iface))
				abort();
			ts = fr->ts_ns;
			bytes += f[fr->off] + f[fr->off + fr->len - 1];	/* touch both ends */
			(void)bytes;
		}
		p.buf = f;	/* vf_pcap_load's part: the frames point into it */
		p.size = size;
		check_split(&p, VF_PCAP_SPLIT_MAC);
		check_split(&p, VF_PCAP_SPLIT_IFACE);
		free(p.frames);
	} else if (!err[0]) {
		abort();	/* a refusal always says why */
	}
	free(f);
	return 0;
}
