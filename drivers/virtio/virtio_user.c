/* virtio_user: a virtio-net device whose backend is a vhost-user switch
 * (DPDK net_vhost, vhostd, OVS, VPP).  We are the vhost-user front-end: we
 * own the rings and all packet memory and hand the backend the DPDK heap
 * regions (lib/vf_mem.h) in SET_MEM_TABLE.
 *
 * Connection life cycle, on the control thread (lib/vf_ctl.h), with every
 * conversation with the backend on the port's worker thread (a job):
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
#include <fcntl.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_ether.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "vf_ctl.h"
#include "vf_devargs.h"
#include "vf_log.h"
#include "vf_mem.h"
#include "vf_out.h"
#include "vf_peercred.h"
#include "vf_port.h"
#include "vf_sync.h"

#include "vhost_user_fe.h"
#include "vu_socket.h"
#include "virtio_rxtx.h"

#define VU_MAX_QP 8
#define VU_REPLY_TIMEOUT_MS 5000
#define VU_CHECK_MS 100

struct vu_dev {
	struct vf_port *port;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	uint16_t nqp;			/* queues= (pairs negotiated for) */
	uint16_t qsize;
	uint16_t active_qp;		/* pairs configured by the engine */
	bool want_mrg, want_inorder, server;
	bool packed;			/* packed_vq=1: every queue packed */
	uint64_t want_ol;		/* offload features asked for (devargs) */

	int listenfd;
	struct vu_fe fe;		/* fe.fd: connection or -1 */
	bool negotiated;		/* on this connection */
	bool running;			/* rings reset, filled and handed to the backend */
	bool link_up;			/* atomic: the start sequence done, queues ready */
	bool watched;			/* fe.fd is on the control loop */
	bool started;			/* port started */
	bool closing;
	bool logged_broken;
	int timer;
	int socket_id;
	char last_error[160];		/* the last failure, for port info */

	struct vio_queue *rxq[VU_MAX_QP], *txq[VU_MAX_QP];

	/* server=0: reconnect to a backend that went away, with backoff */
	uint64_t retry_at_ms;
	unsigned int retry_ms;
	unsigned int retry_min_ms;	/* reconnect-ms */
	bool retry_logged;

	uint64_t link_down, connects, ring_broken, start_fail;
	uint64_t drain_unfinished;	/* drains given up (vf_sync_drain) */

	struct vf_access access;	/* allow-uid/gid, socket-mode/group */
	struct vf_peer peer;		/* the backend let in last */
	uint64_t peer_rejects;
	char last_refused[128];

	/* Every conversation with the backend (negotiation, start sequence,
	 * GET_VRING_BASE) runs as a job on the port's worker thread, one at
	 * a time; its result is taken on the control thread (job_done).
	 * While one is in flight the worker owns fe.fd (not watched). */
	uint8_t busy;			/* atomic: enum vu_job_kind */
	struct vu_job {
		struct vu_dev *d;
		uint8_t kind;
		int rc;
		struct vu_fe fe;	/* the worker's copy */
		struct vf_mem_region regs[VF_MEM_MAX_REGIONS];
		int nregs;
		struct vu_fe_ring r[2 * VU_MAX_QP];
		int nr;
	} job;
	pthread_t worker;
	bool has_worker;
	pthread_mutex_t wlock;		/* wjob, wquit */
	pthread_cond_t wcond;
	struct vu_job *wjob;
	bool wquit;
};

enum vu_job_kind { VU_JOB_NONE, VU_JOB_NEGOTIATE, VU_JOB_START, VU_JOB_STOP };

#define VU_RETRY_MIN_MS 1000
#define VU_RETRY_MAX_MS 8000
/* Port close (or reconfigure) waits this long for a stop in flight to be
 * answered before it hangs up on the backend. */
#define VU_CLOSE_WAIT_MS 1000

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

/* ---- helpers ---- */

static void q_all(struct vu_dev *d, void (*fn)(struct vu_dev *, struct vio_queue *, void *),
		  void *arg)
{
	uint16_t i;

	for (i = 0; i < d->active_qp; i++) {
		if (d->rxq[i])
			fn(d, d->rxq[i], arg);
		if (d->txq[i])
			fn(d, d->txq[i], arg);
	}
}

static void q_unready(struct vu_dev *d, struct vio_queue *q, void *arg)
{
	vio_set_ready(q, false);
}

static void q_ready(struct vu_dev *d, struct vio_queue *q, void *arg)
{
	vio_set_ready(q, true);
}

static void q_reset(struct vu_dev *d, struct vio_queue *q, void *arg)
{
	uint64_t f = d->fe.features;

	if (q->packed)
		vio_queue_reset_packed(q, f & (1ull << VIRTIO_F_IN_ORDER),
				       f & (1ull << VIRTIO_NET_F_MRG_RXBUF),
				       f & (1ull << VIRTIO_RING_F_EVENT_IDX));
	else
		vio_queue_reset(q, f & (1ull << VIRTIO_F_IN_ORDER), f & (1ull << VIRTIO_NET_F_MRG_RXBUF));
	/* what the backend sends us (GUEST_*) and takes from us (CSUM, HOST_TSO*) */
	q->ol_rx_allowed = q->rx ? vnet_ol_caps_guest(f) : 0;
	q->ol_tx.caps = q->rx ? 0 : vnet_ol_caps_host(f);
}

