/* virtio_user's device (struct vu_dev), shared by its files:
 * virtio_user.c (the port ops), virtio_user_dev.c (the connection state
 * machine and its worker thread), virtio_user_queues.c (the rings) and
 * virtio_user_stats.c (counters and info).  Types and tunables only, and
 * the two atomic accessors every one of them reads. */
#ifndef VIRTIO_USER_PRIV_H
#define VIRTIO_USER_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/un.h>

#include "vf_mem.h"
#include "vf_peercred.h"
#include "vf_port.h"

#include "vhost_user_fe.h"

struct vf_port;
struct vio_queue;

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
	uint64_t connect_attempts;	/* failed since the last connection */

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

static inline uint8_t busy(const struct vu_dev *d)
{
	return __atomic_load_n(&d->busy, __ATOMIC_ACQUIRE);
}

/* The link, and its event when it changes. */
static inline void set_link(struct vu_dev *d, bool up)
{
	if (__atomic_exchange_n(&d->link_up, up, __ATOMIC_ACQ_REL) != up)
		vf_event_link(d->port->id, d->port->name, up);
}

#endif
