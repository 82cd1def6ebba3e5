/* The vhost-user socket: server (listen, serve one front-end at a time,
 * accept the next after a disconnect) or client (connect, retry every
 * reconnect-ms, reconnect after the front-end goes).  Everything here runs on the
 * control thread (vf_ctl.h).
 *
 * No lock-out: a front-end that connects and never finishes negotiating
 * (half a message held open, or silence) must not keep the VM's own
 * front-end out.  A connection that comes while the current one has not
 * brought the link up waits (at most VH_MAX_WAITING); as soon as the
 * current one is stalled mid-message, idle for VH_PREEMPT_IDLE_MS or
 * connected for VH_NEGOTIATE_MS without the link up, it is dropped
 * (ctl_preempted) and the oldest waiting one is served.  Once the link is
 * up, the current front-end keeps the socket and the others are refused
 * (ctl_busy_rejects), as before. */
#include "vhost_conn.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "vf_ctl.h"
#include "vf_log.h"

static int unix_addr(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	strcpy(sa->sun_path, path);
	return 0;
}

/* A front-end that has not finished negotiating and sent no whole
 * message for this long gives way to a waiting connection.  A correct
 * front-end sends its set-up messages back to back. */
#define VH_PREEMPT_IDLE_MS 100
/* ... and one that keeps talking without ever bringing the link up gets
 * this long in all once someone waits. */
#define VH_NEGOTIATE_MS 2000
/* Send buffer of a front-end's connection.  Front-ends wait for each
 * reply, so a few hundred bytes are ever unread; one that does not read
 * fills this and is dropped (ctl_unread_replies) with little memory held. */
#define VH_CTL_SNDBUF (64 * 1024)

static void set_conn(struct vh_dev *dev, int fd);

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The oldest waiting connection that can be served takes the socket. */
static void promote(struct vh_dev *dev)
{
	while (dev->conn_fd < 0 && dev->nb_waiting > 0 && !dev->closing) {
		struct vh_waiter w = dev->waiting[0];

		dev->nb_waiting--;
		memmove(&dev->waiting[0], &dev->waiting[1], dev->nb_waiting * sizeof(w));
		dev->peer = w.peer;
		set_conn(dev, w.fd);
	}
}

/* Refuses every waiting connection; counter: why, or NULL. */
static void refuse_waiting(struct vh_dev *dev, uint64_t *counter)
{
	for (unsigned int i = 0; i < dev->nb_waiting; i++) {
		close(dev->waiting[i].fd);
		if (counter != NULL) {
			(*counter)++;
			vf_peer_event(dev->port_id, dev->name, VF_EV_PEER_REFUSED,
				      &dev->waiting[i].peer, dev->path,
				      "a front-end is connected and negotiated");
		}
	}
	dev->nb_waiting = 0;
}

static void drop_conn(struct vh_dev *dev, const char *why)
{
	if (dev->conn_fd < 0)
		return;
	vf_ctl_del_fd(dev->conn_fd);
	if (dev->stall_timer > 0)
		vf_ctl_del_timer(dev->stall_timer);
	dev->stall_timer = -1;
	vh_rxmsg_reset(&dev->rx, true);
	close(dev->conn_fd);
	dev->conn_fd = -1;
	VF_INFO("%s: front-end disconnected (%s)", dev->name, why);
	/* What it transmitted before it went is still taken. */
	if (dev->mem_faults == 0 || strcmp(why, "memory truncated") != 0)
		vh_dev_drain(dev, -1);
	vh_dev_disconnect(dev);
	vf_peer_event(dev->port_id, dev->name, VF_EV_PEER_DISCONNECTED, &dev->peer, dev->path, why);
	promote(dev);
}

static bool link_is_up(const struct vh_dev *dev)
{
	return __atomic_load_n(&dev->link_up, __ATOMIC_ACQUIRE);
}

/* Drops the current front-end for the oldest waiting connection when it
 * has not finished negotiating and is stalled mid-message, idle, or past
 * its time to negotiate. */
