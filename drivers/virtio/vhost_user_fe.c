/* vhost-user front-end messages (see vhost_user_fe.h). */
#include "vhost_user_fe.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "vf_mem.h"

static int fe_fail(struct vu_fe *fe, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fe_fail(struct vu_fe *fe, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(fe->err, sizeof(fe->err), fmt, ap);
	va_end(ap);
	return err;
}

int vu_fe_send(struct vu_fe *fe, uint32_t req, bool need_reply, const void *payload,
	       uint32_t size, const int *fds, int nfds)
{
	struct vhost_user_msg msg;
	union {
		char buf[CMSG_SPACE(sizeof(int) * VHOST_USER_MAX_FDS)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov;
	struct msghdr mh;
	ssize_t r;

	if (size > VHOST_USER_PAYLOAD_MAX || nfds < 0 || nfds > VHOST_USER_MAX_FDS)
		return fe_fail(fe, -EINVAL, "%s: bad size", vhost_user_request_name(req));
	memset(&msg.hdr, 0, sizeof(msg.hdr));
	msg.hdr.request = req;
	msg.hdr.flags = VHOST_USER_VERSION | (need_reply ? VHOST_USER_F_NEED_REPLY : 0);
	msg.hdr.size = size;
	if (size)
		memcpy(&msg.p, payload, size);
	/* Header, payload and fds in one sendmsg: peers read the fds with
	 * the header. */
	iov.iov_base = &msg;
	iov.iov_len = VHOST_USER_HDR_SIZE + size;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (nfds > 0) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	do {
		r = sendmsg(fe->fd, &mh, MSG_NOSIGNAL);
	} while (r < 0 && errno == EINTR);
	if (r != (ssize_t)iov.iov_len)
		return fe_fail(fe, r < 0 ? -errno : -EIO, "send %s: %s",
			       vhost_user_request_name(req), r < 0 ? strerror(errno) : "short write");
	return 0;
}

/* Reads exactly len bytes within the timeout; fds that arrive are closed
 * (a backend has no business sending us any). */
static int fe_read(struct vu_fe *fe, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		struct pollfd p = { .fd = fe->fd, .events = POLLIN };
		union {
			char buf[CMSG_SPACE(sizeof(int) * VHOST_USER_MAX_FDS)];
			struct cmsghdr align;
		} ctl;
		struct iovec iov = { (char *)buf + got, len - got };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
		struct cmsghdr *c;
		ssize_t r;
		int pr = poll(&p, 1, fe->timeout_ms);

		if (pr < 0 && errno == EINTR)
			continue;
		if (pr == 0)
			return -ETIMEDOUT;
		if (pr < 0)
			return -errno;
		r = recvmsg(fe->fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			return -errno;
		for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
				int n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int), i, fd;

				for (i = 0; i < n; i++) {
					memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
					close(fd);
				}
			}
		}
		if (r == 0)
			return -ECONNRESET;
		got += (size_t)r;
	}
	return 0;
}

int vu_fe_recv_reply(struct vu_fe *fe, uint32_t req, void *payload, uint32_t size)
{
	struct vhost_user_hdr h;
	int r = fe_read(fe, &h, sizeof(h));

	if (r < 0)
		return fe_fail(fe, r, "%s: no reply: %s", vhost_user_request_name(req), strerror(-r));
	if (h.flags != VHOST_USER_REPLY_FLAGS)
		return fe_fail(fe, -EPROTO, "%s: reply flags 0x%x, expected 0x%x",
			       vhost_user_request_name(req), h.flags, VHOST_USER_REPLY_FLAGS);
	if (h.request != req)
		return fe_fail(fe, -EPROTO, "%s: reply to request %u",
			       vhost_user_request_name(req), h.request);
	if (h.size != size)
		return fe_fail(fe, -EPROTO, "%s: reply size %u, expected %u",
			       vhost_user_request_name(req), h.size, size);
	r = fe_read(fe, payload, size);
	if (r < 0)
		return fe_fail(fe, r, "%s: short reply: %s", vhost_user_request_name(req), strerror(-r));
	return 0;
}

static int fe_get_u64(struct vu_fe *fe, uint32_t req, uint64_t *v)
{
	int r = vu_fe_send(fe, req, false, NULL, 0, NULL, 0);

	return r < 0 ? r : vu_fe_recv_reply(fe, req, v, sizeof(*v));
}

/* A request without a natural reply; with REPLY_ACK negotiated and `ack`,
 * waits for the backend's verdict. */
