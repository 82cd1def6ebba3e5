/* One vhost-user request being handled: the context the handlers get, the
 * small helpers they share, and the handlers of each family, which
 * vhost_user.c's table names.  Private to the vhost-user message code. */
#ifndef VH_USER_REQ_H
#define VH_USER_REQ_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "common/vhost_user_proto.h"
#include "vhost_dev.h"

struct vh_ctx {
	struct vh_dev *dev;
	const struct vhost_user_msg *msg;
	int *fds;
	unsigned int nfds;
	struct vhost_user_msg *reply;
	uint32_t reply_size;		/* payload bytes of the reply */
	struct vh_vq *vq;		/* the ring the request names, if any */
};

/* Sets the reason the connection is closed (dev->last_error); returns
 * -EINVAL.  Static: each file of handlers has its own copy, called as when
 * they were one file (variadic, never inlined). */
static inline int reject(struct vh_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline int reject(struct vh_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->dev->last_error, sizeof(c->dev->last_error), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static inline void reply_u64(struct vh_ctx *c, uint64_t v)
{
	c->reply->p.u64 = v;
	c->reply_size = sizeof(uint64_t);
}

/* Takes fds[i] out of the message so the common code does not close it. */
static inline int take_fd(struct vh_ctx *c, unsigned int i)
{
	int fd = c->fds[i];

	c->fds[i] = -1;
	return fd;
}

/* vhost_user_features.c: features, protocol features, owner, status, queue
 * count */
int h_get_features(struct vh_ctx *c);
int h_set_features(struct vh_ctx *c);
int h_nop(struct vh_ctx *c);
int h_reset_owner(struct vh_ctx *c);
int h_get_protocol_features(struct vh_ctx *c);
int h_set_protocol_features(struct vh_ctx *c);
int h_get_queue_num(struct vh_ctx *c);
int h_set_status(struct vh_ctx *c);
int h_get_status(struct vh_ctx *c);

/* vhost_user_mem.c: the memory table, the dirty log, the RARP request */
int h_set_mem_table(struct vh_ctx *c);
int h_set_log_base(struct vh_ctx *c);
int h_send_rarp(struct vh_ctx *c);

/* vhost_user_vring.c: one vring's size, addresses, base, fds, enable */
int h_set_vring_num(struct vh_ctx *c);
int h_set_vring_addr(struct vh_ctx *c);
int h_set_vring_base(struct vh_ctx *c);
int h_get_vring_base(struct vh_ctx *c);
int h_set_vring_kick(struct vh_ctx *c);
int h_set_vring_call(struct vh_ctx *c);
int h_set_vring_err(struct vh_ctx *c);
int h_set_vring_enable(struct vh_ctx *c);

#endif
