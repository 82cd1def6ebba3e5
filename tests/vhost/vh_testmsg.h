/* Test helpers: hand vhost-user messages to the real handler
 * (vh_user_handle) as a front-end would, keeping its last reply. */
#ifndef VH_TESTMSG_H
#define VH_TESTMSG_H

#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "vhost/vhost_dev.h"

/* The device under test and the handler's last reply. */
struct vu_front {
	struct vh_dev *dev;
	struct vhost_user_msg reply;
	uint32_t rlen;
};

/* Sends one message; fds_in are duplicated (the handler owns the copies). */
static inline int vu_msg_fds(struct vu_front *fe, uint32_t req, uint32_t flags,
			     const void *payload, uint32_t size, const int *fds_in,
			     unsigned int nfds)
{
	struct vhost_user_msg m;
	int fds[VHOST_USER_MAX_FDS];

	memset(&m, 0, sizeof(m));
	m.hdr.request = req;
	m.hdr.flags = flags;
	m.hdr.size = size;
	if (payload)
		memcpy(&m.p, payload, size);
	for (unsigned int i = 0; i < nfds; i++)
		fds[i] = dup(fds_in[i]);
	return vh_user_handle(fe->dev, &m, VHOST_USER_HDR_SIZE + size, fds, nfds,
			      &fe->reply, &fe->rlen);
}

/* Most messages: current version flags, no fds. */
static inline int vu_msg(struct vu_front *fe, uint32_t req, const void *payload, uint32_t size)
{
	return vu_msg_fds(fe, req, VHOST_USER_VERSION, payload, size, NULL, 0);
}

/* Messages whose payload is one u64 (features, protocol features). */
static inline int vu_msg_u64(struct vu_front *fe, uint32_t req, uint64_t v)
{
	return vu_msg(fe, req, &v, sizeof(v));
}

/* Messages whose payload is a vring state (index, number). */
static inline int vu_msg_state(struct vu_front *fe, uint32_t req, uint32_t idx, uint32_t num)
{
	struct vhost_vring_state s = { idx, num };

	return vu_msg(fe, req, &s, sizeof(s));
}

#endif
