/* memif control connections on the control thread: the lock-step
 * send/receive around memif_msg.c, client connections with automatic retry
 * (the listeners are memif_listen.c's). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "memif.h"
#include "vf_ctl.h"
#include "vf_log.h"
#include "vf_secret.h"

#define MAX_RX_FDS 8	/* harvested (and closed) beyond the one allowed */

socklen_t memif_sockaddr(struct sockaddr_un *sa, const char *name, bool abstract)
{
	size_t n = strnlen(name, MEMIF_SOCK_NAME_MAX);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (abstract) {
		/* '\0' + name, no trailing NUL counted (DPDK, libmemif "@"). */
		memcpy(sa->sun_path + 1, name, n);
		return offsetof(struct sockaddr_un, sun_path) + 1 + n;
	}
	memcpy(sa->sun_path, name, n);
	return offsetof(struct sockaddr_un, sun_path) + n + 1;
}

/* ---- connections ---- */

static void conn_ready(int fd, uint32_t events, void *arg);

struct memif_conn *memif_conn_new(int fd, struct memif_sock *sock, struct memif_if *mif)
{
	struct memif_conn *c = calloc(1, sizeof(*c));

	if (c == NULL) {
		close(fd);
		return NULL;
	}
	c->fd = fd;
	c->sock = sock;
	c->mif = mif;
	/* best effort: the default would do, only with more memory held */
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &(int){ MEMIF_CTL_SNDBUF }, sizeof(int));
	c->server = sock != NULL;
	c->phase = c->server ? MEMIF_PH_INIT : MEMIF_PH_HELLO;
	c->drop = memif_conn_close;
	if (mif != NULL) {
		mif->conn = c;
		__atomic_store_n(&mif->state, MEMIF_ST_HANDSHAKE, __ATOMIC_RELEASE);
	}
	if (sock != NULL) {
		c->next = sock->pending;
		sock->pending = c;
	}
	return c;
}

static void pending_remove(struct memif_conn *c)
{
	struct memif_conn **pp;

	if (c->sock == NULL)
		return;
	for (pp = &c->sock->pending; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
}

int memif_conn_send_next(struct memif_conn *c)
{
	struct memif_txmsg *t;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (c->tx_count == 0)
		return 0;
	t = &c->txq[c->tx_head];
	iov.iov_base = &t->msg;
	iov.iov_len = sizeof(t->msg);
	if (t->fd >= 0) {
		struct cmsghdr *cm;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &t->fd, sizeof(int));
	}
	n = sendmsg(c->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		/* Never wait on a peer: one that writes and does not read
		 * is dropped (MEMIF_CTL_SNDBUF). */
		snprintf(c->reason, sizeof(c->reason), "Peer does not read its messages");
		if (c->mif != NULL)
			c->mif->ctl_unread_msgs++;
		else if (c->sock != NULL)
			c->sock->unread_msgs++;
		return -1;
	}
	if (n != (ssize_t)sizeof(t->msg)) {
		snprintf(c->reason, sizeof(c->reason), "Send failed");
		return -1;
	}
	if (t->wants_ack)
		c->acks_due++;
	c->tx_head = (c->tx_head + 1) % MEMIF_TXQ_LEN;
	c->tx_count--;
	if (t->msg.type == MEMIF_MSG_CONNECT)
		c->phase = MEMIF_PH_CONNECT;
	return 0;
}

void memif_conn_close(struct memif_conn *c, const char *reason)
{
	memif_conn_close_ex(c, reason, reason);
}

/* send_reason: DISCONNECT text for the peer (NULL: send none);
 * why: what we record and log. */