/* Ring geometry of either kind, for the control paths. */
static uint16_t q_size(const struct vio_queue *q)
{
	return q->packed ? q->pq.size : q->vq.size;
}

static size_t q_mem_size(const struct vio_queue *q)
{
	return q->packed ? vqp_mem_size(q->pq.size) : vqs_mem_size(q->vq.size);
}

static bool q_broken(const struct vio_queue *q)
{
	return q->packed ? q->pq.broken : q->vq.broken;
}

static int rings_of(struct vu_dev *d, struct vu_fe_ring *r)
{
	int n = 0;
	uint16_t i;

	for (i = 0; i < d->active_qp; i++) {
		struct vio_queue *qs[2] = { d->rxq[i], d->txq[i] };
		int k;

		for (k = 0; k < 2; k++) {
			struct vio_queue *q = qs[k];

			r[n].index = q->vring;
			if (q->packed) {
				/* avail = driver area, used = device area;
				 * base: the (reset) avail slot and wrap. */
				r[n].num = q->pq.size;
				r[n].desc = vqp_addr(q->pq.desc);
				r[n].avail = vqp_addr(q->pq.drv);
				r[n].used = vqp_addr(q->pq.dev);
				r[n].base = vqp_base(&q->pq);
			} else {
				r[n].num = q->vq.size;
				r[n].desc = vqs_addr(q->vq.desc);
				r[n].avail = vqs_addr(q->vq.avail);
				r[n].used = vqs_addr(q->vq.used);
				r[n].base = 0;
			}
			r[n].kickfd = q->kickfd;
			r[n].callfd = q->callfd;
			n++;
		}
	}
	return n;
}

struct pool_chk {
	const struct vf_mem_region *regs;
	int n;
	bool ok;
};

static void pool_chunk(struct rte_mempool *mp, void *arg, struct rte_mempool_memhdr *mh,
		       unsigned int idx)
{
	struct pool_chk *c = arg;

	if (vf_mem_find(c->regs, c->n, mh->addr, mh->len) == NULL)
		c->ok = false;
}

/* Every buffer we will post must lie in the table we send. */
static int mem_check(struct vu_dev *d, const struct vf_mem_region *regs, int n)
{
	struct pool_chk c = { regs, n, true };
	uint16_t i;

	for (i = 0; i < d->active_qp; i++) {
		struct vio_queue *qs[2] = { d->rxq[i], d->txq[i] };
		int k;

		for (k = 0; k < 2; k++)
			if (!vf_mem_find(regs, n, qs[k]->mem, q_mem_size(qs[k])) ||
			    (qs[k]->hdrs && !vf_mem_find(regs, n, qs[k]->hdrs,
							 sizeof(*qs[k]->hdrs) * q_size(qs[k]))))
				return -EFAULT;
	}
	rte_mempool_mem_iter(d->port->conf.pool, pool_chunk, &c);
	return c.ok ? 0 : -EFAULT;
}

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

static uint8_t busy(const struct vu_dev *d)
{
	return __atomic_load_n(&d->busy, __ATOMIC_ACQUIRE);
}

static void set_link(struct vu_dev *d, bool up)
{
	__atomic_store_n(&d->link_up, up, __ATOMIC_RELEASE);
}

static int watch(struct vu_dev *d);
static void unwatch(struct vu_dev *d);
static void dev_run(struct vu_dev *d);

