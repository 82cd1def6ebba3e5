/* The takeover's records (vhost_takeover.h), as they travel on the
 * control socket.  Both ends are our own build, but the new one checks
 * everything it gets: sizes and counts against our limits, each fd against
 * what the record says should come, and every value the replay hands to
 * the vhost-user handlers is validated there as a front-end's would be. */
#ifndef VH_TAKEOVER_WIRE_H
#define VH_TAKEOVER_WIRE_H

#include <stdint.h>

#include "common/vhost_user_proto.h"
#include "vhost_dev.h"

#define VH_TO_MAGIC	0x4f544656u	/* "VFTO" */
#define VH_TO_VERSION	1u

/* old -> new, first: how many device records follow, or why none will. */
struct vh_to_hello {
	uint32_t magic;
	uint16_t version;
	uint16_t ndev;		/* VH_TO_REFUSED: refused, see why */
	uint32_t dev_size;	/* sizeof(struct vh_to_dev) of the sender */
	int32_t pid;
	char why[112];
} __attribute__((packed));
#define VH_TO_REFUSED 0xffff

enum {
	VH_TO_VQ_NUM = 1, VH_TO_VQ_ADDR = 2, VH_TO_VQ_KICK = 4, VH_TO_VQ_CALL = 8,
	VH_TO_VQ_ENABLED = 16, VH_TO_VQ_KICKFD = 32, VH_TO_VQ_CALLFD = 64,
};

struct vh_to_vq {
	uint8_t flags;			/* VH_TO_VQ_* */
	uint8_t avail_wrap, used_wrap;	/* packed */
	uint8_t pad;
	uint16_t size, last_avail, last_used;
	uint16_t pad2;
	struct vhost_vring_addr addr;
} __attribute__((packed));

enum { VH_TO_DEV_CONN = 1, VH_TO_DEV_FEATURES = 2, VH_TO_DEV_LOG = 4 };

struct vh_to_region {
	uint64_t gpa, size, uva, offset;
} __attribute__((packed));

/* One device; its fds come with it, in this order: the listening socket,
 * the connection (CONN), one per region, the log (LOG), then per vring
 * the kick fd (KICKFD) and the call fd (CALLFD). */
struct vh_to_dev {
	char path[108];
	uint16_t nb_qp;
	uint8_t status;
	uint8_t flags;			/* VH_TO_DEV_* */
	uint32_t nregions;
	uint64_t features, protocol_features;
	uint64_t log_size, log_offset;
	struct vh_to_region r[VHOST_USER_MAX_REGIONS];
	struct vh_to_vq vq[VH_MAX_VRINGS];
} __attribute__((packed));

#define VH_TO_MAX_FDS (2 + VHOST_USER_MAX_REGIONS + 1 + 2 * VH_MAX_VRINGS)

/* new -> old after the records, and old -> new after a commit: 4 bytes. */
#define VH_TO_COMMIT	0x54494d43u	/* "CMIT": taken over, exit */
#define VH_TO_ABORT	0x54524241u	/* "ABRT": go on serving */
#define VH_TO_BYE	0x20455942u	/* "BYE ": committed, exiting */

/* Fds a record says come with it, or -1 when its counts are out of range. */
static inline int vh_to_dev_nfds(const struct vh_to_dev *d)
{
	int n = 1;

	if (d->nb_qp == 0 || d->nb_qp > VF_MAX_QUEUES || d->nregions > VHOST_USER_MAX_REGIONS)
		return -1;
	n += (d->flags & VH_TO_DEV_CONN) ? 1 : 0;
	n += (int)d->nregions;
	n += (d->flags & VH_TO_DEV_LOG) ? 1 : 0;
	for (unsigned int i = 0; i < 2u * d->nb_qp; i++)
		n += !!(d->vq[i].flags & VH_TO_VQ_KICKFD) + !!(d->vq[i].flags & VH_TO_VQ_CALLFD);
	return n;
}

/* vhost_takeover_io.c: the whole of buf, with nfds fds on its first byte
 * (sendmsg; blocking, the socket's timeouts bound it).  0 or -errno. */
int vh_to_send(int fd, const void *buf, size_t len, const int *fds, int nfds);
/* Exactly len bytes into buf, and the fds that came with them (at most
 * maxfds; more, or a truncated control message, is an error, every fd
 * received then closed).  0, -ECONNRESET at EOF, or -errno. */
int vh_to_recv(int fd, void *buf, size_t len, int *fds, int maxfds, int *nfds);
void vh_to_close_fds(int *fds, int n);

/* vhost_conn_takeover.c: the devices' sockets across a takeover. */
int vh_conn_pause_ok(const struct vh_dev *dev, char *why, size_t len);
void vh_conn_pause(struct vh_dev *dev, int step);
void vh_conn_resume(struct vh_dev *dev);
void vh_conn_handed(struct vh_dev *dev);
int vh_conn_adopt(struct vh_dev *dev, int lfd, int cfd, char *why, size_t len);
void vh_conn_unadopt(struct vh_dev *dev);
void vh_conn_release(struct vh_dev *dev);

/* vhost_handover.c (old side): the record and fds of a paused device. */
int vh_to_export(const struct vh_dev *dev, struct vh_to_dev *rec, int *fds);
/* vhost_adopt.c (new side): rebuilds dev from rec and its fds (taken,
 * whatever the result); the rings stay held.  0, or -1 with why. */
int vh_to_adopt(struct vh_dev *dev, const struct vh_to_dev *rec, int *fds, int nfds,
		char *why, size_t len);

#endif
