/* The control socket's connections (vf_ctlsock.h): listening, who gets in,
 * reading lines, writing replies.  Everything here runs on the control
 * thread, in its callbacks (or under vf_ctl_call at stop), so the clients'
 * state needs no lock; commands go to the runner (ctlrun.c) and their
 * replies come back through an eventfd.
 *
 * Bounds, so that no client can hold anything up: a line is at most
 * VF_CTL_LINE_MAX bytes (longer: an error reply, then the connection is
 * closed); one command per client runs at a time; a client's next line is
 * read only once less than OUT_LOW bytes of its replies wait to be sent
 * (the client's own writes block, ours never do); a reply that would take
 * the waiting output over OUT_MAX, or output that makes no progress for
 * STALL_S seconds, drops the client. */
#include "vf_ctlsock.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ctlrun.h"
#include "vf_ctl.h"
#include "vf_ctlproto.h"
#include "vf_log.h"
#include "vf_shell_priv.h"

#define OUT_LOW		(64u << 10)
#define OUT_MAX		(4u << 20)
#define STALL_S		10.0
/* A client we close after an error reply may still be sending: closing
 * with its bytes unread would reset the connection before it reads the
 * reply, so we shut our side and read on, this long at most. */
#define DRAIN_S		2.0

struct client {
	int fd;			/* -1: slot free, or closed while its job runs */
	bool used;
	bool busy;		/* a job of ours is with the runner */
	bool eof;		/* the client sent its last line */
	bool closing;		/* close once the output is out */
	bool draining;		/* closing: our side shut, reading to the end */
	uint32_t events;	/* what we asked vf_ctl for */
	char in[VF_CTL_LINE_MAX];
	size_t in_len;
	char *out;
	size_t out_off, out_len, out_cap;
	double stalled_since;	/* output waiting and none written since */
};

static struct client clients[VF_CTLSOCK_MAX_CLIENTS];
static struct vf_access access_;
static int listen_fd = -1, notify_fd = -1, timer_id = -1;
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static uint64_t refused;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void client_free(struct client *c)
{
	if (c->fd >= 0) {
		vf_ctl_del_fd(c->fd);
		close(c->fd);
		c->fd = -1;
	}
	if (c->busy)
		return;		/* the slot is freed when the job comes back */
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* Appends to the client's output; false when that would pass OUT_MAX. */
static bool out_add(struct client *c, const char *s, size_t n)
{
	size_t pending = c->out_len - c->out_off;

	if (pending + n > OUT_MAX)
		return false;
	if (c->out_off && c->out_len + n > c->out_cap) {
		memmove(c->out, c->out + c->out_off, pending);
		c->out_len = pending;
		c->out_off = 0;
	}
	if (c->out_len + n > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 4096;
		char *p;

		while (cap < c->out_len + n)
			cap *= 2;
		p = realloc(c->out, cap);
		if (!p)
			return false;
		c->out = p;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, s, n);
	c->out_len += n;
	return true;
}

/* A protocol error: one error reply, then the connection ends. */
static void proto_error(struct client *c, const char *msg)
{
	char buf[160];
	int n = snprintf(buf, sizeof(buf), "%cerror: %s\n%s\n", VF_CTL_ERR, msg, VF_CTL_END_ERROR);

	out_add(c, buf, (size_t)n);
	c->closing = true;
	c->in_len = 0;
}

/* Writes what the socket takes; false when the client is gone. */
static bool flush(struct client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (c->stalled_since == 0)
				c->stalled_since = now_s();
			return true;
		}
		if (n <= 0)
			return false;
		c->out_off += (size_t)n;
		c->stalled_since = 0;
	}
	c->out_off = c->out_len = 0;
	c->stalled_since = 0;
	return true;
}

/* A line is text: no NUL, no control character but tab (a trailing \r was
 * cut by the caller). */
static bool line_ok(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			return false;
	}
	return true;
}

/* Hands the next complete line to the runner, when the client may have
 * one run. */
static void dispatch(struct client *c)
{
	char *nl;
	size_t n, used;
	struct vf__ctl_job *job;

	if (c->busy || c->closing || c->out_len - c->out_off >= OUT_LOW)
		return;
	nl = memchr(c->in, '\n', c->in_len);
	if (nl) {
		n = (size_t)(nl - c->in);
		used = n + 1;
	} else if (c->in_len == sizeof(c->in)) {
		proto_error(c, "line too long (at most 4095 bytes)");
		return;
	} else if (c->eof && c->in_len) {
		n = used = c->in_len;	/* a last line without its newline */
	} else {
		if (c->eof)
			c->closing = true;
		return;
	}
	if (n && c->in[n - 1] == '\r')
		n--;
	if (!line_ok(c->in, n)) {
		proto_error(c, "binary data: a command is a line of text");
		return;
	}
	job = calloc(1, sizeof(*job));
	if (job)
		job->line = strndup(c->in, n);
	if (!job || !job->line) {
		vf__ctl_job_free(job);
		proto_error(c, "out of memory");
		return;
	}
	job->owner = c;
	c->in_len -= used;
	memmove(c->in, c->in + used, c->in_len);
	c->busy = true;
	vf__ctl_runner_submit(job);
}

