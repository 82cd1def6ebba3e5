/* memif listeners on the control thread: one listening socket shared by
 * every server interface with the same socket name, who may connect
 * (vf_access), and how many may wait before INIT (admission, below). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "memif.h"
#include "vf_ctl.h"
#include "vf_log.h"

static struct memif_sock *socks;	/* control thread only */

/* Admission.  A silent connection (accepted, no INIT yet) is evicted only
 * after MEMIF_SILENT_GRACE_MS: hundreds of clients connecting at once (one
 * nullgen with 256 ports on one socket) must not evict each other before
 * they had the round trip to speak, which retried in a loop and never
 * converged.  While MEMIF_MAX_PENDING younger ones wait, we stop accepting:
 * the newcomers wait in the kernel's backlog, in order, and a timer looks
 * again every MEMIF_ADMIT_POLL_MS.  A peer holding silent connections still
 * cannot lock anyone out: past the grace, each newcomer takes the place of
 * the oldest, and an accepted client has the grace to send INIT. */
static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Whether a newcomer can be accepted now; evicts the oldest silent
 * connection past its grace to make room. */
static bool make_room(struct memif_sock *s, bool evict)
{
	struct memif_conn *oldest = NULL;
	unsigned int n = 0;

	for (struct memif_conn *c = s->pending; c != NULL; c = c->next) {
		if (c->mif == NULL) {
			n++;
			oldest = c;	/* newest first: the last one is the oldest */
		}
	}
	if (n < MEMIF_MAX_PENDING)
		return true;
	if (now_ms() - oldest->accepted_ms < MEMIF_SILENT_GRACE_MS)
		return false;
	if (evict) {
		s->preempted++;
		memif_conn_close(oldest, "Preempted by a new connection");
	}
	return true;
}

static void listen_resume(struct memif_sock *s)
{
	if (s == NULL || !s->paused)
		return;
	s->paused = false;
	vf_ctl_set_events(s->fd, EPOLLIN);
	if (s->admit_timer > 0)
		vf_ctl_del_timer(s->admit_timer);
	s->admit_timer = 0;
}

static void admit_tick(void *arg)
{
	struct memif_sock *s = arg;

	if (make_room(s, false))
		listen_resume(s);
}

static void listen_pause(struct memif_sock *s)
{
	if (s->paused)
		return;
	if (vf_ctl_set_events(s->fd, 0) < 0)
		return;		/* not watched: nothing to pause */
	s->paused = true;
	s->deferred++;
	if (s->admit_timer <= 0)
		s->admit_timer = vf_ctl_add_timer(MEMIF_ADMIT_POLL_MS, admit_tick, s);
}


static void listen_ready(int fd, uint32_t events, void *arg)
{
	struct memif_sock *s = arg;
	struct memif_conn *c;
	char why[MEMIF_REASON_SZ + 1], who[64];
	int cfd;

	if (!make_room(s, true)) {
		listen_pause(s);
		return;
	}
	cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (cfd < 0)
		return;
	c = memif_conn_new(cfd, s, NULL);
	if (c == NULL)
		return;
	c->accepted_ms = now_ms();
	if (vf_access_check(&s->access, s->abstract, cfd, &c->peer, why, sizeof(why)) < 0) {
		/* Before HELLO: a peer not allowed learns nothing but why. */
		s->peer_rejects++;
		snprintf(s->last_refused, sizeof(s->last_refused), "%s: %s",
			 vf_peer_str(&c->peer, who, sizeof(who)), why);
		memif_conn_close(c, why);
		return;
	}
	if (memif_conn_watch(c) < 0) {
		memif_conn_close_ex(c, NULL, "Device error");
		return;
	}
	memif_msg_queue_hello(c);
	if (memif_conn_send_next(c) < 0)
		memif_conn_close_ex(c, NULL, c->reason);
}

/* A filesystem socket file nobody listens on is stale: remove it (DPDK and
 * VPP refuse to start over one).  A live one is left alone and bind fails. */