static void maybe_preempt(struct vh_dev *dev)
{
	uint64_t idle;

	if (dev->nb_waiting == 0 || dev->conn_fd < 0)
		return;
	if (link_is_up(dev)) {
		/* it finished meanwhile: the waiting ones are refused */
		refuse_waiting(dev, &dev->busy_rejects);
		return;
	}
	idle = now_ms() - dev->last_msg_ms;
	if (dev->rx.got == 0 && idle < VH_PREEMPT_IDLE_MS &&
	    now_ms() - dev->conn_since_ms < VH_NEGOTIATE_MS)
		return;
	dev->preempted++;
	if (dev->rx.got > 0)
		snprintf(dev->last_error, sizeof(dev->last_error),
			 "preempted by a new connection: negotiation unfinished, message "
			 "incomplete (%u bytes)", dev->rx.got);
	else if (idle >= VH_PREEMPT_IDLE_MS)
		snprintf(dev->last_error, sizeof(dev->last_error),
			 "preempted by a new connection: negotiation unfinished, idle %" PRIu64
			 " ms", idle);
	else
		snprintf(dev->last_error, sizeof(dev->last_error),
			 "preempted by a new connection: negotiation unfinished after %u ms",
			 VH_NEGOTIATE_MS);
	if (vf_access_log_due(dev->preempted))
		VF_WARN("%s: %s (%" PRIu64 " so far); closing the connection", dev->name,
			dev->last_error, dev->preempted);
	drop_conn(dev, "preempted");
}

static void drop_cb(struct vh_dev *dev, const char *why)
{
	drop_conn(dev, why);
}

static void on_msg(int fd, uint32_t events, void *arg)
{
	struct vh_dev *dev = arg;
	struct vh_rxmsg *rx = &dev->rx;
	struct vhost_user_msg reply;
	uint32_t rlen, started = rx->got;
	ssize_t sent;
	int rc;

	(void)events;
	rc = vh_user_recv(fd, rx);
	if (rc == 0) {
		if (started == 0 && rx->got > 0)
			rx->since_ms = now_ms();
		return;
	}
	if (rc == -ECONNRESET) {
		drop_conn(dev, "closed by peer");
		return;
	}
	if (rc < 0) {
		snprintf(dev->last_error, sizeof(dev->last_error),
			 "short or oversized message");
		VF_WARN("%s: %s; closing the connection", dev->name, dev->last_error);
		drop_conn(dev, "bad message");
		return;
	}
	VF_DEBUG("%s: %s size %u fds %u", dev->name,
		 vhost_user_request_name(rx->msg.hdr.request), rx->msg.hdr.size, rx->nfds);
	/* vh_user_handle takes the fds, whatever it returns. */
	rc = vh_user_handle(dev, &rx->msg, rx->got, rx->fds, rx->nfds, &reply, &rlen);
	vh_rxmsg_reset(rx, false);
	dev->last_msg_ms = now_ms();
	if (rc == 0 && dev->nb_waiting > 0 && link_is_up(dev))
		refuse_waiting(dev, &dev->busy_rejects);
	if (rc) {
		VF_WARN("%s: %s; closing the connection", dev->name, dev->last_error);
		drop_conn(dev, "protocol error");
		return;
	}
	if (!rlen)
		return;
	/* A front-end that sends requests and never reads the replies fills
	 * the socket: a blocking send would hold the control thread (every
	 * other port, the shell, telemetry) for as long as it likes. */
	do {
		sent = send(fd, &reply, rlen, MSG_NOSIGNAL | MSG_DONTWAIT);
	} while (sent < 0 && errno == EINTR);
	if (sent == (ssize_t)rlen)
		return;
	if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		dev->unread_replies++;
		snprintf(dev->last_error, sizeof(dev->last_error),
			 "front-end does not read its replies (socket full)");
		VF_WARN("%s: %s; closing the connection", dev->name, dev->last_error);
	}
	drop_conn(dev, "reply not sent");
}

/* A front-end that stops in the middle of a message gets a second to
 * finish it; the control thread goes on serving everyone meanwhile. */
#define VH_MSG_DEADLINE_MS 1000

static void check_stall(void *arg)
{
	struct vh_dev *dev = arg;

	if (dev->conn_fd < 0 || dev->rx.got == 0 ||
	    now_ms() - dev->rx.since_ms < VH_MSG_DEADLINE_MS)
		return;
	dev->stalled_msgs++;
	snprintf(dev->last_error, sizeof(dev->last_error),
		 "message incomplete after %u ms (%u of %u bytes)", VH_MSG_DEADLINE_MS,
		 dev->rx.got, dev->rx.got < VHOST_USER_HDR_SIZE ? (uint32_t)VHOST_USER_HDR_SIZE :
		 (uint32_t)VHOST_USER_HDR_SIZE + dev->rx.msg.hdr.size);
	VF_WARN("%s: %s; closing the connection", dev->name, dev->last_error);
	drop_conn(dev, "message incomplete");
}