static int fe_set(struct vu_fe *fe, uint32_t req, const void *p, uint32_t size,
		  const int *fds, int nfds, bool ack)
{
	bool want = ack && (fe->protocol & (1ull << VHOST_USER_PROTOCOL_F_REPLY_ACK));
	uint64_t v;
	int r = vu_fe_send(fe, req, want, p, size, fds, nfds);

	if (r < 0 || !want)
		return r;
	r = vu_fe_recv_reply(fe, req, &v, sizeof(v));
	if (r < 0)
		return r;
	if (v != 0)
		return fe_fail(fe, -EIO, "%s: backend refused (%llu)",
			       vhost_user_request_name(req), (unsigned long long)v);
	return 0;
}

static int fe_set_u64(struct vu_fe *fe, uint32_t req, uint64_t v, bool ack)
{
	return fe_set(fe, req, &v, sizeof(v), NULL, 0, ack);
}

static int fe_set_state(struct vu_fe *fe, uint32_t req, uint32_t index, uint32_t num)
{
	struct vhost_vring_state s = { .index = index, .num = num };

	return fe_set(fe, req, &s, sizeof(s), NULL, 0, false);
}

int vu_fe_negotiate(struct vu_fe *fe, const struct vu_fe_want *want, bool owner)
{
	uint64_t want_f = (1ull << VIRTIO_F_VERSION_1) | (1ull << VHOST_USER_F_PROTOCOL_FEATURES);
	uint64_t off = 0, poff = 0;
	int r;

	fe->features = fe->protocol = 0;
	if (owner && (r = fe_set(fe, VHOST_USER_SET_OWNER, NULL, 0, NULL, 0, false)) < 0)
		return r;
	if ((r = fe_get_u64(fe, VHOST_USER_GET_FEATURES, &off)) < 0)
		return r;
	fe->offered = off;
	if (!(off & (1ull << VIRTIO_F_VERSION_1)))
		return fe_fail(fe, -ENOTSUP, "backend lacks VIRTIO_F_VERSION_1 (offers 0x%llx)",
			       (unsigned long long)off);
	if (want->mrg_rxbuf)
		want_f |= 1ull << VIRTIO_NET_F_MRG_RXBUF;
	if (want->in_order)
		want_f |= 1ull << VIRTIO_F_IN_ORDER;
	if (want->queue_pairs > 1)
		want_f |= 1ull << VIRTIO_NET_F_MQ;
	if (want->packed) {
		/* EVENT_IDX only with packed rings: the split path has no
		 * used_event/avail_event handling. */
		if (!(off & (1ull << VIRTIO_F_RING_PACKED)))
			return fe_fail(fe, -ENOTSUP, "packed_vq=1 but the backend lacks "
				       "VIRTIO_F_RING_PACKED (offers 0x%llx)", (unsigned long long)off);
		want_f |= (1ull << VIRTIO_F_RING_PACKED) | (1ull << VIRTIO_RING_F_EVENT_IDX);
	}
	want_f |= want->offloads & VU_FE_OL_FEATURES;
	fe->features = off & want_f;
	/* A TSO bit needs its checksum bit (spec feature dependencies): a
	 * backend offering one without the other gets neither TSO. */
	if (!(fe->features & (1ull << VIRTIO_NET_F_CSUM)))
		fe->features &= ~((1ull << VIRTIO_NET_F_HOST_TSO4) | (1ull << VIRTIO_NET_F_HOST_TSO6));
	if (!(fe->features & (1ull << VIRTIO_NET_F_GUEST_CSUM)))
		fe->features &= ~((1ull << VIRTIO_NET_F_GUEST_TSO4) | (1ull << VIRTIO_NET_F_GUEST_TSO6));
	if (fe->features & (1ull << VHOST_USER_F_PROTOCOL_FEATURES)) {
		if ((r = fe_get_u64(fe, VHOST_USER_GET_PROTOCOL_FEATURES, &poff)) < 0)
			return r;
		fe->protocol = poff & VU_FE_PROTOCOL;
		/* REPLY_ACK takes effect only after this message, so no ack. */
		if ((r = fe_set_u64(fe, VHOST_USER_SET_PROTOCOL_FEATURES, fe->protocol, false)) < 0)
			return r;
	}
	if (want->queue_pairs > 1) {
		uint64_t qn = 0;

		if (!(fe->features & (1ull << VIRTIO_NET_F_MQ)) ||
		    !(fe->protocol & (1ull << VHOST_USER_PROTOCOL_F_MQ)))
			return fe_fail(fe, -ENOTSUP, "queues=%u needs multi-queue, backend offers 0x%llx/0x%llx",
				       want->queue_pairs, (unsigned long long)off,
				       (unsigned long long)poff);
		if ((r = fe_get_u64(fe, VHOST_USER_GET_QUEUE_NUM, &qn)) < 0)
			return r;
		if (qn < want->queue_pairs)
			return fe_fail(fe, -ENOTSUP, "queues=%u but backend has %llu queue pairs",
				       want->queue_pairs, (unsigned long long)qn);
	}
	return 0;
}