static void unlink_stale(const char *path)
{
	struct sockaddr_un sa;
	socklen_t len = memif_sockaddr(&sa, path, false);
	struct stat st;
	int fd;

	if (stat(path, &st) < 0 || !S_ISSOCK(st.st_mode))
		return;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (connect(fd, (struct sockaddr *)&sa, len) < 0 && errno == ECONNREFUSED) {
		VF_INFO("memif: removing stale socket %s", path);
		unlink(path);
	}
	close(fd);
}

struct memif_sock *memif_sock_get(const char *name, bool abstract, char *err, size_t len)
{
	struct vf_access acc;

	vf_access_init(&acc);
	return memif_sock_open(name, abstract, &acc, err, len);
}

struct memif_sock *memif_sock_open(const char *name, bool abstract, const struct vf_access *acc,
				   char *err, size_t len)
{
	struct memif_sock *s;
	struct sockaddr_un sa;
	socklen_t salen;
	int on = 1;

	for (s = socks; s != NULL; s = s->next) {
		if (s->abstract == abstract && strcmp(s->name, name) == 0) {
			/* One listener, one gate: every port on it must agree. */
			if (!vf_access_equal(&s->access, acc)) {
				snprintf(err, len, "memif socket %s%s: allow-uid, allow-gid, socket-mode "
					 "and socket-group must be the same on every port of one socket",
					 abstract ? "@" : "", name);
				return NULL;
			}
			s->refcnt++;
			return s;
		}
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->abstract = abstract;
	s->access = *acc;
	s->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		goto fail;
	if (!abstract) {
		int rc;

		unlink_stale(name);
		/* The file gets its mode and group before anyone can connect. */
		rc = vf_sock_listen_file(s->fd, name, acc, MEMIF_LISTEN_BACKLOG, err, len);
		if (rc < 0) {
			char why[200];

			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, len, "memif socket %s", why);
			close(s->fd);
			free(s);
			return NULL;
		}
	} else {
		salen = memif_sockaddr(&sa, name, abstract);
		if (bind(s->fd, (struct sockaddr *)&sa, salen) < 0 || listen(s->fd, MEMIF_LISTEN_BACKLOG) < 0)
			goto fail;
	}
	/* As DPDK, libmemif and VPP: peers then may see credentials. */
	if (setsockopt(s->fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) < 0)
		goto fail;
	if (vf_ctl_add_fd(s->fd, listen_ready, s) < 0)
		goto fail;
	s->refcnt = 1;
	s->next = socks;
	socks = s;
	return s;
fail:
	snprintf(err, len, "memif socket %s%s: %s", abstract ? "@" : "", name, strerror(errno));
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	return NULL;
}

void memif_sock_put(struct memif_sock *s)
{
	struct memif_sock **pp;

	if (s == NULL || --s->refcnt > 0)
		return;
	listen_resume(s);		/* its timer goes */
	while (s->pending != NULL)
		memif_conn_close_ex(s->pending, "Device closed", NULL);
	vf_ctl_del_fd(s->fd);
	close(s->fd);
	if (!s->abstract)
		unlink(s->name);
	for (pp = &socks; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	free(s);
}

int memif_sock_attach(struct memif_sock *s, struct memif_if *mif, char *err, size_t len)
{
	unsigned int i, slot = VF_MAX_PORTS;

	for (i = 0; i < VF_MAX_PORTS; i++) {
		if (s->ifs[i] == NULL) {
			if (slot == VF_MAX_PORTS)
				slot = i;
		} else if (s->ifs[i]->cfg.id == mif->cfg.id) {
			snprintf(err, len, "memif id %u already used on socket %s",
				 mif->cfg.id, s->name);
			return -EEXIST;
		}
	}
	if (slot == VF_MAX_PORTS) {
		snprintf(err, len, "too many memif interfaces on socket %s", s->name);
		return -ENOSPC;
	}
	s->ifs[slot] = mif;
	mif->sock = s;
	return 0;
}

void memif_sock_detach(struct memif_sock *s, struct memif_if *mif)
{
	for (unsigned int i = 0; i < VF_MAX_PORTS; i++)
		if (s->ifs[i] == mif)
			s->ifs[i] = NULL;
	mif->sock = NULL;
}
