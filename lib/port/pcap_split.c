/* Splitting a capture's frames in two sides (vf_pcap_split.h). */
#include "vf_pcap_split.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
	[VF_PCAP_SPLIT_NONE] = "none",
	[VF_PCAP_SPLIT_MAC] = "mac",
	[VF_PCAP_SPLIT_IFACE] = "iface",
};

int vf_pcap_split_mode_parse(const char *name, enum vf_pcap_split_mode *mode)
{
	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i])) {
			*mode = (enum vf_pcap_split_mode)i;
			return 0;
		}
	return -1;
}

const char *vf_pcap_split_mode_name(enum vf_pcap_split_mode mode)
{
	return (unsigned int)mode < sizeof(names) / sizeof(names[0]) ? names[mode] : "?";
}

/* Side 1 when frame i is not of the first side.  The parser guarantees
 * every frame at least an Ethernet header, so the source MAC (bytes 6 to
 * 11) is there. */
static bool second_side(const struct vf_pcap *cap, enum vf_pcap_split_mode mode, uint32_t i)
{
	const struct vf_pcap_frame *f = &cap->frames[i];

	if (mode == VF_PCAP_SPLIT_IFACE)
		return f->iface != 0;
	return memcmp(cap->buf + f->off + 6, cap->buf + cap->frames[0].off + 6, 6) != 0;
}

int vf_pcap_split_build(const struct vf_pcap *cap, enum vf_pcap_split_mode mode,
			struct vf_pcap_split *out, char *err, size_t errlen)
{
	uint32_t n0 = 0, k[2];

	memset(out, 0, sizeof(*out));
	if (mode != VF_PCAP_SPLIT_MAC && mode != VF_PCAP_SPLIT_IFACE) {
		snprintf(err, errlen, "%s: not a way to split", vf_pcap_split_mode_name(mode));
		return -1;
	}
	if (mode == VF_PCAP_SPLIT_IFACE && !cap->ng) {
		snprintf(err, errlen, "a split by interface needs a pcapng capture: a pcap file has "
			 "no interfaces (mac splits by source MAC)");
		return -1;
	}
	out->idx = malloc((cap->n ? cap->n : 1) * sizeof(*out->idx));
	if (!out->idx) {
		snprintf(err, errlen, "out of memory for the split of %u frames", cap->n);
		return -1;
	}
	/* two passes, so each side's frames stay in capture order in one array */
	for (uint32_t i = 0; i < cap->n; i++)
		n0 += !second_side(cap, mode, i);
	k[0] = 0;
	k[1] = n0;
	for (uint32_t i = 0; i < cap->n; i++)
		out->idx[k[second_side(cap, mode, i)]++] = i;
	out->n[0] = n0;
	out->n[1] = cap->n - n0;
	return 0;
}

void vf_pcap_split_free(struct vf_pcap_split *s)
{
	free(s->idx);
	memset(s, 0, sizeof(*s));
}