/* Flushes, dispatches, and asks vf_ctl for the events the state calls
 * for; frees the client when it is done. */
static void client_update(struct client *c)
{
	uint32_t ev = 0;

	if (!flush(c)) {
		client_free(c);
		return;
	}
	dispatch(c);
	if (!flush(c)) {
		client_free(c);
		return;
	}
	if (c->out_off < c->out_len)
		ev |= EPOLLOUT;
	else if (c->closing && !c->busy && !c->draining) {
		shutdown(c->fd, SHUT_WR);
		c->draining = true;
		c->stalled_since = now_s();
	}
	if (c->draining)
		ev = EPOLLIN;
	if (!c->busy && !c->closing && !c->eof && c->in_len < sizeof(c->in) &&
	    c->out_len - c->out_off < OUT_LOW)
		ev |= EPOLLIN;
	if (ev != c->events && vf_ctl_set_events(c->fd, ev) == 0)
		c->events = ev;
}

static void on_client(int fd, uint32_t events, void *arg)
{
	struct client *c = arg;

	/* Hung up (both ways: a half close is an eof, read below): nobody
	 * reads a reply; and HUP is reported whatever we ask for. */
	if (events & (EPOLLHUP | EPOLLERR) && (!(events & EPOLLIN) || c->eof)) {
		client_free(c);
		return;
	}
	if (c->draining) {
		char scratch[4096];
		ssize_t n = recv(fd, scratch, sizeof(scratch), MSG_DONTWAIT);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			client_free(c);
		return;
	}
	if (events & EPOLLIN && !c->eof && c->in_len < sizeof(c->in)) {
		ssize_t n = recv(fd, c->in + c->in_len, sizeof(c->in) - c->in_len, MSG_DONTWAIT);

		if (n == 0)
			c->eof = true;
		else if (n < 0 && errno != EAGAIN && errno != EINTR) {
			client_free(c);
			return;
		} else if (n > 0)
			c->in_len += (size_t)n;
	}
	client_update(c);
}

