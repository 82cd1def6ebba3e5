/* vhost-user protocol, device side: one table says, per request, the
 * payload sizes and fds it may carry and whether it has a reply; the
 * handlers then only do the work (protocols.md §1, pitfalls 1-10, 18-19;
 * hardening.md A).  This file holds the table, the checks and the
 * reception of messages; the handlers are in vhost_user_features.c,
 * vhost_user_mem.c and vhost_user_vring.c (vhost_user_req.h), the device's
 * state in vhost_dev.c. */
#include "vhost_user_req.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum fd_rule { FDS_NONE, FDS_VRING, FDS_MEM, FDS_ONE };

struct vh_req {
	int (*fn)(struct vh_ctx *c);
	uint16_t min_size, max_size;	/* payload bytes */
	uint8_t fds;			/* enum fd_rule */
	bool reply;			/* has a reply of its own */
	uint8_t vring;			/* 1: payload starts with u32 index,
					 * 2: u64 index | NOFD (KICK/CALL/ERR) */
};

#define U64 sizeof(uint64_t)
#define STATE sizeof(struct vhost_vring_state)
#define ADDR sizeof(struct vhost_vring_addr)

static const struct vh_req reqs[VHOST_USER_MAX] = {
	[VHOST_USER_GET_FEATURES] = { h_get_features, 0, U64, FDS_NONE, true, 0 },
	[VHOST_USER_SET_FEATURES] = { h_set_features, U64, U64, FDS_NONE, false, 0 },
	[VHOST_USER_SET_OWNER] = { h_nop, 0, U64, FDS_NONE, false, 0 },
	[VHOST_USER_RESET_OWNER] = { h_reset_owner, 0, U64, FDS_NONE, false, 0 },
	[VHOST_USER_SET_MEM_TABLE] = { h_set_mem_table, 8,
		sizeof(struct vhost_user_mem_table), FDS_MEM, false, 0 },
	[VHOST_USER_SET_VRING_NUM] = { h_set_vring_num, STATE, STATE, FDS_NONE, false, 1 },
	[VHOST_USER_SET_VRING_ADDR] = { h_set_vring_addr, ADDR, ADDR, FDS_NONE, false, 1 },
	[VHOST_USER_SET_VRING_BASE] = { h_set_vring_base, STATE, STATE, FDS_NONE, false, 1 },
	[VHOST_USER_GET_VRING_BASE] = { h_get_vring_base, STATE, STATE, FDS_NONE, true, 1 },
	[VHOST_USER_SET_VRING_KICK] = { h_set_vring_kick, U64, U64, FDS_VRING, false, 2 },
	[VHOST_USER_SET_VRING_CALL] = { h_set_vring_call, U64, U64, FDS_VRING, false, 2 },
	[VHOST_USER_SET_VRING_ERR] = { h_set_vring_err, U64, U64, FDS_VRING, false, 2 },
	[VHOST_USER_GET_PROTOCOL_FEATURES] = { h_get_protocol_features, 0, U64,
		FDS_NONE, true, 0 },
	[VHOST_USER_SET_PROTOCOL_FEATURES] = { h_set_protocol_features, U64, U64,
		FDS_NONE, false, 0 },
	[VHOST_USER_GET_QUEUE_NUM] = { h_get_queue_num, 0, U64, FDS_NONE, true, 0 },
	[VHOST_USER_SET_VRING_ENABLE] = { h_set_vring_enable, STATE, STATE, FDS_NONE, false, 1 },
	[VHOST_USER_SET_STATUS] = { h_set_status, U64, U64, FDS_NONE, false, 0 },
	[VHOST_USER_GET_STATUS] = { h_get_status, 0, U64, FDS_NONE, true, 0 },
	[VHOST_USER_SET_LOG_BASE] = { h_set_log_base, sizeof(struct vhost_user_log),
		sizeof(struct vhost_user_log), FDS_ONE, true, 0 },
	[VHOST_USER_SEND_RARP] = { h_send_rarp, U64, U64, FDS_NONE, false, 0 },
};

/* Requests that only exist once a protocol feature was negotiated. */
static bool allowed(const struct vh_dev *dev, uint32_t req)
{
	switch (req) {
	case VHOST_USER_GET_QUEUE_NUM:
		return dev->protocol_features & (1ull << VHOST_USER_PROTOCOL_F_MQ);
	case VHOST_USER_SET_STATUS:
	case VHOST_USER_GET_STATUS:
		return dev->protocol_features & (1ull << VHOST_USER_PROTOCOL_F_STATUS);
	case VHOST_USER_SET_LOG_BASE:	/* a bare address means nothing to us */
		return dev->protocol_features & (1ull << VHOST_USER_PROTOCOL_F_LOG_SHMFD);
	case VHOST_USER_SEND_RARP:
		return dev->protocol_features & (1ull << VHOST_USER_PROTOCOL_F_RARP);
	default:
		return true;
	}
}

