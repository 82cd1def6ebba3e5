/* virtio_user's rings: allocated per queue pair at configure, reset,
 * readied and described to the backend by the connection state machine
 * (virtio_user_dev.c). */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <rte_malloc.h>
#include <rte_mempool.h>

#include "vf_mem.h"
#include "vf_port.h"

#include "virtio_rxtx.h"
#include "virtio_user_priv.h"
#include "virtio_user_queues.h"

/* ---- helpers ---- */

void vu_q_all(struct vu_dev *d, void (*fn)(struct vu_dev *, struct vio_queue *, void *),
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

void vu_q_unready(struct vu_dev *d, struct vio_queue *q, void *arg)
{
	vio_set_ready(q, false);
}

void vu_q_ready(struct vu_dev *d, struct vio_queue *q, void *arg)
{
	vio_set_ready(q, true);
}

void vu_q_reset(struct vu_dev *d, struct vio_queue *q, void *arg)
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

bool vu_q_broken(const struct vio_queue *q)
{
	return q->packed ? q->pq.broken : q->vq.broken;
}

int vu_rings_of(struct vu_dev *d, struct vu_fe_ring *r)
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

/* Every buffer we will post must lie in the table we send. */
int vu_mem_check(struct vu_dev *d, const struct vf_mem_region *regs, int n)
{
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
	return vf_mem_pool_in(regs, n, d->port->conf.pool) ? 0 : -EFAULT;
}

/* ---- allocation (configure, close) ---- */

int vu_q_new(struct vu_dev *d, struct vio_queue **qp, bool rx, uint16_t vring)
{
	struct vio_queue *q = NULL;

	/* Private memory (not DPDK's heap, which a backend maps when there is
	 * no peer heap): the queue's indices and pointers are ours alone. */
	if (posix_memalign((void **)&q, RTE_CACHE_LINE_SIZE, sizeof(*q)) != 0)
		return -ENOMEM;
	if ((d->packed ? vio_queue_alloc_packed(q, d->qsize, rx, d->socket_id)
		       : vio_queue_alloc(q, d->qsize, rx, d->socket_id)) < 0) {
		free(q);
		return -ENOMEM;
	}
	q->port_id = d->port->id;
	q->vring = vring;
	/* Real eventfds: DPDK vhost needs a kick and a call fd per ring
	 * before it starts.  Calls are suppressed while we poll; a core in
	 * an rx mode sleeps on an rx ring's call fd (virtio_intr.c). */
	q->kickfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	q->callfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	*qp = q;
	if (q->kickfd < 0 || q->callfd < 0)
		return -errno;
	return 0;
}

void vu_free(struct vu_dev *d)
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
			free(qs[k]);
		}
		d->rxq[i] = d->txq[i] = NULL;
	}
}