static int fe_status(struct vu_fe *fe, uint64_t st)
{
	if (!(fe->protocol & (1ull << VHOST_USER_PROTOCOL_F_STATUS)))
		return 0;
	return fe_set_u64(fe, VHOST_USER_SET_STATUS, st, true);
}

static int fe_mem_table(struct vu_fe *fe, const struct vf_mem_region *regs, int n)
{
	struct vhost_user_mem_table t;
	int fds[VHOST_USER_MAX_REGIONS], i;

	if (n <= 0 || n > VHOST_USER_MAX_REGIONS)
		return fe_fail(fe, -E2BIG, "%d memory regions (1..%d can be shared)",
			       n, VHOST_USER_MAX_REGIONS);
	memset(&t, 0, sizeof(t));
	t.nregions = (uint32_t)n;
	for (i = 0; i < n; i++) {
		/* gpa == uva == our VA: descriptors carry plain pointers. */
		t.regions[i].guest_phys_addr = (uint64_t)(uintptr_t)regs[i].addr;
		t.regions[i].userspace_addr = (uint64_t)(uintptr_t)regs[i].addr;
		t.regions[i].memory_size = regs[i].len;
		t.regions[i].mmap_offset = regs[i].offset;
		fds[i] = regs[i].fd;
	}
	return fe_set(fe, VHOST_USER_SET_MEM_TABLE, &t,
		      (uint32_t)(8 + sizeof(t.regions[0]) * n), fds, n, true);
}

int vu_fe_start(struct vu_fe *fe, const struct vf_mem_region *regs, int nregs,
		const struct vu_fe_ring *rings, int nrings)
{
	const uint64_t st0 = VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER |
			     VIRTIO_CONFIG_S_FEATURES_OK;
	int i, r;

	if ((r = fe_set_u64(fe, VHOST_USER_SET_FEATURES, fe->features, false)) < 0)
		return r;
	if ((r = fe_status(fe, st0)) < 0)
		return r;
	if ((r = fe_mem_table(fe, regs, nregs)) < 0)
		return r;
	for (i = 0; i < nrings; i++) {
		const struct vu_fe_ring *g = &rings[i];
		struct vhost_vring_addr a = {
			.index = g->index,
			.desc_user_addr = g->desc,
			.used_user_addr = g->used,
			.avail_user_addr = g->avail,
		};
		uint64_t fidx = g->index;

		if ((r = fe_set_state(fe, VHOST_USER_SET_VRING_NUM, g->index, g->num)) < 0 ||
		    (r = fe_set_state(fe, VHOST_USER_SET_VRING_BASE, g->index, g->base)) < 0 ||
		    (r = fe_set(fe, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a), NULL, 0, false)) < 0 ||
		    (r = fe_set(fe, VHOST_USER_SET_VRING_KICK, &fidx, sizeof(fidx), &g->kickfd, 1, false)) < 0 ||
		    (r = fe_set(fe, VHOST_USER_SET_VRING_CALL, &fidx, sizeof(fidx), &g->callfd, 1, false)) < 0)
			return r;
	}
	if (fe->features & (1ull << VHOST_USER_F_PROTOCOL_FEATURES)) {
		for (i = 0; i < nrings; i++)
			if ((r = fe_set_state(fe, VHOST_USER_SET_VRING_ENABLE, rings[i].index, 1)) < 0)
				return r;
	}
	return fe_status(fe, st0 | VIRTIO_CONFIG_S_DRIVER_OK);
}

int vu_fe_stop(struct vu_fe *fe, const struct vu_fe_ring *rings, int nrings)
{
	int i, r;

	if (fe->features & (1ull << VHOST_USER_F_PROTOCOL_FEATURES)) {
		for (i = 0; i < nrings; i++)
			if ((r = fe_set_state(fe, VHOST_USER_SET_VRING_ENABLE, rings[i].index, 0)) < 0)
				return r;
	}
	for (i = 0; i < nrings; i++) {
		struct vhost_vring_state s = { .index = rings[i].index };

		if ((r = vu_fe_send(fe, VHOST_USER_GET_VRING_BASE, false, &s, sizeof(s), NULL, 0)) < 0 ||
		    (r = vu_fe_recv_reply(fe, VHOST_USER_GET_VRING_BASE, &s, sizeof(s))) < 0)
			return r;
		if (s.index != rings[i].index)
			return fe_fail(fe, -EPROTO, "GET_VRING_BASE: reply for ring %u, asked %u",
				       s.index, rings[i].index);
	}
	return 0;
}
