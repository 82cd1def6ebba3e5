/* Packet capture to a pcapng file (readable by tshark, tcpdump, Wireshark).
 *
 * A forwarding core only copies: the packets a captured port receives (and
 * those it is given to send, kept once the driver took them) are copied into
 * mbufs of a pool of their own, stamped with the TSC, and put on a ring.  A
 * writer thread turns them into pcapng blocks.  What the pool or the ring
 * cannot take is counted as a capture drop; forwarding never waits for the
 * writer.  One capture at a time. */
#ifndef VF_CAPTURE_H
#define VF_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


/* VF_CAP_RX, VF_CAP_TX and the copying on the cores: the port's tap
 * (vf_port.h). */

struct vf_capture_stats {
	uint16_t port;
	unsigned int dirs;	/* VF_CAP_RX | VF_CAP_TX */
	bool running;
	uint64_t written;	/* packets in the file */
	uint64_t dropped;	/* ring full, no mbuf, write error */
	uint64_t count;		/* stop after this many, 0: no limit */
	char path[512];
};

/* Opens path and starts capturing port.  0, or -1 with a message. */
int vf_capture_start(uint16_t port, unsigned int dirs, const char *path, uint64_t count,
		     char *err, size_t errlen);
/* Stops the capture (all packets copied so far are written), closes the
 * file.  Returns 0, or -1 when none was started. */
int vf_capture_stop(struct vf_capture_stats *st);
/* The current (or last) capture's figures; false when none ever ran. */
bool vf_capture_stats(struct vf_capture_stats *st);
/* Stops a capture of port id (before the port goes away). */
void vf_capture_port_closed(uint16_t id);
/* Parses PORT[:rx|tx|both]:FILE (--capture).  0, or -1 with a message. */
int vf_capture_parse(const char *arg, uint16_t *port, unsigned int *dirs, char *path,
		     size_t pathlen, char *err, size_t errlen);

#endif
