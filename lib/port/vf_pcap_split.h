/* A capture's frames split in two sides, for replay over a port pair
 * (--split): which frames the stream sending on the pair's first port
 * replays, and which the one sending on its second.  Built once before
 * the run; the forwarding cores only read the index arrays. */
#ifndef VF_PCAP_SPLIT_H
#define VF_PCAP_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "vf_pcap_read.h"

enum vf_pcap_split_mode {
	VF_PCAP_SPLIT_NONE,	/* every stream replays every frame */
	VF_PCAP_SPLIT_MAC,	/* side 0: the first frame's source MAC; side 1: the rest */
	VF_PCAP_SPLIT_IFACE,	/* pcapng: side 0: interface 0; side 1: any other */
};

#define VF_PCAP_SPLIT_NAMES "none|mac|iface"

struct vf_pcap_split {
	uint32_t *idx;		/* side 0's frame indices, then side 1's, each in capture order */
	uint32_t n[2];		/* frames of each side */
};

/* The mode named name (one of VF_PCAP_SPLIT_NAMES): 0, or -1 leaving
 * *mode unchanged. */
int vf_pcap_split_mode_parse(const char *name, enum vf_pcap_split_mode *mode);
const char *vf_pcap_split_mode_name(enum vf_pcap_split_mode mode);

/* Splits cap's frames by mode into out (one array of cap->n indices, the
 * only allocation).  0, or -1 with a message in err and out zeroed: the
 * mode is none, iface on a classic pcap (no interfaces), or no memory. */
int vf_pcap_split_build(const struct vf_pcap *cap, enum vf_pcap_split_mode mode,
			struct vf_pcap_split *out, char *err, size_t errlen);
void vf_pcap_split_free(struct vf_pcap_split *s);

/* The frame indices of side (0 or 1), s->n[side] of them. */
static inline const uint32_t *vf_pcap_split_side(const struct vf_pcap_split *s, unsigned int side)
{
	return s->idx + (side ? s->n[0] : 0);
}

#endif
