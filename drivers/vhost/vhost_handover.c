/* The running daemon's side of a takeover (vhost_takeover.h).
 *
 * On a thread of its own, so that a slow or dead new daemon holds up
 * neither the control thread nor forwarding on other ports: pause every
 * device at a quiescent point, send the records and fds, and wait for the
 * new daemon's word.  Only a commit lets go; a refusal, EOF (the new one
 * died), a timeout or anything else resumes every device as it was: the
 * rings were never touched meanwhile, the sockets never closed. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "vf_ctl.h"
#include "vf_log.h"
#include "vf_sync.h"
#include "vhost_conn.h"
#include "vhost_takeover.h"
#include "vhost_takeover_wire.h"

/* How long the new daemon has for each step (it has set up everything
 * before it asks, so this is a bound on a stuck peer, not a budget). */
#define STEP_S 5

int vh_to_export(const struct vh_dev *dev, struct vh_to_dev *rec, int *fds)
{
	int n = 0;

	memset(rec, 0, sizeof(*rec));
	snprintf(rec->path, sizeof(rec->path), "%s", dev->path);
	rec->nb_qp = dev->nb_qp;
	rec->status = dev->status;
	rec->features = dev->features;
	rec->protocol_features = dev->protocol_features;
	rec->flags = (dev->features_set ? VH_TO_DEV_FEATURES : 0) |
		     (dev->conn_fd >= 0 ? VH_TO_DEV_CONN : 0) |
		     (dev->log && dev->log->fd >= 0 ? VH_TO_DEV_LOG : 0);
	fds[n++] = dev->listen_fd;
	if (dev->conn_fd >= 0)
		fds[n++] = dev->conn_fd;
	rec->nregions = dev->mem.nregions;
	for (uint32_t i = 0; i < dev->mem.nregions; i++) {
		const struct vh_mem_reg *r = &dev->mem.r[i];

		rec->r[i] = (struct vh_to_region){ r->gpa, r->size, r->uva, r->mmap_offset };
		fds[n++] = r->fd;
	}
	if (rec->flags & VH_TO_DEV_LOG) {
		rec->log_size = dev->log->size;
		rec->log_offset = dev->log->offset;
		fds[n++] = dev->log->fd;
	}
	for (unsigned int i = 0; i < 2u * dev->nb_qp; i++) {
		const struct vh_vq *vq = &dev->vq[i];
		struct vh_to_vq *q = &rec->vq[i];

		q->flags = (vq->num_set ? VH_TO_VQ_NUM : 0) | (vq->addr_ok ? VH_TO_VQ_ADDR : 0) |
			   (vq->kick_set ? VH_TO_VQ_KICK : 0) | (vq->call_set ? VH_TO_VQ_CALL : 0) |
			   (vq->enabled ? VH_TO_VQ_ENABLED : 0);
		q->size = vq->size;
		q->last_avail = vq->last_avail;
		q->last_used = vq->last_used;
		q->avail_wrap = vq->avail_wrap;
		q->used_wrap = vq->used_wrap;
		q->addr = vq->addr;
		if (vq->kickfd >= 0) {
			q->flags |= VH_TO_VQ_KICKFD;
			fds[n++] = vq->kickfd;
		}
		if (vq->callfd >= 0) {
			q->flags |= VH_TO_VQ_CALLFD;
			fds[n++] = vq->callfd;
		}
	}
	return n;
}

struct serve {
	int fd;
	struct vh_dev *dev[VF_MAX_PORTS];
	unsigned int ndev;
	bool paused;
	char why[112];
};

static bool busy;	/* one takeover at a time; ctl thread only */
/* The committed takeover's state, held until we exit (its fd must stay
 * open): reachable, not leaked. */
static struct serve *committed;

static void pause_all(void *arg)
{
	struct serve *s = arg;

	s->ndev = vh_conn_devs(s->dev, VF_MAX_PORTS);
	for (unsigned int i = 0; i < s->ndev; i++)
		if (vh_conn_pause_ok(s->dev[i], s->why, sizeof(s->why)))
			return;
	/* Both steps for every device before the next, so that a frame one
	 * vhost port took while another's receive ring still ran gets there
	 * (io mode between two ports). */
	for (int step = 0; step < 2; step++) {
		for (unsigned int i = 0; i < s->ndev; i++)
			vh_conn_pause(s->dev[i], step);
		vf_sync_wait();
	}
	s->paused = true;
}

static void resume_all(void *arg)
{
	struct serve *s = arg;

	for (unsigned int i = 0; i < s->ndev; i++)
		vh_conn_resume(s->dev[i]);
	busy = false;
}

