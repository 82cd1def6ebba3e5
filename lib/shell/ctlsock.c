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
 * STALL_S seconds, drops the client.
 *
 * "monitor" turns a connection into a stream of events (vf_event.h): the
 * drain's lines go to every monitor as they come, with nothing read from
 * it after that but its hang-up.  A monitor that does not keep up is never
 * dropped and never waited for: once MON_MAX bytes wait for it, its events
 * are lost and counted, and a gap line with the count comes before the
 * next one that fits. */
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

#include "ctlpath.h"
#include "ctlrun.h"
#include "vf_ctl.h"
#include "vf_ctlproto.h"
#include "vf_event.h"
#include "vf_log.h"
#include "vf_session.h"
#include "vf_shell_priv.h"
#include "vf_ctlhandoff.h"

#define OUT_LOW		(64u << 10)
#define OUT_MAX		(4u << 20)
#define STALL_S		10.0
#define MON_MAX		(256u << 10)
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
	bool monitor;		/* streams events; reads nothing more */
	uint64_t lost;		/* monitor: events lost since its last gap line */
	uint32_t events;	/* what we asked vf_ctl for */
	char in[VF_CTL_LINE_MAX];
	size_t in_len;
	char *out;
	size_t out_off, out_len, out_cap;
	double stalled_since;	/* output waiting and none written since */
};

static struct client clients[VF_CTLSOCK_MAX_CLIENTS];
static struct vf_session *session;
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

/* A monitor's event line, or a count of what it lost when it does not fit
 * now; the gap line goes first once there is room for both. */
static void mon_add(struct client *c, const char *line, size_t len)
{
	char gap[128 + 2];
	size_t g = 0;

	if (c->lost) {
		g = vf_event_format_gap(c->lost, gap + 1, sizeof(gap) - 2);
		gap[0] = VF_CTL_OUT;
		gap[++g] = '\n';
		g++;
	}
	/* Full: what the socket takes now makes room (a drain hands over
	 * up to a ring's worth of lines before its end-of-batch flush). */
	if (c->out_len - c->out_off + g + len + 2 > MON_MAX && !flush(c)) {
		c->lost += line ? 1 : 0;	/* gone: the next update frees it */
		return;
	}
	if (c->out_len - c->out_off + g + len + 2 > MON_MAX ||
	    (g && !out_add(c, gap, g))) {
		c->lost += line ? 1 : 0;
		return;
	}
	c->lost = 0;
	if (line && (!out_add(c, (char[]){ VF_CTL_OUT }, 1) || !out_add(c, line, len) ||
		     !out_add(c, "\n", 1)))
		c->lost++;
}

/* The line is the word "monitor" alone (blanks around it allowed). */
static bool is_monitor(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n == 7 && !memcmp(s, "monitor", 7);
}

static void start_monitor(struct client *c)
{
	char hello[256];
	size_t n = vf_event_format_hello(session ? session->tool : NULL, hello, sizeof(hello));

	c->monitor = true;
	c->in_len = 0;
	if (n)
		mon_add(c, hello, n);
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
	if (is_monitor(c->in, n)) {
		start_monitor(c);
		return;
	}
	if (vf__ctl_is_handoff(c->in, n)) {
		int fd = c->fd;

		/* Nothing may follow: the protocol after the line is binary. */
		if (c->in_len != used || c->out_len != c->out_off) {
			proto_error(c, "nothing may follow the line");
			return;
		}
		vf_ctl_del_fd(fd);
		c->fd = -1;
		client_free(c);
		vf__ctl_handoff(fd);
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
	if (c->monitor) {
		if (c->lost && c->out_off == c->out_len) {
			mon_add(c, NULL, 0);	/* the gap line, now that there is room */
			if (!flush(c)) {
				client_free(c);
				return;
			}
		}
		ev = (c->out_off < c->out_len ? EPOLLOUT : 0) | (c->eof ? 0 : EPOLLIN);
		if (ev != c->events && vf_ctl_set_events(c->fd, ev) == 0)
			c->events = ev;
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
	if (c->draining || (c->monitor && events & EPOLLIN)) {
		char scratch[4096];
		ssize_t n = recv(fd, scratch, sizeof(scratch), MSG_DONTWAIT);

		if (c->monitor && n == 0) {
			c->eof = true;	/* a half close: the events go on */
		} else if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			client_free(c);
			return;
		}
		if (c->monitor)
			client_update(c);
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
	/* The events the commands raised go out now, before their replies:
	 * a script of commands raises them faster than the 100 ms drain
	 * takes them (8000 "set rx-mode" in 0.18 s filled the 2048-slot
	 * ring and lost a third of them). */
	vf_event_flush();
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

		if (!c->used || c->fd < 0 || c->stalled_since == 0 || c->monitor)
			continue;
		if (c->draining && t - c->stalled_since > DRAIN_S) {
			client_free(c);
		} else if (!c->draining && t - c->stalled_since > STALL_S) {
			VF_WARN("ctl socket: a client read nothing for %.0f s: dropped", STALL_S);
			client_free(c);
		}
	}
}

/* The events' sink (vf_event.h), on the control thread: each line to
 * every monitor, then (line NULL) out they go. */
static void mon_sink(const char *line, size_t len, void *arg)
{
	for (unsigned int i = 0; i < VF_CTLSOCK_MAX_CLIENTS; i++) {
		struct client *c = &clients[i];

		if (!c->used || c->fd < 0 || !c->monitor)
			continue;
		if (line)
			mon_add(c, line, len);
		else
			client_update(c);
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
		vf_peer_event(VF_EVENT_NO_PORT, NULL, VF_EV_PEER_REFUSED, &peer, sock_path, why);
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

int vf_ctlsock_check(const char *path, char *err, size_t len)
{
	int ret;

	if (!*path || strlen(path) >= sizeof(sock_path)) {
		snprintf(err, len, "'%s': a socket path has 1..%zu characters", path,
			 sizeof(sock_path) - 1);
		return -ENAMETOOLONG;
	}
	ret = vf__ctl_clear_stale(path);
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
	session = ses;
	snprintf(sock_path, sizeof(sock_path), "%s", path);
	for (unsigned int i = 0; i < VF_CTLSOCK_MAX_CLIENTS; i++)
		clients[i].fd = -1;
	vf__shell_init(ses);	/* before the runner: registration is not thread-safe */
	notify_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (notify_fd < 0 || (ret = vf__ctl_runner_start(ses, notify_fd)) != 0 ||
	    (ret = vf_ctl_add_fd(notify_fd, on_done, NULL)) != 0 ||
	    (ret = vf_ctl_add_timer(1000, on_tick, NULL)) < 0 ||
	    ((timer_id = ret), (ret = vf_event_sink_add(mon_sink, NULL)) != 0) ||
	    (ret = vf_ctl_add_fd(fd, on_accept, NULL)) != 0) {
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

	/* The events so far to the monitors, then the end of their reply;
	 * the last replies (a "quit" that ends the run has one) go out if
	 * the socket takes them now; nobody waits for a slow reader. */
	vf_event_flush();
	for (unsigned int i = 0; i < VF_CTLSOCK_MAX_CLIENTS; i++)
		if (clients[i].used && clients[i].fd >= 0 && clients[i].monitor &&
		    out_add(&clients[i], VF_CTL_END_OK "\n", sizeof(VF_CTL_END_OK)))
			flush(&clients[i]);
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
	vf_event_sink_del(mon_sink, NULL);
	unlink(sock_path);
	sock_path[0] = '\0';
}

const char *vf_ctlsock_path(void)
{
	return listen_fd >= 0 ? sock_path : NULL;
}