void memif_conn_close_ex(struct memif_conn *c, const char *send_reason, const char *why)
{
	struct memif_if *mif = c->mif;

	if (send_reason != NULL) {
		struct memif_msg m;

		memif_msg_init_disconnect(&m, send_reason);
		/* Best effort: the peer may already be gone. */
		if (send(c->fd, &m, sizeof(m), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		}
	}
	/* What the peer already published is taken before the memory goes
	 * (DISCONNECT, close, our own stop). */
	if (mif != NULL && mif->conn == c && mif->state == MEMIF_ST_CONNECTED)
		memif_if_drain(mif);
	if (c->watched)
		vf_ctl_del_fd(c->fd);
	close(c->fd);
	pending_remove(c);
	if (mif != NULL && mif->conn == c) {
		mif->conn = NULL;
		VF_INFO("memif %s: disconnected: %s", mif->cfg.if_name, why ? why : "");
		memif_if_teardown(mif, why);
		memif_if_peer_event(mif, VF_EV_PEER_DISCONNECTED, &c->peer, why);
	} else if (why != NULL && c->sock != NULL) {
		/* turned away before it was bound (we sent why): the
		 * interface it asked for, if it got that far */
		if (send_reason != NULL)
			memif_sock_refused(c, why);
		/* A peer that retries in a loop must not flood the log. */
		if (c->sock->refused++ < 5 || c->sock->refused % 1000 == 0)
			VF_INFO("memif: socket %s%s: connection refused (%" PRIu64 " so far): %s",
				c->sock->abstract ? "@" : "", c->sock->name, c->sock->refused, why);
	}
	/* an INIT we queued holds our secret */
	vf_secret_clear(c->txq, sizeof(c->txq));
	free(c);
}

int memif_conn_input(struct memif_conn *c)
{
	struct memif_msg m;
	union {
		char buf[CMSG_SPACE(sizeof(int) * MAX_RX_FDS) + CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	int fds[MAX_RX_FDS], nfds = 0, ret;
	ssize_t n;

	n = recvmsg(c->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	/* Harvest every fd first, so that none leaks on any error below. */
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); n >= 0 && cm != NULL;
	     cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < k && nfds < MAX_RX_FDS; i++)
				memcpy(&fds[nfds++], CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
		}
	}
	if (n <= 0) {
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		memif_conn_close_ex(c, NULL, n == 0 ? "Connection closed by peer" : "Socket error");
		return -1;
	}
	if (nfds > 1 || (mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC))) {
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		memif_conn_close(c, (mh.msg_flags & MSG_TRUNC) ? "Invalid message size"
							       : "Too many fds");
		return -1;
	}
	ret = memif_msg_handle(c, &m, (size_t)n, nfds ? fds[0] : -1);
	vf_secret_clear(&m, sizeof(m));	/* a peer's INIT holds its secret */
	if (ret == -2) {
		memif_conn_close_ex(c, NULL, c->reason);
		return -1;
	}
	if (ret < 0) {
		memif_conn_close(c, c->reason);
		return -1;
	}
	if (memif_conn_send_next(c) < 0) {
		memif_conn_close_ex(c, NULL, c->reason);
		return -1;
	}
	return 0;
}

static void conn_ready(int fd, uint32_t events, void *arg)
{
	struct memif_conn *c = arg;

	if (events & EPOLLIN) {
		memif_conn_input(c);
		return;
	}
	memif_conn_close_ex(c, NULL, "Connection closed by peer");
}

int memif_conn_watch(struct memif_conn *c)
{
	int ret = vf_ctl_add_fd(c->fd, conn_ready, c);

	if (ret == 0)
		c->watched = true;
	return ret;
}

/* ---- interface enable/disable, client retry, health ---- */