static void on_done(int fd, uint32_t events, void *arg)
{
	uint64_t v;
	struct vf__ctl_job *job;

	if (read(fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		VF_WARN("ctl socket: %s", strerror(errno));
	while ((job = vf__ctl_runner_take_done()) != NULL) {
		struct client *c = job->owner;

		c->busy = false;
		if (c->fd < 0)
			client_free(c);		/* closed while the job ran */
		else if (!out_add(c, job->reply, job->reply_len)) {
			VF_WARN("ctl socket: a client's replies passed %u bytes unread: dropped",
				OUT_MAX);
			client_free(c);
		} else
			client_update(c);
		vf__ctl_job_free(job);
	}
}

/* Once a second: drops clients whose output has not moved for STALL_S. */
static void on_tick(void *arg)
{
	double t = now_s();

	for (unsigned int i = 0; i < VF_CTLSOCK_MAX_CLIENTS; i++) {
		struct client *c = &clients[i];

		if (!c->used || c->fd < 0 || c->stalled_since == 0)
			continue;
		if (c->draining && t - c->stalled_since > DRAIN_S) {
			client_free(c);
		} else if (!c->draining && t - c->stalled_since > STALL_S) {
			VF_WARN("ctl socket: a client read nothing for %.0f s: dropped", STALL_S);
			client_free(c);
		}
	}
}

/* Best effort, on a socket we are about to close. */
static void say_and_close(int fd, const char *msg)
{
	char buf[160];
	int n = snprintf(buf, sizeof(buf), "%cerror: %s\n%s\n", VF_CTL_ERR, msg, VF_CTL_END_ERROR);

	if (send(fd, buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		VF_DEBUG("ctl socket: %s", strerror(errno));
	close(fd);
}

static void on_accept(int fd, uint32_t events, void *arg)
{
	int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct vf_peer peer;
	char why[128];
	struct client *c = NULL;

	if (cfd < 0)
		return;
	if (vf_access_check(&access_, false, cfd, &peer, why, sizeof(why)) != 0) {
		if (vf_access_log_due(++refused))
			VF_WARN("ctl socket %s: refused %s (%llu so far)", sock_path, why,
				(unsigned long long)refused);
		say_and_close(cfd, "not allowed");
		return;
	}
	for (unsigned int i = 0; i < VF_CTLSOCK_MAX_CLIENTS && !c; i++)
		if (!clients[i].used)
			c = &clients[i];
	if (!c) {
		say_and_close(cfd, "too many clients");
		return;
	}
	memset(c, 0, sizeof(*c));
	c->fd = cfd;
	c->used = true;
	c->events = EPOLLIN;
	if (vf_ctl_add_fd(cfd, on_client, c)) {
		c->used = false;
		c->fd = -1;
		say_and_close(cfd, "no room for another connection");
	}
}

/* What is at path: nothing (0), a socket nobody listens on (removed, 0), a
 * live one (-EADDRINUSE), something else (-EEXIST). */
static int clear_stale(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, ret;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	ret = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ? -EADDRINUSE
	      : errno == ECONNREFUSED ? 0 : -errno;
	close(fd);
	if (ret == 0 && unlink(path) < 0 && errno != ENOENT)
		ret = -errno;
	return ret;
}

int vf_ctlsock_check(const char *path, char *err, size_t len)
{
	int ret;

	if (!*path || strlen(path) >= sizeof(sock_path)) {
		snprintf(err, len, "'%s': a socket path has 1..%zu characters", path,
			 sizeof(sock_path) - 1);
		return -ENAMETOOLONG;
	}
	ret = clear_stale(path);
	if (ret)
		snprintf(err, len, "%s: %s", path, ret == -EADDRINUSE ? "a running process listens there"
			 : ret == -EEXIST ? "exists and is no socket" : strerror(-ret));
	return ret;
}

int vf_ctlsock_start(struct vf_session *ses, const char *path, const struct vf_access *a,
		     char *err, size_t len)
{
	int fd, ret;

	if (listen_fd >= 0) {
		snprintf(err, len, "already serving %s", sock_path);
		return -EALREADY;
	}
	ret = vf_ctlsock_check(path, err, len);
	if (ret)
		return ret;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, len, "socket: %s", strerror(errno));
		return ret;
	}
	ret = vf_sock_listen_file(fd, path, a, 16, err, len);
	if (ret) {
		close(fd);
		return ret;
	}
	access_ = *a;
	snprintf(sock_path, sizeof(sock_path), "%s", path);
	for (unsigned int i = 0; i < VF_CTLSOCK_MAX_CLIENTS; i++)
		clients[i].fd = -1;
	vf__shell_init(ses);	/* before the runner: registration is not thread-safe */
	notify_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (notify_fd < 0 || (ret = vf__ctl_runner_start(ses, notify_fd)) != 0 ||
	    (ret = vf_ctl_add_fd(notify_fd, on_done, NULL)) != 0 ||
	    (ret = vf_ctl_add_timer(1000, on_tick, NULL)) < 0 ||
	    ((timer_id = ret), (ret = vf_ctl_add_fd(fd, on_accept, NULL)) != 0)) {
		if (ret == 0)
			ret = -errno;
		snprintf(err, len, "cannot start serving %s: %s", path, strerror(-ret));
		listen_fd = fd;
		vf_ctlsock_stop();
		return ret;
	}
	listen_fd = fd;
	return 0;
}

static void close_clients(void *arg)
{
	struct vf__ctl_job *job;

	/* The last replies (a "quit" that ends the run has one) go out if
	 * the socket takes them now; nobody waits for a slow reader. */
	while ((job = vf__ctl_runner_take_done()) != NULL) {
		struct client *c = job->owner;

		if (c->fd >= 0 && out_add(c, job->reply, job->reply_len))
			flush(c);
		vf__ctl_job_free(job);
	}
	for (unsigned int i = 0; i < VF_CTLSOCK_MAX_CLIENTS; i++) {
		clients[i].busy = false;	/* the runner is stopped */
		if (clients[i].used)
			client_free(&clients[i]);
	}
	if (notify_fd >= 0) {
		vf_ctl_del_fd(notify_fd);
		close(notify_fd);
		notify_fd = -1;
	}
}

void vf_ctlsock_stop(void)
{
	if (listen_fd < 0)
		return;
	vf_ctl_del_fd(listen_fd);
	close(listen_fd);
	listen_fd = -1;
	if (timer_id > 0)
		vf_ctl_del_timer(timer_id);
	timer_id = -1;
	vf__ctl_runner_stop();
	vf_ctl_call(close_clients, NULL);
	unlink(sock_path);
	sock_path[0] = '\0';
}

const char *vf_ctlsock_path(void)
{
	return listen_fd >= 0 ? sock_path : NULL;
}
