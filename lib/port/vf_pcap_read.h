/* Reading a capture (pcap or pcapng, either byte order) for replay: the
 * whole file is read once, bounded, and every record is checked against
 * the file's and the caller's bounds before it is believed, so a
 * truncated, oversized or malformed file ends in one clear error, never
 * in a read out of bounds.  Ethernet link types only. */
#ifndef VF_PCAP_READ_H
#define VF_PCAP_READ_H

#include <stddef.h>
#include <stdint.h>

struct vf_pcap_limits {
	uint64_t max_file;	/* bytes of the file */
	uint32_t max_frames;
	uint32_t max_frame_len;	/* captured bytes of one frame (one mbuf) */
};

struct vf_pcap_frame {
	uint64_t ts_ns;		/* from the first frame, never going back */
	uint64_t off;		/* of its bytes in vf_pcap.buf */
	uint32_t len;
	uint16_t iface;		/* pcapng: its interface in its section (< 64); pcap: 0 */
};

struct vf_pcap {
	uint8_t *buf;		/* the file */
	size_t size;
	struct vf_pcap_frame *frames;
	uint32_t n;
	uint64_t bytes;		/* captured bytes of all frames */
	int ng;			/* 1: pcapng */
};

/* Parses buf (len bytes; the result points into it, the caller keeps it):
 * 0, or -1 with a message in err (and nothing to free). */
int vf_pcap_parse(const uint8_t *buf, size_t len, const struct vf_pcap_limits *lim,
		  struct vf_pcap *out, char *err, size_t errlen);
/* Reads and parses the file at path: 0, or -1 with a message in err. */
int vf_pcap_load(const char *path, const struct vf_pcap_limits *lim, struct vf_pcap *out,
		 char *err, size_t errlen);
void vf_pcap_free(struct vf_pcap *p);

#endif