/* The connection's timer: the stall deadline, and a waiting connection
 * served once the current one gives way. */
static void conn_tick(void *arg)
{
	struct vh_dev *dev = arg;

	check_stall(dev);
	maybe_preempt(dev);
}

static void set_conn(struct vh_dev *dev, int fd)
{
	int fl = fcntl(fd, F_GETFL);
	int t;

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		close(fd);
		return;
	}
	/* best effort: the default bounds it too, only higher */
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &(int){ VH_CTL_SNDBUF }, sizeof(int));
	vh_rxmsg_reset(&dev->rx, true);
	dev->conn_fd = fd;
	dev->connections++;
	dev->last_msg_ms = dev->conn_since_ms = now_ms();
	if (vf_ctl_add_fd(fd, on_msg, dev) != 0) {
		close(fd);
		dev->conn_fd = -1;
		return;
	}
	t = vf_ctl_add_timer(VH_PREEMPT_IDLE_MS / 2, conn_tick, dev);
	dev->stall_timer = t > 0 ? t : -1;
	dev->connect_attempts = 0;
	VF_INFO("%s: front-end connected on %s (pid %d uid %u gid %u)", dev->name, dev->path,
		(int)dev->peer.pid, (unsigned int)dev->peer.uid, (unsigned int)dev->peer.gid);
	vf_peer_event(dev->port_id, dev->name, VF_EV_PEER_CONNECTED, &dev->peer, dev->path, NULL);
}

/* allow-uid / allow-gid: true when the peer on fd may stay (*peer is then
 * who it is); else the refusal is counted and, now and then, logged. */
static bool peer_allowed(struct vh_dev *dev, int fd, struct vf_peer *peer)
{
	char why[96], who[64];

	if (vf_access_check(&dev->access, false, fd, peer, why, sizeof(why)) == 0)
		return true;
	dev->peer_rejects++;
	vf_peer_event(dev->port_id, dev->name, VF_EV_PEER_REFUSED, peer, dev->path, why);
	snprintf(dev->last_refused, sizeof(dev->last_refused), "%s: %s",
		 vf_peer_str(peer, who, sizeof(who)), why);
	if (vf_access_log_due(dev->peer_rejects))
		VF_WARN("%s: %s refused on %s (%" PRIu64 " so far): %s", dev->name,
			dev->client ? "front-end" : "connection", dev->path, dev->peer_rejects,
			dev->last_refused);
	return false;
}

static void on_accept(int lfd, uint32_t events, void *arg)
{
	struct vh_dev *dev = arg;
	struct vf_peer peer;
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (!peer_allowed(dev, fd, &peer)) {
		close(fd);
		return;
	}
	if (dev->conn_fd < 0) {
		dev->peer = peer;
		set_conn(dev, fd);
		return;
	}
	if (link_is_up(dev)) {
		dev->busy_rejects++;
		vf_peer_event(dev->port_id, dev->name, VF_EV_PEER_REFUSED, &peer, dev->path,
			      "a front-end is connected and negotiated");
		if (vf_access_log_due(dev->busy_rejects))
			VF_WARN("%s: a front-end is connected and negotiated; refusing another "
				"(%" PRIu64 " so far)", dev->name, dev->busy_rejects);
		close(fd);
		return;
	}
	if (dev->nb_waiting >= VH_MAX_WAITING) {
		dev->wait_rejects++;
		vf_peer_event(dev->port_id, dev->name, VF_EV_PEER_REFUSED, &peer, dev->path,
			      "too many connections wait");
		if (vf_access_log_due(dev->wait_rejects))
			VF_WARN("%s: %d connections already wait; refusing another (%" PRIu64
				" so far)", dev->name, VH_MAX_WAITING, dev->wait_rejects);
		close(fd);
		return;
	}
	dev->waiting[dev->nb_waiting].fd = fd;
	dev->waiting[dev->nb_waiting].peer = peer;
	dev->nb_waiting++;
	maybe_preempt(dev);
}

static void try_connect(void *arg)
{
	struct vh_dev *dev = arg;
	struct sockaddr_un sa;
	int fd;

	if (dev->conn_fd >= 0 || dev->closing || unix_addr(dev->path, &sa))
		return;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		vf_event_reconnect(dev->port_id, dev->name, ++dev->connect_attempts, dev->path,
				   strerror(errno));
		close(fd);
		return;
	}
	if (!peer_allowed(dev, fd, &dev->peer)) {
		close(fd);
		return;
	}
	set_conn(dev, fd);
}

