/* virtio_user's connection life cycle, on the control thread
 * (lib/core/vf_ctl.h), with every conversation with the backend on the port's
 * worker thread (a job):
 *   attach (connect or accept) -> job: negotiate features
 *   -> run (port started): rings reset and filled -> job: start sequence
 *      -> link up, queues ready
 *   -> halt (port stopped, or the backend left): queues not ready,
 *      vf_sync_wait(), link down -> job: GET_VRING_BASE if the backend is
 *      still there -> posted mbufs freed
 *   -> detach: socket closed, link down (counted); server=1 accepts the
 *      next backend, server=0 reconnects.
 * So a backend that accepts and never answers (each reply has a deadline)
 * holds its own port only: the control thread, every other port,
 * telemetry and the shell go on, and a stop returns at once (issue 13).
 * A broken ring (hostile used ring, hardening.md D1-D3) is noticed by a
 * timer and detaches the backend: the port goes down and stays usable. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "vf_ctl.h"
#include "vf_log.h"
#include "vf_mem.h"
#include "vf_peercred.h"
#include "vf_port.h"
#include "vf_sync.h"

#include "vhost_user_fe.h"
#include "vu_socket.h"
#include "virtio_rxtx.h"
#include "virtio_user_priv.h"
#include "virtio_user_queues.h"
#include "virtio_user_dev.h"

/* The backoff doubles up to 8 s, or stays at reconnect-ms when that is longer. */
static unsigned int retry_max(const struct vu_dev *d)
{
	return d->retry_min_ms > VU_RETRY_MAX_MS ? d->retry_min_ms : VU_RETRY_MAX_MS;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Drain after the backend left: at most this long (vf_sync_drain). */
#define VU_DRAIN_MAX_US		500000

/* ---- connection state (control thread) ---- */

static void set_error(struct vu_dev *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_error(struct vu_dev *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->last_error, sizeof(d->last_error), fmt, ap);
	va_end(ap);
}

static int watch(struct vu_dev *d);

/* Hands a job to the worker; j (d->job) is filled but for fe and kind. */
static void job_post(struct vu_dev *d, uint8_t kind)
{
	struct vu_job *j = &d->job;

	j->d = d;
	j->kind = kind;
	j->rc = 0;
	j->fe = d->fe;
	vu_unwatch(d);
	__atomic_store_n(&d->busy, kind, __ATOMIC_RELEASE);
	pthread_mutex_lock(&d->wlock);
	d->wjob = j;
	pthread_cond_signal(&d->wcond);
	pthread_mutex_unlock(&d->wlock);
}

/* Closes the connection (nothing in flight); server=0 reconnects later. */
static void hang_up(struct vu_dev *d)
{
	if (d->fe.fd >= 0) {
		vu_unwatch(d);
		close(d->fe.fd);
		d->fe.fd = -1;
	}
	d->negotiated = false;
	if (!d->server && !d->closing) {
		if (d->retry_ms < d->retry_min_ms)
			d->retry_ms = d->retry_min_ms;
		d->retry_at_ms = now_ms() + d->retry_ms;
		d->retry_logged = false;
	}
}

void vu_dev_halt(struct vu_dev *d, bool tell)
{
	uint8_t b = busy(d);

	/* A start in flight sees the port stopped when it ends; a stop in
	 * flight is already on its way. */
	if (!d->running || b == VU_JOB_START || b == VU_JOB_STOP)
		return;
	set_link(d, false);
	vu_q_all(d, vu_q_unready, NULL);
	/* Forwarding cores leave the rings before we take the mbufs back. */
	vf_sync_wait();
	if (tell && d->fe.fd >= 0) {
		/* The buffers are ours once the backend answered (stop_done). */
		d->job.nr = vu_rings_of(d, d->job.r);
		job_post(d, VU_JOB_STOP);
		return;
	}
	/* The backend is gone: buffers are ours. */
	vu_q_all(d, vu_q_reset, NULL);
	d->running = false;
}

/* The backend is gone, but what it already put in our receive rings is
 * ours: the cores take it before the rings are reset (issue 13); each
 * ring's core confirms it found the ring empty after the request. */
static void dev_drain(struct vu_dev *d)
{
	struct vf_drain_ring r[VU_MAX_QP];
	unsigned int n = 0;

	if (!d->running)
		return;
	for (uint16_t i = 0; i < d->active_qp; i++) {
		struct vio_queue *q = d->rxq[i];

		if (q && vio_ready(q))
			r[n++] = (struct vf_drain_ring){
				&q->drain_req, &q->drain_ack,
				{ &q->st.packets, &q->st.nombuf, &q->st.bad_len },
				q->packed ? &q->pq.broken : &q->vq.broken };
	}
	if (n)
		d->drain_unfinished += vf_sync_drain(r, n, VU_DRAIN_MAX_US);
}

/* Nothing in flight (the callers run when no job is). */
static void dev_detach(struct vu_dev *d, const char *why)
{
	bool was_up = __atomic_load_n(&d->link_up, __ATOMIC_ACQUIRE);

	dev_drain(d);
	vu_dev_halt(d, false);
	if (d->fe.fd >= 0) {
		vu_unwatch(d);
		close(d->fe.fd);
		d->fe.fd = -1;
	}
	d->negotiated = false;
	if (was_up)
		d->link_down++;
	set_error(d, "%s", why);
	if (!d->server) {
		/* A session that ran starts the backoff over; one that never
		 * got going keeps backing off. */
		if (was_up || d->retry_ms == 0)
			d->retry_ms = d->retry_min_ms;
		d->retry_at_ms = now_ms() + d->retry_ms;
		d->retry_logged = false;
	}
	VF_INFO("%s: backend %s: %s", d->port->name, d->server ? "disconnected" : "lost", why);
	vf_peer_event(d->port->id, d->port->name, VF_EV_PEER_DISCONNECTED, &d->peer, d->path, why);
}

/* Rings reset and filled here; the start sequence is the worker's. */
void vu_dev_run(struct vu_dev *d)
{
	struct vu_job *j = &d->job;
	uint16_t i;
	int n;

	if (d->running || !d->negotiated || !d->started || d->closing || busy(d))
		return;
	vu_q_all(d, vu_q_reset, NULL);
	for (i = 0; i < d->active_qp; i++) {
		if (d->packed)
			vio_rx_fill_packed(d->rxq[i]);
		else
			vio_rx_fill(d->rxq[i]);
	}
	n = vf_mem_regions(j->regs, VF_MEM_MAX_REGIONS);
	if (n < 0 || vu_mem_check(d, j->regs, n) < 0) {
		VF_ERR("%s: packet memory cannot be shared with the backend (%s)", d->port->name,
		       n < 0 ? strerror(-n) : "a ring or the mbuf pool lies outside the DPDK heap regions");
		d->start_fail++;
		vu_q_all(d, vu_q_reset, NULL);
		dev_detach(d, "memory not shareable");
		return;
	}
	j->nregs = n;
	j->nr = vu_rings_of(d, j->r);
	d->running = true;
	job_post(d, VU_JOB_START);
}

static void negotiate_done(struct vu_dev *d, struct vu_job *j)
{
	if (d->closing || j->rc < 0) {
		if (!d->closing) {
			VF_ERR("%s: %s", d->port->name, j->fe.err);
			set_error(d, "%s", j->fe.err);
		}
		hang_up(d);
		return;
	}
	d->fe = j->fe;
	d->negotiated = true;
	if (watch(d) < 0) {
		dev_detach(d, "cannot watch the socket");
		return;
	}
	vu_dev_run(d);
}

static void start_done(struct vu_dev *d, struct vu_job *j)
{
	if (j->rc < 0) {
		char why[192];

		if (!d->closing) {
			VF_ERR("%s: start: %s", d->port->name, j->fe.err);
			d->start_fail++;
		}
		vu_q_all(d, vu_q_reset, NULL);
		d->running = false;
		snprintf(why, sizeof(why), "start sequence failed: %s", j->fe.err);
		dev_detach(d, why);
		return;
	}
	if (watch(d) < 0) {
		dev_detach(d, "cannot watch the socket");
		return;
	}
	if (!d->started || d->closing) {
		/* Stopped while the start sequence ran. */
		vu_dev_halt(d, true);
		return;
	}
	d->logged_broken = false;
	vu_q_all(d, vu_q_ready, NULL);
	/* A core asleep (rx modes) while the rings were down arms them now. */
	vf_sync_kick();
	set_link(d, true);
	VF_INFO("%s: link up (features 0x%" PRIx64 ", protocol 0x%" PRIx64 ", %u queue pairs)",
		d->port->name, d->fe.features, d->fe.protocol, d->active_qp);
}

static void stop_done(struct vu_dev *d, struct vu_job *j)
{
	if (j->rc < 0) {
		/* Not known to be stopped: hang up so a sane backend lets go
		 * of the rings before we take the buffers. */
		VF_WARN("%s: stop: %s: disconnecting", d->port->name, j->fe.err);
		set_error(d, "stop: %s: disconnected", j->fe.err);
		hang_up(d);
	}
	vu_q_all(d, vu_q_reset, NULL);
	d->running = false;
	if (d->closing)
		return;
	if (d->fe.fd >= 0 && watch(d) < 0) {
		dev_detach(d, "cannot watch the socket");
		return;
	}
	vu_dev_run(d);	/* started again meanwhile */
}

/* Control thread (vf_ctl_call from the worker): take the result. */
static void job_done(void *arg)
{
	struct vu_job *j = arg;
	struct vu_dev *d = j->d;

	__atomic_store_n(&d->busy, VU_JOB_NONE, __ATOMIC_RELEASE);
	switch (j->kind) {
	case VU_JOB_NEGOTIATE:
		negotiate_done(d, j);
		break;
	case VU_JOB_START:
		start_done(d, j);
		break;
	case VU_JOB_STOP:
		stop_done(d, j);
		break;
	}
}

/* Worker thread: the conversation itself.  Every reply has its deadline
 * (fe.timeout_ms), and so has every send (a backend that stops reading). */
static int job_run(struct vu_job *j)
{
	const struct vu_dev *d = j->d;
	struct vu_fe_want w = { d->want_mrg, d->want_inorder, d->nqp, d->packed, d->want_ol };
	struct timeval tv = { j->fe.timeout_ms / 1000, (j->fe.timeout_ms % 1000) * 1000 };

	setsockopt(j->fe.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	switch (j->kind) {
	case VU_JOB_NEGOTIATE:
		return vu_fe_negotiate(&j->fe, &w, true);
	case VU_JOB_START:
		return vu_fe_start(&j->fe, j->regs, j->nregs, j->r, j->nr);
	case VU_JOB_STOP:
		return vu_fe_stop(&j->fe, j->r, j->nr);
	}
	return -EINVAL;
}

static void *worker_main(void *arg)
{
	struct vu_dev *d = arg;

	pthread_mutex_lock(&d->wlock);
	for (;;) {
		struct vu_job *j;

		while (d->wjob == NULL && !d->wquit)
			pthread_cond_wait(&d->wcond, &d->wlock);
		j = d->wjob;
		if (j == NULL)
			break;
		d->wjob = NULL;
		pthread_mutex_unlock(&d->wlock);
		j->rc = job_run(j);
		vf_ctl_call(job_done, j);
		pthread_mutex_lock(&d->wlock);
	}
	pthread_mutex_unlock(&d->wlock);
	return NULL;
}

int vu_worker_start(struct vu_dev *d)
{
	pthread_mutex_init(&d->wlock, NULL);
	pthread_cond_init(&d->wcond, NULL);
	if (pthread_create(&d->worker, NULL, worker_main, d) != 0)
		return -EAGAIN;
	pthread_setname_np(d->worker, "vf-vu-worker");
	d->has_worker = true;
	return 0;
}

/* After every job has ended (not from the worker itself). */
void vu_worker_stop(struct vu_dev *d)
{
	if (!d->has_worker)
		return;
	pthread_mutex_lock(&d->wlock);
	d->wquit = true;
	pthread_cond_signal(&d->wcond);
	pthread_mutex_unlock(&d->wlock);
	pthread_join(d->worker, NULL);
	d->has_worker = false;
	pthread_cond_destroy(&d->wcond);
	pthread_mutex_destroy(&d->wlock);
}

static void do_abort(void *arg)
{
	struct vu_dev *d = arg;

	/* The worker's read or write fails at once; the job's end hangs up. */
	if (busy(d) != VU_JOB_NONE && d->fe.fd >= 0)
		shutdown(d->fe.fd, SHUT_RDWR);
}

/* Main thread, control lock not held: waits until no job (any, or only
 * one that holds the rings) is in flight, hanging up on a backend that
 * has not answered within VU_CLOSE_WAIT_MS. */
void vu_wait_jobs(struct vu_dev *d, bool rings_only)
{
	uint64_t end = now_ms() + VU_CLOSE_WAIT_MS;
	bool aborted = false;

	for (;;) {
		uint8_t b = busy(d);

		if (b == VU_JOB_NONE || (rings_only && b == VU_JOB_NEGOTIATE))
			return;
		if (!aborted && now_ms() >= end) {
			vf_ctl_call(do_abort, d);
			aborted = true;
		}
		usleep(1000);
	}
}

static void on_sock(int fd, uint32_t events, void *arg)
{
	struct vu_dev *d = arg;
	char c;
	ssize_t r = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);

	if (r < 0 && (errno == EAGAIN || errno == EINTR) && !(events & (EPOLLHUP | EPOLLERR)))
		return;
	/* EOF, error, or a message nobody asked for (we offer no backend
	 * request channel): the session is over. */
	dev_detach(d, r == 0 ? "connection closed" : r < 0 ? strerror(errno) : "unexpected message");
}

static int watch(struct vu_dev *d)
{
	if (d->watched || d->fe.fd < 0)
		return 0;
	if (vf_ctl_add_fd(d->fe.fd, on_sock, d) < 0)
		return -1;
	d->watched = true;
	return 0;
}

void vu_unwatch(struct vu_dev *d)
{
	if (!d->watched)
		return;
	vf_ctl_del_fd(d->fe.fd);
	d->watched = false;
}

/* allow-uid / allow-gid: may the backend on fd stay?  Refusals are
 * counted and, now and then, logged. */
bool vu_peer_allowed(struct vu_dev *d, int fd)
{
	struct vf_peer peer;
	char why[96], who[64];

	if (vf_access_check(&d->access, false, fd, &peer, why, sizeof(why)) == 0) {
		d->peer = peer;
		d->connect_attempts = 0;
		vf_peer_event(d->port->id, d->port->name, VF_EV_PEER_CONNECTED, &peer, d->path, NULL);
		VF_INFO("%s: backend pid %d uid %u gid %u", d->port->name, (int)peer.pid,
			(unsigned int)peer.uid, (unsigned int)peer.gid);
		return true;
	}
	d->peer_rejects++;
	vf_peer_event(d->port->id, d->port->name, VF_EV_PEER_REFUSED, &peer, d->path, why);
	snprintf(d->last_refused, sizeof(d->last_refused), "%s: %s",
		 vf_peer_str(&peer, who, sizeof(who)), why);
	if (vf_access_log_due(d->peer_rejects))
		VF_WARN("%s: backend on %s refused (%" PRIu64 " so far): %s", d->port->name,
			d->path, d->peer_rejects, d->last_refused);
	return false;
}

/* A backend let in on fd: the negotiation is the worker's. */
void vu_attach_start(struct vu_dev *d, int fd)
{
	d->fe = (struct vu_fe){ .fd = fd, .timeout_ms = VU_REPLY_TIMEOUT_MS };
	d->negotiated = false;
	d->connects++;
	job_post(d, VU_JOB_NEGOTIATE);
}

static void dev_attach_async(struct vu_dev *d, int fd)
{
	/* Who it is decides before anything is negotiated (allow-uid/gid). */
	if (!vu_peer_allowed(d, fd)) {
		close(fd);
		return;
	}
	vu_attach_start(d, fd);
}

void vu_on_listen(int fd, uint32_t events, void *arg)
{
	struct vu_dev *d = arg;
	int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

	if (c < 0)
		return;
	if (d->fe.fd >= 0) {
		/* One backend at a time; the first keeps its session. */
		struct vf_peer peer;

		VF_WARN("%s: second backend connection refused", d->port->name);
		if (vf_peer_get(c, &peer) < 0)
			peer.known = false;
		vf_peer_event(d->port->id, d->port->name, VF_EV_PEER_REFUSED, &peer, d->path,
			      "a backend is connected");
		close(c);
		return;
	}
	VF_INFO("%s: backend connected", d->port->name);
	dev_attach_async(d, c);
}

/* server=0: the backend went away; try again, backing off to 8 s.  The
 * connect does not block (a full backlog is just another failure). */
static void client_retry(struct vu_dev *d)
{
	uint64_t now = now_ms();
	int fd;

	if (now < d->retry_at_ms)
		return;
	fd = vu_sock_connect(d->path, true);
	if (fd >= 0) {
		VF_INFO("%s: reconnected to %s", d->port->name, d->path);
		dev_attach_async(d, fd);
	} else {
		vf_event_reconnect(d->port->id, d->port->name, ++d->connect_attempts, d->path,
				   strerror(-fd));
	}
	if (d->fe.fd >= 0) {
		d->retry_ms = d->retry_min_ms;
		return;
	}
	VF_LOG_ONCE(d->retry_logged, VF_LOG_INFO, "%s: backend at %s not back yet, retrying",
		    d->port->name, d->path);
	if (d->retry_ms < d->retry_min_ms)
		d->retry_ms = d->retry_min_ms;
	else
		d->retry_ms = d->retry_ms * 2 > retry_max(d) ? retry_max(d) : d->retry_ms * 2;
	d->retry_at_ms = now + d->retry_ms;
}

void vu_on_timer(void *arg)
{
	struct vu_dev *d = arg;
	uint16_t i;

	if (busy(d) != VU_JOB_NONE)
		return;
	if (!d->server && d->fe.fd < 0) {
		client_retry(d);
		return;
	}
	if (!__atomic_load_n(&d->link_up, __ATOMIC_ACQUIRE))
		return;
	for (i = 0; i < d->active_qp; i++) {
		if (vu_q_broken(d->rxq[i]) || vu_q_broken(d->txq[i])) {
			d->ring_broken++;
			VF_LOG_ONCE(d->logged_broken, VF_LOG_ERR,
				    "%s: backend broke vring %u (bad used id/len/idx): port down",
				    d->port->name, vu_q_broken(d->rxq[i]) ? d->rxq[i]->vring : d->txq[i]->vring);
			dev_detach(d, "ring broken");
			return;
		}
	}
}
