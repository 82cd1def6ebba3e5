/* virtio-net receive and transmit bursts over packed rings
 * (virtqueue_packed.h).  Same contract and counters as the split bursts in
 * virtio_rxtx.c; the port gets one pair or the other at start, so neither
 * path tests the ring kind per burst. */
#include "virtio_rxtx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_malloc.h>

#include "vf_mem.h"

#include "virtio_rxtx_body.h"

/* ---- tx ---- */

void vio_tx_reclaim_packed(struct vio_queue *q)
{
	struct vq_packed *vq = &q->pq;
	struct rte_mbuf *done[VIO_CHUNK];

	if (vq->in_order) {
		/* One used descriptor may stand for a whole batch: count the
		 * chains, then free them oldest first, no free list. */
		uint16_t n = vqp_inorder_count(vq);

		while (n > 0) {
			uint16_t k = n < VIO_CHUNK ? n : VIO_CHUNK;

			vqp_inorder_take(vq, k, (void **)done);
			vf_mbuf_free_bulk(done, k);
			n -= k;
		}
		return;
	}
	for (;;) {
		uint32_t lens4[4];	/* tx: a length claim is irrelevant */
		uint16_t k = 0;
		int r = 0;

		while (k + 4 <= VIO_CHUNK && vqp_get4(vq, (void **)&done[k], lens4))
			k += 4;
		while (k < VIO_CHUNK) {
			void *c;
			uint32_t len;

			r = vqp_get(vq, &c, &len);
			if (r == -EAGAIN || r == -EPROTO)
				break;
			done[k++] = c;	/* tx: a length claim is irrelevant */
		}
		if (k)
			vf_mbuf_free_bulk(done, k);
		if (k < VIO_CHUNK)
			return;
	}
}

static __attribute__((noinline)) void viop_tx_chain(struct vio_queue *q, struct rte_mbuf *m,
						    bool push)
{
	vio_tx_chain_body(q, m, push, true);
}

uint16_t vio_tx_burst_packed(void *qp, struct rte_mbuf **pkts, uint16_t n)
{
	return vio_tx_burst_body(qp, pkts, n, true, viop_tx_chain, vio_tx_reclaim_packed);
}

/* ---- rx ---- */

uint16_t vio_rx_fill_packed(struct vio_queue *q)
{
	return vio_rx_fill_body(q, true);
}

uint16_t vio_rx_burst_packed(void *qp, struct rte_mbuf **pkts, uint16_t n)
{
	struct vio_queue *q = qp;
	struct vq_packed *vq = &q->pq;
	uint16_t nrx = 0;
	uint64_t bytes = 0;
	bool more = true, empty = false;
	uint32_t dreq;

	if (__builtin_expect(!vio_ready(q), 0))
		return 0;
	/* Before the used flags: a ring found empty then answers a drain. */
	dreq = __atomic_load_n(&q->drain_req, __ATOMIC_ACQUIRE);
	while (more && nrx < n) {
		void *ck[VIO_CHUNK];
		uint32_t len[VIO_CHUNK];
		int8_t rc[VIO_CHUNK];
		/* Each used buffer yields at most one packet. */
		uint16_t want = n - nrx < VIO_CHUNK ? n - nrx : VIO_CHUNK, got, i;

		/* Pass 1: take the used descriptors, start loading the mbufs;
		 * four at a time while the simple in-order case holds. */
		got = 0;
		while (got + 4 <= want &&
		       (vq->in_order ? vqp_get4_inorder(vq, &ck[got], &len[got])
				     : vqp_get4(vq, &ck[got], &len[got]))) {
			for (i = 0; i < 4; i++) {
				rc[got + i] = 0;
				rte_prefetch0(ck[got + i]);
			}
			got += 4;
		}
		for (; got < want; got++) {
			int r = vqp_get(vq, &ck[got], &len[got]);

			if (r == -EAGAIN || r == -EPROTO) {
				empty = r == -EAGAIN;
				break;
			}
			rc[got] = (int8_t)(r != 0);
			rte_prefetch0(ck[got]);
		}
		more = got == want;
		vio_rx_pass2(q, true, ck, len, rc, got, pkts, &nrx, &bytes);
	}
	vio_rx_end(q, true, nrx, bytes);
	if (empty)
		vf_drain_ack(&q->drain_ack, dreq);
	return nrx;
}

/* ---- control ---- */

int vio_queue_alloc_packed(struct vio_queue *q, uint16_t size, bool rx, int socket)
{
	memset(q, 0, sizeof(*q));
	q->rx = rx;
	q->packed = true;
	q->kickfd = q->callfd = -1;
	/* Ring and tx headers where the backend reaches them, slots private
	 * (as vio_queue_alloc). */
	q->mem = vf_mem_share_alloc(vqp_mem_size(size), 4096, socket);
	q->pslots = calloc(size, sizeof(*q->pslots));
	if (!rx)
		q->hdrs = vf_mem_share_alloc(sizeof(*q->hdrs) * size, 64, socket);
	if (q->mem == NULL || q->pslots == NULL || (!rx && q->hdrs == NULL)) {
		vio_queue_free(q);
		return -ENOMEM;
	}
	vqp_init(&q->pq, q->mem, size, true, false, q->pslots);
	q->tx_reclaim_below = size / 4 < VIO_TX_RECLAIM_BELOW ? size / 4 : VIO_TX_RECLAIM_BELOW;
	return 0;
}

void vio_queue_reset_packed(struct vio_queue *q, bool in_order, bool mrg, bool event_idx)
{
	uint64_t err[VQP_ERR_MAX];

	vio_rx_drop_partial(q);
	vqp_drain(&q->pq, vio_free_cookie, q);
	memcpy(err, q->pq.err, sizeof(err));
	vqp_init(&q->pq, q->mem, q->pq.size, in_order, event_idx, q->pslots);
	memcpy(q->pq.err, err, sizeof(err));
	q->mrg = mrg;
}
