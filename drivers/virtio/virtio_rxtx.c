/* virtio-net receive and transmit bursts over split rings. */
#include "virtio_rxtx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_malloc.h>

#include "vf_mem.h"

#include "virtio_rxtx_body.h"

/* ---- tx ---- */

/* Frees the mbufs of completed transmit chains, in bulk. */
void vio_tx_reclaim(struct vio_queue *q)
{
	struct vq_split *vq = &q->vq;
	uint16_t n = vqs_used_count(vq);
	struct rte_mbuf *done[VIO_CHUNK];

	if (n == 0)
		return;
	if (vq->in_order) {
		/* The device may publish a batch with only its last entry
		 * written: one check per batch, no per-entry reads. */
		if (!vqs_inorder_check(vq, n))
			return;
		while (n > 0) {
			uint16_t k = n < VIO_CHUNK ? n : VIO_CHUNK;

			vqs_inorder_take(vq, k, (void **)done);
			vio_tx_free(q, (void **)done, k);
			n -= k;
		}
		return;
	}
	while (n > 0) {
		uint16_t k = 0;

		while (n > 0 && k < VIO_CHUNK) {
			void *c;
			uint32_t len;

			if (vqs_get(vq, &c, &len) == -EPROTO)
				goto out;
			done[k++] = c;
			n--;
		}
out:
		if (k)
			vio_tx_free(q, (void **)done, k);
		if (vq->broken)
			return;
	}
}

static __attribute__((noinline)) void vio_tx_chain(struct vio_queue *q, struct rte_mbuf *m,
						   bool push)
{
	vio_tx_chain_body(q, m, push, false);
}

uint16_t vio_tx_burst(void *qp, struct rte_mbuf **pkts, uint16_t n)
{
	return vio_tx_burst_body(qp, pkts, n, false, vio_tx_chain, vio_tx_reclaim);
}

/* ---- rx ---- */

uint16_t vio_rx_fill(struct vio_queue *q)
{
	return vio_rx_fill_body(q, false);
}

#define VIO_USED_PER_LINE (64 / sizeof(struct vring_used_elem))

uint16_t vio_rx_burst(void *qp, struct rte_mbuf **pkts, uint16_t n)
{
	struct vio_queue *q = qp;
	struct vq_split *vq = &q->vq;
	uint16_t avail, nrx = 0;
	uint64_t bytes = 0;
	uint32_t dreq;

	if (__builtin_expect(!vio_ready(q), 0))
		return 0;
	/* Before the used index: an empty ring then answers a drain. */
	dreq = __atomic_load_n(&q->drain_req, __ATOMIC_ACQUIRE);
	avail = vqs_used_count(vq);
	if (avail == 0)
		vf_drain_ack(&q->drain_ack, dreq);
	while (avail > 0 && nrx < n) {
		void *ck[VIO_CHUNK];
		uint32_t len[VIO_CHUNK];
		int8_t rc[VIO_CHUNK];
		/* Each used buffer yields at most one packet. */
		uint16_t want = avail < n - nrx ? avail : n - nrx, got;

		if (want > VIO_CHUNK)
			want = VIO_CHUNK;
		/* Stop at a cache-line boundary of the used ring (8 entries a
		 * line): a line the device is still filling would be pulled
		 * here now and again, from its cache, when it writes the rest. */
		if (want > VIO_USED_PER_LINE)
			want -= (uint16_t)((vq->used_idx + want) & (VIO_USED_PER_LINE - 1));

		/* Pass 1: take the used entries and start loading the mbufs,
		 * so pass 2 does not wait on them one by one. */
		for (got = 0; got < want; got++) {
			int r = vqs_get(vq, &ck[got], &len[got]);

			if (__builtin_expect(r == -EPROTO, 0))
				break;			/* ring broken */
			rc[got] = (int8_t)(r != 0);
			rte_prefetch0(ck[got]);
		}
		avail = got < want ? 0 : avail - got;
		vio_rx_pass2(q, false, ck, len, rc, got, pkts, &nrx, &bytes);
	}
	vio_rx_end(q, false, nrx, bytes);
	return nrx;
}

/* ---- control ---- */

int vio_rx_pool_check(struct rte_mempool *mp, bool mrg)
{
	uint32_t room = rte_pktmbuf_data_room_size(mp);

	if (room <= RTE_PKTMBUF_HEADROOM)
		return -EINVAL;
	if (!mrg && room - RTE_PKTMBUF_HEADROOM + VIO_HDR_LEN < VIO_HDR_LEN + RTE_ETHER_MAX_LEN - RTE_ETHER_CRC_LEN)
		return -EINVAL;
	return 0;
}

int vio_queue_alloc(struct vio_queue *q, uint16_t size, bool rx, int socket)
{
	size_t len = vqs_mem_size(size);

	memset(q, 0, sizeof(*q));
	q->rx = rx;
	q->kickfd = q->callfd = -1;
	/* The ring block and the tx header slots are what the backend must
	 * reach: in the memory sent in SET_MEM_TABLE (lib/core/vf_mem.h).
	 * The slots (our per-descriptor state: cookies, lengths, free list)
	 * are private memory that no peer maps (issue 31). */
	q->mem = vf_mem_share_alloc(len, 4096, socket);
	q->slots = calloc(size, sizeof(*q->slots));
	q->held_max = size < VIO_HELD_MAX ? size : VIO_HELD_MAX;
	q->held = calloc(q->held_max, sizeof(*q->held));
	if (!rx)
		q->hdrs = vf_mem_share_alloc(sizeof(*q->hdrs) * size, 64, socket);
	if (q->mem == NULL || q->slots == NULL || q->held == NULL || (!rx && q->hdrs == NULL)) {
		vio_queue_free(q);
		return -ENOMEM;
	}
	vqs_init(&q->vq, q->mem, size, true, q->slots);
	q->tx_reclaim_below = size / 4 < VIO_TX_RECLAIM_BELOW ? size / 4 : VIO_TX_RECLAIM_BELOW;
	return 0;
}

void vio_queue_free(struct vio_queue *q)
{
	vf_mem_share_free(q->mem);
	free(q->slots);
	free(q->held);
	q->held = NULL;
	vf_mem_share_free(q->hdrs);
	free(q->pslots);
	q->pslots = NULL;
	q->mem = NULL;
	q->slots = NULL;
	q->hdrs = NULL;
}

void vio_queue_reset(struct vio_queue *q, bool in_order, bool mrg)
{
	uint64_t err[VQS_ERR_MAX];

	vio_rx_drop_partial(q);
	vqs_drain(&q->vq, vio_free_cookie, q);
	memcpy(err, q->vq.err, sizeof(err));
	vqs_init(&q->vq, q->mem, q->vq.size, in_order, q->slots);
	memcpy(q->vq.err, err, sizeof(err));
	q->mrg = mrg;
}