static int check_and_dispatch(struct vh_ctx *c, uint32_t len)
{
	const struct vhost_user_msg *m = c->msg;
	uint32_t req = m->hdr.request, size = m->hdr.size;
	const struct vh_req *r;
	unsigned int want_fds = 0;

	if (len < VHOST_USER_HDR_SIZE || size > VHOST_USER_PAYLOAD_MAX ||
	    len - VHOST_USER_HDR_SIZE != size)
		return reject(c, "message of %u bytes declares %u payload bytes", len, size);
	if ((m->hdr.flags & VHOST_USER_VERSION_MASK) != VHOST_USER_VERSION ||
	    (m->hdr.flags & VHOST_USER_F_REPLY))
		return reject(c, "%s with flags 0x%x", vhost_user_request_name(req),
			      m->hdr.flags);
	r = req < VHOST_USER_MAX ? &reqs[req] : NULL;
	if (!r || !r->fn || !allowed(c->dev, req))
		return reject(c, "unsupported request %u (%s)", req,
			      vhost_user_request_name(req));
	if (size < r->min_size || size > r->max_size)
		return reject(c, "%s with %u payload bytes", vhost_user_request_name(req), size);

	if (r->vring) {
		/* Full width before narrowing (hardening.md A3). */
		uint64_t idx = r->vring == 1 ? m->p.state.index : m->p.u64;

		if (r->vring == 2) {
			if (idx & ~(uint64_t)(VHOST_USER_VRING_IDX_MASK |
					      VHOST_USER_VRING_NOFD_MASK))
				return reject(c, "%s payload 0x%llx",
					      vhost_user_request_name(req),
					      (unsigned long long)idx);
			want_fds = (idx & VHOST_USER_VRING_NOFD_MASK) ? 0 : 1;
			idx &= VHOST_USER_VRING_IDX_MASK;
		}
		if (idx >= 2u * c->dev->nb_qp)
			return reject(c, "%s for vring %llu of %u",
				      vhost_user_request_name(req),
				      (unsigned long long)idx, 2u * c->dev->nb_qp);
		c->vq = &c->dev->vq[idx];
	}
	if (r->fds == FDS_MEM)
		want_fds = c->nfds;	/* vh_mem_map checks it against nregions */
	else if (r->fds == FDS_ONE)
		want_fds = 1;
	if (c->nfds != want_fds)
		return reject(c, "%s with %u fds", vhost_user_request_name(req), c->nfds);
	return r->fn(c);
}

int vh_user_handle(struct vh_dev *dev, const struct vhost_user_msg *msg, uint32_t len,
		   int *fds, unsigned int nfds, struct vhost_user_msg *reply,
		   uint32_t *reply_len)
{
	struct vh_ctx c = {
		.dev = dev, .msg = msg, .fds = fds, .nfds = nfds, .reply = reply,
	};
	uint32_t req = len >= VHOST_USER_HDR_SIZE ? msg->hdr.request : 0;
	bool natural = req < VHOST_USER_MAX && reqs[req].fn && reqs[req].reply;
	int rc;

	*reply_len = 0;
	memset(reply, 0, sizeof(*reply));
	rc = check_and_dispatch(&c, len);
	/* Every fd a handler did not take is closed, error or not (A2). */
	for (unsigned int i = 0; i < nfds; i++)
		close_fd(&fds[i]);
	if (rc) {
		dev->ctl_rejects++;
		return rc;
	}
	vh_dev_update(dev);
	if (natural) {
		/* the handler filled the payload and c.reply_size */
	} else if ((msg->hdr.flags & VHOST_USER_F_NEED_REPLY) &&
		   (dev->protocol_features & (1ull << VHOST_USER_PROTOCOL_F_REPLY_ACK))) {
		/* REPLY_ACK: u64 0 = success (pitfall 2); errors close instead. */
		reply_u64(&c, 0);
	} else {
		return 0;
	}
	reply->hdr.request = req;
	reply->hdr.flags = VHOST_USER_REPLY_FLAGS;	/* exactly 0x5 (pitfall 1) */
	reply->hdr.size = c.reply_size;
	*reply_len = VHOST_USER_HDR_SIZE + c.reply_size;
	return 0;
}

void vh_rxmsg_reset(struct vh_rxmsg *rx, bool close_fds)
{
	for (unsigned int i = 0; close_fds && i < rx->nfds; i++)
		close(rx->fds[i]);
	rx->nfds = 0;
	rx->got = 0;
}

static int rx_fail(struct vh_rxmsg *rx, int rc)
{
	vh_rxmsg_reset(rx, true);
	return rc;
}

int vh_user_recv(int fd, struct vh_rxmsg *rx)
{
	union {
		char buf[CMSG_SPACE(VHOST_USER_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} cbuf;
	uint8_t *base = (uint8_t *)&rx->msg;
	ssize_t n;

	if (rx->got < VHOST_USER_HDR_SIZE) {
		struct iovec iov = { .iov_base = base + rx->got,
				     .iov_len = VHOST_USER_HDR_SIZE - rx->got };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf.buf, .msg_controllen = sizeof(cbuf.buf),
		};

		do {
			n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		} while (n < 0 && errno == EINTR);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		/* Harvest every fd first, so that all of them are closed on error. */
		for (struct cmsghdr *cm = n >= 0 ? CMSG_FIRSTHDR(&mh) : NULL; cm;
		     cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
				continue;
			unsigned int k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (unsigned int i = 0; i < k; i++) {
				int f;

				memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
				if (rx->nfds < VHOST_USER_MAX_FDS)
					rx->fds[rx->nfds++] = f;
				else
					close(f);
			}
		}
		if (n < 0)
			return rx_fail(rx, -errno);
		if (n == 0)
			return rx_fail(rx, rx->got ? -EPROTO : -ECONNRESET);
		if (mh.msg_flags & MSG_CTRUNC)
			return rx_fail(rx, -EPROTO);
		rx->got += (uint32_t)n;
		if (rx->got < VHOST_USER_HDR_SIZE)
			return 0;
		if (rx->msg.hdr.size > VHOST_USER_PAYLOAD_MAX)
			return rx_fail(rx, -EPROTO);
	}
	while (rx->got < VHOST_USER_HDR_SIZE + rx->msg.hdr.size) {
		n = recv(fd, base + rx->got, VHOST_USER_HDR_SIZE + rx->msg.hdr.size - rx->got,
			 MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return rx_fail(rx, -EPROTO);	/* EOF inside a message */
		rx->got += (uint32_t)n;
	}
	return 1;
}