int memif_client_connect(struct memif_if *mif)
{
	struct sockaddr_un sa;
	socklen_t len = memif_sockaddr(&sa, mif->cfg.socket, mif->cfg.abstract);
	struct memif_conn *c;
	struct vf_peer peer;
	char why[MEMIF_REASON_SZ + 1], who[64];
	int fd;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, len) < 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	/* On an abstract name anyone may have bound it first: check who. */
	if (vf_access_check(&mif->cfg.access, mif->cfg.abstract, fd, &peer, why, sizeof(why)) < 0) {
		struct memif_msg m;

		memif_msg_init_disconnect(&m, why);
		if (send(fd, &m, sizeof(m), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		}
		close(fd);
		mif->peer_rejects++;
		mif->ctl_rejects++;
		snprintf(mif->reason, sizeof(mif->reason), "%s", why);
		memif_if_peer_event(mif, VF_EV_PEER_REFUSED, &peer, why);
		snprintf(mif->last_refused, sizeof(mif->last_refused), "%s: %s",
			 vf_peer_str(&peer, who, sizeof(who)), why);
		if (vf_access_log_due(mif->peer_rejects))
			VF_WARN("memif %s: server on %s%s refused (%" PRIu64 " so far): %s",
				mif->cfg.if_name, mif->cfg.abstract ? "@" : "", mif->cfg.socket,
				mif->peer_rejects, mif->last_refused);
		return -EPERM;
	}
	c = memif_conn_new(fd, NULL, mif);
	if (c == NULL)
		return -ENOMEM;
	c->peer = peer;
	mif->peer = peer;
	if (memif_conn_watch(c) < 0) {
		memif_conn_close_ex(c, NULL, "Device error");
		return -EIO;
	}
	mif->connect_attempts = 0;
	memif_if_peer_event(mif, VF_EV_PEER_CONNECTED, &peer, NULL);
	return 0;
}

static void if_tick(void *arg)
{
	struct memif_if *mif = arg;
	bool broken = false;

	if (!mif->enabled)
		return;
	if (mif->conn != NULL) {
		for (unsigned int i = 0; i < MEMIF_MAX_QUEUES; i++)
			broken |= __atomic_load_n(&mif->rxq[i].broken, __ATOMIC_ACQUIRE) |
				  __atomic_load_n(&mif->txq[i].broken, __ATOMIC_ACQUIRE);
		if (broken)
			memif_conn_close(mif->conn, "Ring corrupted");
		return;
	}
	if (!mif->cfg.server && mif->cfg.reconnect_ms != 0) {
		int ret = memif_client_connect(mif);

		if (ret < 0)
			memif_if_connect_failed(mif, ret);
		if (ret < 0)
			VF_DEBUG("memif %s: connect %s%s: %s", mif->cfg.if_name,
				 mif->cfg.abstract ? "@" : "", mif->cfg.socket, strerror(-ret));
	}
}

int memif_if_enable(struct memif_if *mif)
{
	int ret;

	if (mif->enabled)
		return 0;
	mif->enabled = true;
	__atomic_store_n(&mif->state, mif->cfg.server ? MEMIF_ST_LISTENING : MEMIF_ST_CONNECTING, __ATOMIC_RELEASE);
	ret = vf_ctl_add_timer(mif->cfg.reconnect_ms ? mif->cfg.reconnect_ms : 1000,
			       if_tick, mif);
	if (ret < 0) {
		mif->enabled = false;
		__atomic_store_n(&mif->state, MEMIF_ST_STOPPED, __ATOMIC_RELEASE);
		return ret;
	}
	mif->timer = ret;
	if (!mif->cfg.server) {
		ret = memif_client_connect(mif);
		if (ret < 0) {
			memif_if_connect_failed(mif, ret);
			if (mif->cfg.reconnect_ms == 0) {
				/* As DPDK: one attempt, start fails. */
				vf_ctl_del_timer(mif->timer);
				mif->timer = 0;
				mif->enabled = false;
				__atomic_store_n(&mif->state, MEMIF_ST_STOPPED, __ATOMIC_RELEASE);
				VF_ERR("memif %s: connect %s%s: %s", mif->cfg.if_name,
				       mif->cfg.abstract ? "@" : "", mif->cfg.socket,
				       strerror(-ret));
				return ret;
			}
			VF_INFO("memif %s: %s%s: %s; retrying every %u ms", mif->cfg.if_name,
				mif->cfg.abstract ? "@" : "", mif->cfg.socket, strerror(-ret),
				mif->cfg.reconnect_ms);
		}
	}
	return 0;
}

void memif_if_disable(struct memif_if *mif)
{
	if (!mif->enabled)
		return;
	mif->enabled = false;
	if (mif->timer > 0)
		vf_ctl_del_timer(mif->timer);
	mif->timer = 0;
	if (mif->conn != NULL)
		memif_conn_close(mif->conn, "Device stopped");
	__atomic_store_n(&mif->state, MEMIF_ST_STOPPED, __ATOMIC_RELEASE);
}