static int listen_on(struct vh_dev *dev, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	struct stat st;
	int fd, rc;

	rc = unix_addr(dev->path, &sa);
	if (rc)
		return rc;
	/* A stale socket file (its server is gone) is removed; a live one
	 * or a file of another kind is an error (pitfall 30). */
	if (lstat(dev->path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return -EEXIST;
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
		close(fd);
		if (rc == 0)
			return -EADDRINUSE;
		unlink(dev->path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Mode and group are set before the file appears at dev->path. */
	rc = vf_sock_listen_file(fd, dev->path, &dev->access, VH_MAX_WAITING, err, errlen);
	if (rc) {
		close(fd);
		return rc;
	}
	dev->listen_fd = fd;
	rc = vf_ctl_add_fd(fd, on_accept, dev);
	if (rc) {
		close(fd);
		unlink(dev->path);
		dev->listen_fd = -1;
	}
	return rc;
}

struct open_args {
	struct vh_dev *dev;
	int rc;
	char err[200];
};

/* The open devices, for a takeover (vhost_conn_takeover.c). */
static struct vh_dev *devs[VF_MAX_PORTS];
static bool defer_listen;

void vh_conn_defer_listen(bool on)
{
	defer_listen = on;
}

unsigned int vh_conn_devs(struct vh_dev **out, unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < VF_MAX_PORTS && n < max; i++)
		if (devs[i] && !devs[i]->closing)
			out[n++] = devs[i];
	return n;
}

int vh_conn_watch(struct vh_dev *dev, int fd, bool listening)
{
	return vf_ctl_add_fd(fd, listening ? on_accept : on_msg, dev);
}

void vh_conn_set(struct vh_dev *dev, int fd)
{
	set_conn(dev, fd);
}

bool vh_conn_peer_ok(struct vh_dev *dev, int fd)
{
	return peer_allowed(dev, fd, &dev->peer);
}

void vh_conn_drop(struct vh_dev *dev, const char *why)
{
	drop_conn(dev, why);
}

static void dev_register(struct vh_dev *dev, bool on)
{
	for (unsigned int i = 0; i < VF_MAX_PORTS; i++)
		if (on ? devs[i] == NULL : devs[i] == dev) {
			devs[i] = on ? dev : NULL;
			return;
		}
}

static void open_fn(void *arg)
{
	struct open_args *a = arg;
	struct vh_dev *dev = a->dev;

	dev->drop = drop_cb;
	dev->drain_max_us = 500000;
	dev_register(dev, true);
	/* vhostd --takeover: the sockets come from the running daemon
	 * (vh_conn_adopt); binding here would fail on its live socket. */
	if (!dev->client && defer_listen) {
		dev->held = true;
		return;
	}
	if (!dev->client) {
		a->rc = listen_on(dev, a->err, sizeof(a->err));
		return;
	}
	a->rc = vf_ctl_add_timer(dev->retry_ms, try_connect, dev);
	if (a->rc > 0) {
		dev->timer_id = a->rc;
		a->rc = 0;
		try_connect(dev);
	}
}

int vh_conn_open(struct vh_dev *dev, char *err, size_t errlen)
{
	struct open_args a = { .dev = dev };
	int rc = vf_ctl_start();

	if (rc == 0)
		vf_ctl_call(open_fn, &a);
	else
		a.rc = rc;
	if (a.rc && a.rc != -EADDRINUSE && a.rc != -EEXIST && a.err[0])
		snprintf(err, errlen, "vhost: %s", a.err);
	else if (a.rc)
		snprintf(err, errlen, "vhost: %s: %s", dev->path,
			 a.rc == -EADDRINUSE ? "socket in use by a running server" :
			 a.rc == -EEXIST ? "exists and is not a socket" : strerror(-a.rc));
	return a.rc;
}

static void close_fn(void *arg)
{
	struct vh_dev *dev = arg;

	dev->closing = true;
	dev_register(dev, false);
	if (dev->timer_id > 0) {
		vf_ctl_del_timer(dev->timer_id);
		dev->timer_id = 0;
	}
	drop_conn(dev, "port closed");
	refuse_waiting(dev, NULL);
	if (dev->listen_fd >= 0) {
		vf_ctl_del_fd(dev->listen_fd);
		close(dev->listen_fd);
		dev->listen_fd = -1;
		if (!dev->handed)
			unlink(dev->path);
	}
	vh_dev_disconnect(dev);
}

void vh_conn_close(struct vh_dev *dev)
{
	vf_ctl_call(close_fn, dev);
}