static void hand_all(void *arg)
{
	struct serve *s = arg;

	for (unsigned int i = 0; i < s->ndev; i++)
		vh_conn_handed(s->dev[i]);
}

struct exported {
	struct vh_to_dev rec;
	int fds[VH_TO_MAX_FDS];
	int nfds;
};

static struct exported ex[VF_MAX_PORTS];

static void export_all(void *arg)
{
	struct serve *s = arg;

	for (unsigned int i = 0; i < s->ndev; i++)
		ex[i].nfds = vh_to_export(s->dev[i], &ex[i].rec, ex[i].fds);
}

static int exchange(struct serve *s)
{
	struct vh_to_hello h = {
		.magic = VH_TO_MAGIC, .version = VH_TO_VERSION, .ndev = (uint16_t)s->ndev,
		.dev_size = sizeof(struct vh_to_dev), .pid = (int32_t)getpid(),
	};
	uint32_t word;
	int nfds, rc;

	/* Our fds stay ours while we send: the control thread reads none of
	 * them (paused) and closes none (the ports are not closed while a
	 * takeover runs: the thread is joined by nobody, see serve_main). */
	vf_ctl_call(export_all, s);
	rc = vh_to_send(s->fd, &h, sizeof(h), NULL, 0);
	for (unsigned int i = 0; rc == 0 && i < s->ndev; i++)
		rc = vh_to_send(s->fd, &ex[i].rec, sizeof(ex[i].rec), ex[i].fds, ex[i].nfds);
	if (rc == 0)
		rc = vh_to_recv(s->fd, &word, sizeof(word), NULL, 0, &nfds);
	if (rc)
		VF_WARN("takeover: %s; serving on", rc == -ECONNRESET ?
			"the new daemon went away" : strerror(-rc));
	else if (word != VH_TO_COMMIT)
		VF_WARN("takeover refused by the new daemon; serving on");
	return rc == 0 && word == VH_TO_COMMIT ? 0 : -1;
}

static void *serve_main(void *arg)
{
	struct serve *s = arg;
	struct timeval tv = { .tv_sec = STEP_S };
	uint32_t bye = VH_TO_BYE;

	setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(s->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	vf_ctl_call(pause_all, s);
	if (!s->paused) {
		struct vh_to_hello h = { .magic = VH_TO_MAGIC, .version = VH_TO_VERSION,
					 .ndev = VH_TO_REFUSED, .pid = (int32_t)getpid() };

		snprintf(h.why, sizeof(h.why), "%s", s->why);
		VF_WARN("takeover refused: %s", s->why);
		(void)vh_to_send(s->fd, &h, sizeof(h), NULL, 0);
		s->ndev = 0;
		vf_ctl_call(resume_all, s);
		goto out;
	}
	if (exchange(s)) {
		vf_ctl_call(resume_all, s);
		goto out;
	}
	/* Committed: from here the new daemon serves; we only let go. */
	vf_ctl_call(hand_all, s);
	VF_INFO("takeover: %u port%s handed over; exiting", s->ndev, s->ndev == 1 ? "" : "s");
	(void)vh_to_send(s->fd, &bye, sizeof(bye), NULL, 0);
	/* The fd stays open until we exit: its EOF tells the new daemon the
	 * control socket path is free. */
	__atomic_store_n(&committed, s, __ATOMIC_RELEASE);
	kill(getpid(), SIGTERM);
	return NULL;
out:
	close(s->fd);
	free(s);
	return NULL;
}

/* Control thread (ctlsock's handoff). */
void vf_vhost_takeover_serve(int fd, void *arg)
{
	struct serve *s;
	pthread_t t;

	(void)arg;
	s = busy ? NULL : calloc(1, sizeof(*s));
	if (!s) {
		struct vh_to_hello h = { .magic = VH_TO_MAGIC, .version = VH_TO_VERSION,
					 .ndev = VH_TO_REFUSED, .pid = (int32_t)getpid() };

		snprintf(h.why, sizeof(h.why), "%s", busy ? "another takeover runs" :
			 "out of memory");
		(void)send(fd, &h, sizeof(h), MSG_NOSIGNAL | MSG_DONTWAIT);
		close(fd);
		return;
	}
	/* ctlsock's connections are non-blocking; ours waits, with timeouts */
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	s->fd = fd;
	busy = true;
	if (pthread_create(&t, NULL, serve_main, s) != 0) {
		busy = false;
		close(fd);
		free(s);
		return;
	}
	pthread_detach(t);
}