/* Hands a job to the worker; j (d->job) is filled but for fe and kind. */
static void job_post(struct vu_dev *d, uint8_t kind)
{
	struct vu_job *j = &d->job;

	j->d = d;
	j->kind = kind;
	j->rc = 0;
	j->fe = d->fe;
	unwatch(d);
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
		unwatch(d);
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

static void dev_halt(struct vu_dev *d, bool tell)
{
	uint8_t b = busy(d);

	/* A start in flight sees the port stopped when it ends; a stop in
	 * flight is already on its way. */
	if (!d->running || b == VU_JOB_START || b == VU_JOB_STOP)
		return;
	set_link(d, false);
	q_all(d, q_unready, NULL);
	/* Forwarding cores leave the rings before we take the mbufs back. */
	vf_sync_wait();
	if (tell && d->fe.fd >= 0) {
		/* The buffers are ours once the backend answered (stop_done). */
		d->job.nr = rings_of(d, d->job.r);
		job_post(d, VU_JOB_STOP);
		return;
	}
	/* The backend is gone: buffers are ours. */
	q_all(d, q_reset, NULL);
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
	dev_halt(d, false);
	if (d->fe.fd >= 0) {
		unwatch(d);
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
}

/* Rings reset and filled here; the start sequence is the worker's. */
static void dev_run(struct vu_dev *d)
{
	struct vu_job *j = &d->job;
	uint16_t i;
	int n;

	if (d->running || !d->negotiated || !d->started || d->closing || busy(d))
		return;
	q_all(d, q_reset, NULL);
	for (i = 0; i < d->active_qp; i++) {
		if (d->packed)
			vio_rx_fill_packed(d->rxq[i]);
		else
			vio_rx_fill(d->rxq[i]);
	}
	n = vf_mem_regions(j->regs, VF_MEM_MAX_REGIONS);
	if (n < 0 || mem_check(d, j->regs, n) < 0) {
		VF_ERR("%s: packet memory cannot be shared with the backend (%s)", d->port->name,
		       n < 0 ? strerror(-n) : "a ring or the mbuf pool lies outside the DPDK heap regions");
		d->start_fail++;
		q_all(d, q_reset, NULL);
		dev_detach(d, "memory not shareable");
		return;
	}
	j->nregs = n;
	j->nr = rings_of(d, j->r);
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
	dev_run(d);
}

static void start_done(struct vu_dev *d, struct vu_job *j)
{
	if (j->rc < 0) {
		char why[192];

		if (!d->closing) {
			VF_ERR("%s: start: %s", d->port->name, j->fe.err);
			d->start_fail++;
		}
		q_all(d, q_reset, NULL);
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
		dev_halt(d, true);
		return;
	}
	d->logged_broken = false;
	q_all(d, q_ready, NULL);
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
	q_all(d, q_reset, NULL);
	d->running = false;
	if (d->closing)
		return;
	if (d->fe.fd >= 0 && watch(d) < 0) {
		dev_detach(d, "cannot watch the socket");
		return;
	}
	dev_run(d);	/* started again meanwhile */
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

static int worker_start(struct vu_dev *d)
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
static void worker_stop(struct vu_dev *d)
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
static void wait_jobs(struct vu_dev *d, bool rings_only)
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

static void unwatch(struct vu_dev *d)
{
	if (!d->watched)
		return;
	vf_ctl_del_fd(d->fe.fd);
	d->watched = false;
}

/* allow-uid / allow-gid: may the backend on fd stay?  Refusals are
 * counted and, now and then, logged. */
static bool peer_allowed(struct vu_dev *d, int fd)
{
	struct vf_peer peer;
	char why[96], who[64];

	if (vf_access_check(&d->access, false, fd, &peer, why, sizeof(why)) == 0) {
		d->peer = peer;
		VF_INFO("%s: backend pid %d uid %u gid %u", d->port->name, (int)peer.pid,
			(unsigned int)peer.uid, (unsigned int)peer.gid);
		return true;
	}
	d->peer_rejects++;
	snprintf(d->last_refused, sizeof(d->last_refused), "%s: %s",
		 vf_peer_str(&peer, who, sizeof(who)), why);
	if (vf_access_log_due(d->peer_rejects))
		VF_WARN("%s: backend on %s refused (%" PRIu64 " so far): %s", d->port->name,
			d->path, d->peer_rejects, d->last_refused);
	return false;
}

/* A backend let in on fd: the negotiation is the worker's. */
static void attach_start(struct vu_dev *d, int fd)
{
	d->fe = (struct vu_fe){ .fd = fd, .timeout_ms = VU_REPLY_TIMEOUT_MS };
	d->negotiated = false;
	d->connects++;
	job_post(d, VU_JOB_NEGOTIATE);
}

static void dev_attach_async(struct vu_dev *d, int fd)
{
	/* Who it is decides before anything is negotiated (allow-uid/gid). */
	if (!peer_allowed(d, fd)) {
		close(fd);
		return;
	}
	attach_start(d, fd);
}

static void on_listen(int fd, uint32_t events, void *arg)
{
	struct vu_dev *d = arg;
	int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

	if (c < 0)
		return;
	if (d->fe.fd >= 0) {
		/* One backend at a time; the first keeps its session. */
		VF_WARN("%s: second backend connection refused", d->port->name);
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

static void on_timer(void *arg)
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
		if (q_broken(d->rxq[i]) || q_broken(d->txq[i])) {
			d->ring_broken++;
			VF_LOG_ONCE(d->logged_broken, VF_LOG_ERR,
				    "%s: backend broke vring %u (bad used id/len/idx): port down",
				    d->port->name, q_broken(d->rxq[i]) ? d->rxq[i]->vring : d->txq[i]->vring);
			dev_detach(d, "ring broken");
			return;
		}
	}
}

/* ---- driver ops ---- */

static const struct vf_kvdef vu_keys[] = {
	{ "path", VF_KV_STR, 0, sizeof(((struct sockaddr_un *)0)->sun_path) - 1, NULL, NULL,
	  "vhost-user socket of the backend" },
	{ "queues", VF_KV_UINT, 1, VU_MAX_QP, NULL, "1", "queue pairs (rx and tx queues)" },
	{ "queue_size", VF_KV_UINT, 16, 32768, NULL, "256", "descriptors per ring (power of 2)" },
	{ "mac", VF_KV_MAC, 0, 0, NULL, "random", "port MAC address" },
	{ "mrg_rxbuf", VF_KV_BOOL, 0, 1, NULL, "1", "accept mergeable rx buffers" },
	{ "in_order", VF_KV_BOOL, 0, 1, NULL, "1", "accept VIRTIO_F_IN_ORDER" },
	{ "packed_vq", VF_KV_BOOL, 0, 1, NULL, "0", "1: packed rings (VIRTIO_F_RING_PACKED; the backend must offer it)" },
	{ "server", VF_KV_BOOL, 0, 1, NULL, "0",
	  "1: listen on path and accept the backend (again after it restarts)" },
	{ "reconnect-ms", VF_KV_UINT, 10, 3600000, NULL, "1000",
	  "server=0: first wait before connecting again to a backend that went (doubling to 8 s)" },
	{ "csum", VF_KV_BOOL, 0, 1, NULL, "0",
	  "ask for VIRTIO_NET_F_CSUM: the backend fills our partial checksums" },
	{ "guest_csum", VF_KV_BOOL, 0, 1, NULL, "0",
	  "ask for VIRTIO_NET_F_GUEST_CSUM: take partial or verified checksums" },
	{ "host_tso4", VF_KV_BOOL, 0, 1, NULL, "0",
	  "ask for VIRTIO_NET_F_HOST_TSO4: the backend takes IPv4 TSO frames (needs csum)" },
	{ "host_tso6", VF_KV_BOOL, 0, 1, NULL, "0",
	  "ask for VIRTIO_NET_F_HOST_TSO6: the backend takes IPv6 TSO frames (needs csum)" },
	{ "guest_tso4", VF_KV_BOOL, 0, 1, NULL, "0",
	  "ask for VIRTIO_NET_F_GUEST_TSO4: take IPv4 TSO frames (needs guest_csum, mrg_rxbuf)" },
	{ "guest_tso6", VF_KV_BOOL, 0, 1, NULL, "0",
	  "ask for VIRTIO_NET_F_GUEST_TSO6: take IPv6 TSO frames (needs guest_csum, mrg_rxbuf)" },
	VF_ACCESS_KEYS,
	{ NULL, 0, 0, 0, NULL, NULL, NULL },
};

struct probe_arg {
	struct vu_dev *d;
	int fd;
};

static void do_attach(void *arg)
{
	struct probe_arg *a = arg;

	attach_start(a->d, a->fd);
}

static void vu_free(struct vu_dev *d)
{
	uint16_t i;

	for (i = 0; i < VU_MAX_QP; i++) {
		struct vio_queue *qs[2] = { d->rxq[i], d->txq[i] };
		int k;

		for (k = 0; k < 2; k++) {
			if (qs[k] == NULL)
				continue;
			if (qs[k]->kickfd >= 0)
				close(qs[k]->kickfd);
			if (qs[k]->callfd >= 0)
				close(qs[k]->callfd);
			vio_queue_free(qs[k]);
			rte_free(qs[k]);
		}
		d->rxq[i] = d->txq[i] = NULL;
	}
}

static int vu_probe(struct vf_port *port, const struct vf_devargs *da)
{
	struct vu_dev *d;
	uint64_t qs = vf_devargs_uint(da, "queue_size", 256);
	int rc = -EIO;

	if (!vf_devargs_has(da, "path")) {
		VF_ERR("%s: virtio_user needs path=SOCKET", port->name);
		return -EINVAL;
	}
	if (qs & (qs - 1)) {
		VF_ERR("%s: queue_size=%" PRIu64 " is not a power of 2", port->name, qs);
		return -EINVAL;
	}
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return -ENOMEM;
	d->port = port;
	snprintf(d->path, sizeof(d->path), "%s", vf_devargs_str(da, "path", ""));
	d->nqp = (uint16_t)vf_devargs_uint(da, "queues", 1);
	d->qsize = (uint16_t)qs;
	d->want_mrg = vf_devargs_bool(da, "mrg_rxbuf", true);
	d->want_inorder = vf_devargs_bool(da, "in_order", true);
	d->server = vf_devargs_bool(da, "server", false);
	d->retry_min_ms = (unsigned int)vf_devargs_uint(da, "reconnect-ms", VU_RETRY_MIN_MS);
	d->packed = vf_devargs_bool(da, "packed_vq", false);
	{
		static const struct { const char *key, *needs; int bit; } ol[] = {
			{ "csum", NULL, VIRTIO_NET_F_CSUM },
			{ "guest_csum", NULL, VIRTIO_NET_F_GUEST_CSUM },
			{ "host_tso4", "csum", VIRTIO_NET_F_HOST_TSO4 },
			{ "host_tso6", "csum", VIRTIO_NET_F_HOST_TSO6 },
			{ "guest_tso4", "guest_csum", VIRTIO_NET_F_GUEST_TSO4 },
			{ "guest_tso6", "guest_csum", VIRTIO_NET_F_GUEST_TSO6 },
		};

		for (size_t i = 0; i < sizeof(ol) / sizeof(ol[0]); i++) {
			if (!vf_devargs_bool(da, ol[i].key, false))
				continue;
			if (ol[i].needs && !vf_devargs_bool(da, ol[i].needs, false)) {
				VF_ERR("%s: virtio_user: %s=1 needs %s=1 (virtio feature dependency)",
				       port->name, ol[i].key, ol[i].needs);
				free(d);
				return -EINVAL;
			}
			/* 64 KiB frames need mergeable rx buffers (ours are one mbuf) */
			if (ol[i].bit == VIRTIO_NET_F_GUEST_TSO4 || ol[i].bit == VIRTIO_NET_F_GUEST_TSO6) {
				if (!d->want_mrg) {
					VF_ERR("%s: virtio_user: %s=1 needs mrg_rxbuf=1", port->name,
					       ol[i].key);
					free(d);
					return -EINVAL;
				}
			}
			d->want_ol |= 1ull << ol[i].bit;
		}
	}
	{
		char err[160];

		if (vf_access_from_devargs(&d->access, da, err, sizeof(err)) < 0) {
			VF_ERR("%s: virtio_user: %s", port->name, err);
			free(d);
			return -EINVAL;
		}
	}
	if (!d->server && vf_access_file_keys(&d->access))
		VF_WARN("%s: socket-mode and socket-group apply to the socket server=1 creates; "
			"ignored", port->name);
	vf_sock_warn_dir(port->name, d->path);
	d->listenfd = -1;
	d->fe.fd = -1;
	/* Rings and tx headers go where the pool is: the memory the backend
	 * gets in SET_MEM_TABLE (the sealed peer heap when there is one). */
	d->socket_id = vf_mem_peer_socket() >= 0 ? vf_mem_peer_socket() : (int)rte_socket_id();
	port->rx_offloads = (d->want_ol & VNET_OL_GUEST_FEATURES) != 0;
	if (!vf_devargs_mac(da, "mac", port->mac))
		rte_eth_random_addr(port->mac);
	port->max_rxq = port->max_txq = d->nqp;
	port->priv = d;

	vf_ctl_start();
	if (worker_start(d) < 0) {
		rc = -EAGAIN;
		goto fail;
	}
	if (d->server) {
		char err[160];
		int fd = vu_sock_listen(d->path, &d->access, err, sizeof(err));

		if (fd < 0) {
			VF_ERR("%s: %s", port->name, err);
			rc = fd;
			goto fail;
		}
		d->listenfd = fd;
		if (vf_ctl_add_fd(fd, on_listen, d) < 0)
			goto fail;
		VF_INFO("%s: waiting for a vhost-user backend on %s", port->name, d->path);
	} else {
		/* Connected and let in here; the negotiation runs on the
		 * worker like any reconnect's, so that a silent backend holds
		 * neither the start of the other ports nor the shell. */
		struct probe_arg a = { d, vu_sock_connect(d->path, true) };

		if (a.fd < 0) {
			VF_ERR("%s: cannot connect to %s: %s", port->name, d->path, strerror(-a.fd));
			rc = a.fd;
			goto fail;
		}
		if (!peer_allowed(d, a.fd)) {
			close(a.fd);
			rc = -EPERM;
			goto fail;
		}
		vf_ctl_call(do_attach, &a);
	}
	d->timer = vf_ctl_add_timer(VU_CHECK_MS, on_timer, d);
	if (d->timer < 0)
		goto fail;
	return 0;
fail:
	port->priv = NULL;
	if (d->listenfd >= 0) {
		vf_ctl_del_fd(d->listenfd);
		close(d->listenfd);
		unlink(d->path);
	}
	d->closing = true;
	wait_jobs(d, false);
	if (d->fe.fd >= 0) {
		vf_ctl_del_fd(d->fe.fd);
		close(d->fe.fd);
	}
	worker_stop(d);
	free(d);
	return rc;
}

static int q_new(struct vu_dev *d, struct vio_queue **qp, bool rx, uint16_t vring)
{
	struct vio_queue *q = rte_zmalloc_socket("vio_queue", sizeof(*q), RTE_CACHE_LINE_SIZE,
						 d->socket_id);

	if (q == NULL || (d->packed ? vio_queue_alloc_packed(q, d->qsize, rx, d->socket_id)
				    : vio_queue_alloc(q, d->qsize, rx, d->socket_id)) < 0) {
		rte_free(q);
		return -ENOMEM;
	}
	q->port_id = d->port->id;
	q->vring = vring;
	/* Real eventfds: DPDK vhost needs a kick and a call fd per ring
	 * before it starts.  We never read the call fd (calls are
	 * suppressed, we poll). */
	q->kickfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	q->callfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	*qp = q;
	if (q->kickfd < 0 || q->callfd < 0)
		return -errno;
	return 0;
}

struct cfg_arg {
	struct vu_dev *d;
	const struct vf_port_conf *conf;
	int rc;
};

static void do_configure(void *arg)
{
	struct cfg_arg *a = arg;
	struct vu_dev *d = a->d;
	uint16_t np = a->conf->nb_rxq > a->conf->nb_txq ? a->conf->nb_rxq : a->conf->nb_txq;
	uint16_t i;

	if (d->running) {
		VF_ERR("%s: configure while the rings are in use", d->port->name);
		a->rc = -EBUSY;
		return;
	}
	if (np == 0 || np > d->nqp) {
		VF_ERR("%s: %u queues asked, queues=%u", d->port->name, np, d->nqp);
		a->rc = -EINVAL;
		return;
	}
	if (vio_rx_pool_check(a->conf->pool, d->want_mrg) < 0) {
		VF_ERR("%s: mbufs too small for a frame (mrg_rxbuf=0 needs 1514 bytes per buffer)",
		       d->port->name);
		a->rc = -EINVAL;
		return;
	}
	vu_free(d);
	d->active_qp = 0;
	for (i = 0; i < np; i++) {
		if (q_new(d, &d->rxq[i], true, 2 * i) < 0 || q_new(d, &d->txq[i], false, 2 * i + 1) < 0) {
			vu_free(d);
			a->rc = -ENOMEM;
			return;
		}
		d->rxq[i]->pool = a->conf->pool;
	}
	d->active_qp = np;
	a->rc = 0;
}

static int vu_configure(struct vf_port *port, const struct vf_port_conf *conf)
{
	struct cfg_arg a = { port->priv, conf, 0 };

	wait_jobs(a.d, true);	/* a stop still in flight holds the rings */
	vf_ctl_call(do_configure, &a);
	return a.rc;
}

static void do_start(void *arg)
{
	struct vu_dev *d = arg;

	d->started = true;
	dev_run(d);
}

static int vu_start(struct vf_port *port)
{
	struct vu_dev *d = port->priv;
	uint16_t i;

	for (i = 0; i < VF_MAX_QUEUES; i++) {
		port->rxq[i] = i < d->active_qp ? d->rxq[i] : NULL;
		port->txq[i] = i < d->active_qp ? d->txq[i] : NULL;
	}
	/* The ring kind is fixed by packed_vq (negotiation fails without
	 * it), so the bursts are chosen once here. */
	if (d->want_ol & VNET_OL_GUEST_FEATURES)
		port->rx_burst = d->packed ? vio_rx_burst_packed_ol : vio_rx_burst_ol;
	else
		port->rx_burst = d->packed ? vio_rx_burst_packed : vio_rx_burst;
	/* Offloads or not, a request in a packet is finished (in software
	 * where the backend does not take it) before it goes out. */
	port->tx_burst = d->packed ? vio_tx_burst_packed_ol : vio_tx_burst_ol;
	/* Without a backend yet the queues are simply not ready (bursts
	 * move nothing) until one connects. */
	vf_ctl_call(do_start, d);
	return 0;
}

static void do_stop(void *arg)
{
	struct vu_dev *d = arg;

	/* Returns at once: the GET_VRING_BASE exchange is a job. */
	d->started = false;
	dev_halt(d, true);
}

static void vu_stop(struct vf_port *port)
{
	struct vu_dev *d = port->priv;

	vf_ctl_call(do_stop, d);
	port->rx_burst = vf_port_rx_none;
	port->tx_burst = vf_port_tx_none;
}

static void do_close(void *arg)
{
	struct vu_dev *d = arg;

	d->started = false;
	d->closing = true;
	dev_halt(d, true);	/* a stop job, or nothing */
	if (busy(d) == VU_JOB_NEGOTIATE)
		shutdown(d->fe.fd, SHUT_RDWR);	/* nothing to wait for */
	if (d->listenfd >= 0) {
		vf_ctl_del_fd(d->listenfd);
		close(d->listenfd);
		unlink(d->path);
		d->listenfd = -1;
	}
	if (d->timer > 0)
		vf_ctl_del_timer(d->timer);
	d->timer = 0;
}

static void do_close_end(void *arg)
{
	struct vu_dev *d = arg;

	set_link(d, false);
	if (d->running) {
		q_all(d, q_unready, NULL);
		vf_sync_wait();
		q_all(d, q_reset, NULL);
		d->running = false;
	}
	if (d->fe.fd >= 0) {
		unwatch(d);
		close(d->fe.fd);
		d->fe.fd = -1;
	}
}

static void vu_close(struct vf_port *port)
{
	struct vu_dev *d = port->priv;

	if (d == NULL)
		return;
	vf_ctl_call(do_close, d);
	/* A healthy backend answers the stop at once; a silent one is hung
	 * up on after VU_CLOSE_WAIT_MS. */
	wait_jobs(d, false);
	vf_ctl_call(do_close_end, d);
	worker_stop(d);
	vu_free(d);
	free(d);
	port->priv = NULL;
}

static void vu_link_get(struct vf_port *port, struct vf_link *link)
{
	struct vu_dev *d = port->priv;

	link->up = __atomic_load_n(&d->link_up, __ATOMIC_ACQUIRE);
	link->speed_mbps = 0;
}

static void vu_stats_get(struct vf_port *port, struct vf_port_stats *st)
{
	struct vu_dev *d = port->priv;
	uint16_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < d->active_qp; i++) {
		const struct vio_qstats *r = &d->rxq[i]->st, *t = &d->txq[i]->st;

		st->ipackets += vf_ctr_read(r->packets);
		st->ibytes += vf_ctr_read(r->bytes);
		st->ierrors += vf_ctr_read(r->errors);
		for (int e = 1; e < VNET_OL_NB_ERR; e++)
			st->ierrors += d->rxq[i]->ol_rx.err[e];
		st->rx_nombuf += vf_ctr_read(r->nombuf);
		st->opackets += vf_ctr_read(t->packets);
		st->obytes += vf_ctr_read(t->bytes);
		st->oerrors += vf_ctr_read(t->errors) + d->txq[i]->ol_tx.st.sw_nombuf +
			       d->txq[i]->ol_tx.st.sw_bad + d->txq[i]->ol_tx.st.sw_unsent;
	}
}

static void vu_stats_reset(struct vf_port *port)
{
	struct vu_dev *d = port->priv;
	uint16_t i;

	for (i = 0; i < d->active_qp; i++) {
		memset(&d->rxq[i]->st, 0, sizeof(d->rxq[i]->st));
		memset(&d->txq[i]->st, 0, sizeof(d->txq[i]->st));
		memset(&d->rxq[i]->ol_rx, 0, sizeof(d->rxq[i]->ol_rx));
		memset(&d->txq[i]->ol_tx.st, 0, sizeof(d->txq[i]->ol_tx.st));
	}
}

/* Offload counters, summed over the queues: the received headers (by
 * outcome) and the software path of tx. */
static unsigned int ol_xstats(const struct vu_dev *d, struct vf_xstat *xs, unsigned int n)
{
	uint64_t v[4 + VNET_OL_NB_ERR + 6] = { 0 };
	const char *names[4 + VNET_OL_NB_ERR + 6] = {
		"rx_ol_csum", "rx_ol_csum_done", "rx_ol_tso", "rx_ol_data_valid",
	};
	unsigned int k = 4, i;

	for (int e = 1; e < VNET_OL_NB_ERR; e++)
		names[k++] = vnet_ol_err_name(e);
	names[k++] = "tx_sw_csum";
	names[k++] = "tx_sw_tso";
	names[k++] = "tx_sw_tso_segs";
	names[k++] = "tx_sw_dropped_nombuf";
	names[k++] = "tx_sw_dropped_bad";
	names[k++] = "tx_sw_dropped_ring_full";
	for (i = 0; i < d->active_qp; i++) {
		const struct vnet_ol_rx_stats *r = &d->rxq[i]->ol_rx;
		const struct vf_ol_stats *t = &d->txq[i]->ol_tx.st;
		unsigned int j = 0;

		v[j++] += r->csum;
		v[j++] += r->csum_sw;
		v[j++] += r->tso;
		v[j++] += r->data_valid;
		for (int e = 1; e < VNET_OL_NB_ERR; e++)
			v[j++] += r->err[e];
		v[j++] += t->sw_csum;
		v[j++] += t->sw_tso;
		v[j++] += t->sw_tso_segs;
		v[j++] += t->sw_nombuf;
		v[j++] += t->sw_bad;
		v[j++] += t->sw_unsent;
	}
	for (i = 0; i < k && i < n; i++) {
		/* received header errors read rx_hdr_... */
		snprintf(xs[i].name, sizeof(xs[i].name), "%s%s",
			 (i >= 4 && i < 4 + VNET_OL_NB_ERR - 1) ? "rx_" : "", names[i]);
		xs[i].value = v[i];
	}
	return k;
}

static int vu_xstats_get(struct vf_port *port, struct vf_xstat *xs, unsigned int n)
{
	struct vu_dev *d = port->priv;
	uint64_t v[14] = { d->link_down, d->connects, d->ring_broken, d->start_fail };
	static const char *const names[14] = {
		"link_down_events", "backend_connects", "ring_broken", "start_failures",
		"used_bad_id", "used_bad_len", "used_idx_jump", "rx_bad_len", "rx_bad_hdr",
		"rx_kicks", "tx_kicks", "rx_nombuf", "used_bad_flags", "peer_rejects",
	};
	unsigned int i;

	for (i = 0; i < d->active_qp; i++) {
		const struct vio_queue *r = d->rxq[i], *t = d->txq[i];

		if (d->packed) {
			v[4] += r->pq.err[VQP_ERR_BAD_ID] + t->pq.err[VQP_ERR_BAD_ID];
			v[5] += r->pq.err[VQP_ERR_BAD_LEN] + t->pq.err[VQP_ERR_BAD_LEN];
			v[12] += r->pq.err[VQP_ERR_BAD_FLAGS] + t->pq.err[VQP_ERR_BAD_FLAGS];
		} else {
			v[4] += r->vq.err[VQS_ERR_BAD_ID] + t->vq.err[VQS_ERR_BAD_ID];
			v[5] += r->vq.err[VQS_ERR_BAD_LEN] + t->vq.err[VQS_ERR_BAD_LEN];
			v[6] += r->vq.err[VQS_ERR_IDX_JUMP] + t->vq.err[VQS_ERR_IDX_JUMP];
		}
		v[7] += vf_ctr_read(r->st.bad_len);
		v[8] += vf_ctr_read(r->st.bad_hdr);
		v[9] += vf_ctr_read(r->st.kicks);
		v[10] += vf_ctr_read(t->st.kicks);
		v[11] += vf_ctr_read(r->st.nombuf);
	}
	v[13] = d->peer_rejects;
	for (i = 0; i < 14 && i < n; i++) {
		snprintf(xs[i].name, sizeof(xs[i].name), "%s", names[i]);
		xs[i].value = v[i];
	}
	return 14 + (int)ol_xstats(d, xs + 14, n > 14 ? n - 14 : 0);
}

static const char *vu_state(const struct vu_dev *d)
{
	switch (busy(d)) {
	case VU_JOB_NEGOTIATE:
		return "negotiating";
	case VU_JOB_START:
		return "starting";
	case VU_JOB_STOP:
		return "stopping";
	}
	if (__atomic_load_n(&d->link_up, __ATOMIC_ACQUIRE))
		return "up";
	if (d->fe.fd >= 0)
		return "connected";
	return d->server ? "listening" : "reconnecting";
}

static void vu_info(struct vf_port *port, struct vf_out *o)
{
	struct vu_dev *d = port->priv;

	vf_out_str(o, "path", d->path);
	vf_out_bool(o, "server", d->server);
	vf_out_bool(o, "connected", d->fe.fd >= 0);
	vf_out_str(o, "state", vu_state(d));
	/* Written on the control thread meanwhile: read within its bounds. */
	vf_out_strf(o, "last_error", "%.*s", (int)sizeof(d->last_error), d->last_error);
	vf_out_u64(o, "drains_unfinished", d->drain_unfinished);
	vf_out_u64(o, "queue_pairs", d->nqp);
	vf_out_u64(o, "queue_size", d->qsize);
	vf_out_strf(o, "features", "0x%" PRIx64, d->fe.features);
	vf_out_strf(o, "protocol_features", "0x%" PRIx64, d->fe.protocol);
	vf_out_bool(o, "in_order", d->fe.features & (1ull << VIRTIO_F_IN_ORDER));
	vf_out_bool(o, "mrg_rxbuf", d->fe.features & (1ull << VIRTIO_NET_F_MRG_RXBUF));
	vf_out_strf(o, "offloads", "0x%" PRIx64, (uint64_t)(d->fe.features & VU_FE_OL_FEATURES));
	vf_out_bool(o, "packed", d->packed);
	vf_peer_info(o, &d->peer);
	vf_access_info(o, &d->access, false, d->server ? d->path : NULL);
	vf_out_u64(o, "peer_rejects", d->peer_rejects);
	vf_out_str(o, "last_refused", d->last_refused);
}

static void vu_ring_info(struct vf_port *port, struct vf_out *o)
{
	struct vu_dev *d = port->priv;
	uint16_t i;
	int k;

	vf_out_arr_begin(o, "rings");
	for (i = 0; i < d->active_qp; i++) {
		for (k = 0; k < 2; k++) {
			const struct vio_queue *q = k ? d->txq[i] : d->rxq[i];

			vf_out_obj_begin(o, NULL);
			vf_out_u64(o, "vring", q->vring);
			vf_out_str(o, "dir", q->rx ? "rx" : "tx");
			if (q->packed) {
				vf_out_u64(o, "size", q->pq.size);
				vf_out_u64(o, "avail_slot", q->pq.avail_slot);
				vf_out_bool(o, "avail_wrap", q->pq.avail_wrap);
				vf_out_u64(o, "used_slot", q->pq.used_slot);
				vf_out_bool(o, "used_wrap", q->pq.used_wrap);
				vf_out_u64(o, "free", q->pq.nfree);
				vf_out_u64(o, "inflight", q->pq.inflight);
				vf_out_bool(o, "broken", q->pq.broken);
			} else {
				vf_out_u64(o, "size", q->vq.size);
				vf_out_u64(o, "avail_idx", q->vq.avail_idx);
				vf_out_u64(o, "used_idx", q->vq.used_idx);
				vf_out_u64(o, "free", q->vq.nfree);
				vf_out_u64(o, "inflight", q->vq.inflight);
				vf_out_bool(o, "broken", q->vq.broken);
			}
			vf_out_obj_end(o);
		}
	}
	vf_out_arr_end(o);
}

static const struct vf_driver vu_driver = {
	.name = "virtio_user",
	.tx_offloads = true,
	.help = "virtio-net device over vhost-user (front-end; split or packed rings)",
	.keys = vu_keys,
	.probe = vu_probe,
	.configure = vu_configure,
	.start = vu_start,
	.stop = vu_stop,
	.close = vu_close,
	.link_get = vu_link_get,
	.stats_get = vu_stats_get,
	.stats_reset = vu_stats_reset,
	.xstats_get = vu_xstats_get,
	.info = vu_info,
	.ring_info = vu_ring_info,
};

VF_DRIVER_REGISTER(vu_driver);
