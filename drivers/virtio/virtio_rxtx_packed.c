/* virtio-net receive and transmit bursts over packed rings
 * (virtqueue_packed.h).  Same contract and counters as the split bursts in
 * virtio_rxtx.c; the port gets one pair or the other at start, so neither
 * path tests the ring kind per burst. */
#include "virtio_rxtx.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <rte_ether.h>
#include <rte_malloc.h>

#include "vf_mbuf.h"

#define VIOP_CHUNK 64

static inline void viop_kick(struct vio_queue *q)
{
	static const uint64_t one = 1;

	/* Only when the device area asks (a polling backend says DISABLE).
	 * The eventfd is ours and nonblocking. */
	if (vqp_need_kick(&q->pq) && q->kickfd >= 0) {
		ssize_t r = write(q->kickfd, &one, sizeof(one));

		(void)r;
		vf_ctr_add(q->st.kicks, 1);
	}
}

/* ---- tx ---- */

void vio_tx_reclaim_packed(struct vio_queue *q)
{
	struct vq_packed *vq = &q->pq;
	struct rte_mbuf *done[VIOP_CHUNK];

	if (vq->in_order) {
		/* One used descriptor may stand for a whole batch: count the
		 * chains, then free them oldest first, no free list. */
		uint16_t n = vqp_inorder_count(vq);

		while (n > 0) {
			uint16_t k = n < VIOP_CHUNK ? n : VIOP_CHUNK;

			vqp_inorder_take(vq, k, (void **)done);
			vf_mbuf_free_bulk(done, k);
			n -= k;
		}
		return;
	}
	for (;;) {
		uint16_t k = 0;
		int r = 0;

		while (k < VIOP_CHUNK) {
			void *c;
			uint32_t len;

			r = vqp_get(vq, &c, &len);
			if (r == -EAGAIN || r == -EPROTO)
				break;
			done[k++] = c;	/* tx: a length claim is irrelevant */
		}
		if (k)
			vf_mbuf_free_bulk(done, k);
		if (k < VIOP_CHUNK)
			return;
	}
}

static inline bool viop_can_push(const struct rte_mbuf *m)
{
	return RTE_MBUF_DIRECT(m) && rte_mbuf_refcnt_read(m) == 1 &&
	       rte_pktmbuf_headroom(m) >= VIO_HDR_LEN;
}

/* A packet that needs a header descriptor or several segments: a chain.
 * Out of line, the single-descriptor case is the hot one. */
static __attribute__((noinline)) void viop_tx_chain(struct vio_queue *q, struct rte_mbuf *m,
						    bool push)
{
	struct vq_packed *vq = &q->pq;
	struct vqp_seg seg[VIO_TX_MAX_SEGS + 1];
	struct rte_mbuf *s = m;
	uint16_t k = 0;

	if (push) {
		struct virtio_net_hdr_mrg_rxbuf *h =
			rte_pktmbuf_mtod_offset(m, void *, -(int)VIO_HDR_LEN);

		vio_hdr_tx(q, h, m);
		seg[k].addr = vqp_addr(h);
		seg[k++].len = s->data_len + VIO_HDR_LEN;
		s = s->next;
	} else {
		/* The header slot belongs to the buffer id, so it stays ours
		 * until that buffer completes. */
		struct virtio_net_hdr_mrg_rxbuf *h = &q->hdrs[vqp_next_id(vq)];

		vio_hdr_tx(q, h, m);
		seg[k].addr = vqp_addr(h);
		seg[k++].len = VIO_HDR_LEN;
	}
	for (; s != NULL; s = s->next) {
		seg[k].addr = rte_pktmbuf_mtod(s, uintptr_t);
		seg[k++].len = s->data_len;
	}
	vqp_postv(vq, seg, k, m);
}

uint16_t vio_tx_burst_packed(void *qp, struct rte_mbuf **pkts, uint16_t n)
{
	struct vio_queue *q = qp;
	struct vq_packed *vq = &q->pq;
	uint64_t bytes = 0;
	uint16_t i, dropped = 0;

	if (__builtin_expect(!vio_ready(q), 0))
		return 0;
	/* Reclaim only when the ring runs low: fewer reads of descriptors the
	 * backend keeps writing, bigger bulk frees. */
	if (vq->nfree < q->tx_reclaim_below)
		vio_tx_reclaim_packed(q);
	if (__builtin_expect(vq->broken, 0))
		return 0;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		bool push = viop_can_push(m);
		uint16_t need = m->nb_segs + !push;

		if (__builtin_expect(need > vq->nfree || need > VIO_TX_MAX_SEGS, 0)) {
			if (need <= VIO_TX_MAX_SEGS && need <= vq->size) {
				vio_tx_reclaim_packed(q);
				if (need <= vq->nfree && !vq->broken)
					goto post;
				break;		/* ring full: the caller keeps the rest */
			}
			rte_pktmbuf_free(m);	/* can never fit */
			dropped++;
			continue;
		}
post:
		if (push && m->nb_segs == 1) {
			struct virtio_net_hdr_mrg_rxbuf *h =
				rte_pktmbuf_mtod_offset(m, void *, -(int)VIO_HDR_LEN);

			vio_hdr_tx(q, h, m);
			vqp_post1(vq, vqp_addr(h), m->data_len + VIO_HDR_LEN, 0, m);
		} else {
			viop_tx_chain(q, m, push);
		}
		bytes += m->pkt_len;
	}
	if (i > dropped) {
		vqp_publish(vq);
		viop_kick(q);
		vf_ctr_add(q->st.packets, i - dropped);
		vf_ctr_add(q->st.bytes, bytes);
	}
	vf_ctr_add(q->st.errors, dropped);
	return i;
}

/* ---- rx ---- */

static uint16_t viop_rx_post(struct vio_queue *q, uint16_t want)
{
	struct vq_packed *vq = &q->pq;
	struct rte_mbuf *m[VIOP_CHUNK];
	uint16_t posted = 0;

	while (want > 0) {
		uint16_t k = want < VIOP_CHUNK ? want : VIOP_CHUNK, i;

		if (vf_mbuf_alloc_bulk_len(q->pool, m, k, q->port_id, 0) != 0) {
			vf_ctr_add(q->st.nombuf, k);
			break;
		}
		for (i = 0; i < k; i++) {
			/* Header in the headroom, frame at the usual offset. */
			vqp_post1(vq, (uint64_t)(uintptr_t)m[i]->buf_addr + RTE_PKTMBUF_HEADROOM -
					      VIO_HDR_LEN,
				  m[i]->buf_len - RTE_PKTMBUF_HEADROOM + VIO_HDR_LEN,
				  VRING_DESC_F_WRITE, m[i]);
		}
		want -= k;
		posted += k;
	}
	return posted;
}

uint16_t vio_rx_fill_packed(struct vio_queue *q)
{
	uint16_t n = viop_rx_post(q, q->pq.nfree);

	if (n)
		vqp_publish(&q->pq);
	return n;
}

static inline void viop_drop_partial(struct vio_queue *q)
{
	if (q->mrg_first != NULL) {
		rte_pktmbuf_free(q->mrg_first);
		q->mrg_first = q->mrg_last = NULL;
		q->mrg_left = 0;
		vf_ctr_add(q->st.errors, 1);
	}
}

static inline void viop_bad(struct vio_queue *q, struct rte_mbuf *m, uint64_t *ctr)
{
	rte_pktmbuf_free(m);
	viop_drop_partial(q);
	vf_ctr_add(*ctr, 1);
	vf_ctr_add(q->st.errors, 1);
}

/* One used buffer: a whole packet, the first of a mergeable one, or a
 * continuation. */
static inline void viop_rx_one(struct vio_queue *q, struct rte_mbuf *m, uint32_t len, int r,
			       struct rte_mbuf **pkts, uint16_t *nrx, uint64_t *bytes)
{
	if (__builtin_expect(r != 0, 0)) {
		/* More than we posted: the data cannot be trusted. */
		viop_bad(q, m, &q->st.bad_len);
		return;
	}
	if (q->mrg_left == 0) {
		uint16_t nb = 1;

		if (__builtin_expect(len < VIO_HDR_LEN, 0)) {
			viop_bad(q, m, &q->st.bad_len);
			return;
		}
		if (q->mrg) {
			/* Read once; only meaningful with MRG_RXBUF. */
			const struct virtio_net_hdr_mrg_rxbuf *h = (const void *)
				((char *)m->buf_addr + RTE_PKTMBUF_HEADROOM - VIO_HDR_LEN);

			nb = *(const volatile uint16_t *)&h->num_buffers;
			if (__builtin_expect(nb == 0 || nb > q->pq.size, 0)) {
				viop_bad(q, m, &q->st.bad_hdr);
				return;
			}
		}
		m->data_len = (uint16_t)(len - VIO_HDR_LEN);
		m->pkt_len = len - VIO_HDR_LEN;
		if (nb == 1) {
			pkts[(*nrx)++] = m;
			*bytes += m->pkt_len;
			return;
		}
		q->mrg_first = q->mrg_last = m;
		q->mrg_left = nb - 1;
		return;
	}
	/* Continuation: no header, data from the start of the buffer. */
	m->data_off = RTE_PKTMBUF_HEADROOM - VIO_HDR_LEN;
	m->data_len = (uint16_t)len;
	q->mrg_last->next = m;
	q->mrg_last = m;
	q->mrg_first->nb_segs++;
	q->mrg_first->pkt_len += len;
	if (--q->mrg_left == 0) {
		pkts[(*nrx)++] = q->mrg_first;
		*bytes += q->mrg_first->pkt_len;
		q->mrg_first = q->mrg_last = NULL;
	}
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
		void *ck[VIOP_CHUNK];
		uint32_t len[VIOP_CHUNK];
		int8_t rc[VIOP_CHUNK];
		/* Each used buffer yields at most one packet. */
		uint16_t want = n - nrx < VIOP_CHUNK ? n - nrx : VIOP_CHUNK, got, i;

		/* Pass 1: take the used descriptors, start loading the mbufs;
		 * four at a time while the simple in-order case holds. */
		got = 0;
		if (vq->in_order) {
			while (got + 4 <= want && vqp_get4_inorder(vq, &ck[got], &len[got])) {
				for (i = 0; i < 4; i++) {
					rc[got + i] = 0;
					rte_prefetch0(ck[got + i]);
				}
				got += 4;
			}
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
		/* Pass 2: headers and mbuf fields. */
		for (i = 0; i < got; i++) {
			if (i + 1 < got)
				rte_prefetch0((char *)((struct rte_mbuf *)ck[i + 1])->buf_addr +
					      RTE_PKTMBUF_HEADROOM - VIO_HDR_LEN);
			viop_rx_one(q, ck[i], len[i], rc[i], pkts, &nrx, &bytes);
		}
	}
	if (vq->nfree >= VIO_RX_REFILL_MIN && !vq->broken) {
		if (viop_rx_post(q, vq->nfree)) {
			vqp_publish(vq);
			viop_kick(q);
		}
	}
	vf_ctr_add(q->st.packets, nrx);
	vf_ctr_add(q->st.bytes, bytes);
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
	/* fd-backed DPDK heap (lib/vf_mem.h): inside the shared regions. */
	q->mem = rte_zmalloc_socket("vio_pring", vqp_mem_size(size), 4096, socket);
	q->pslots = rte_zmalloc_socket("vio_pslots", sizeof(*q->pslots) * size, 64, socket);
	if (!rx)
		q->hdrs = rte_zmalloc_socket("vio_hdrs", sizeof(*q->hdrs) * size, 64, socket);
	if (q->mem == NULL || q->pslots == NULL || (!rx && q->hdrs == NULL)) {
		vio_queue_free(q);
		return -ENOMEM;
	}
	vqp_init(&q->pq, q->mem, size, true, false, q->pslots);
	q->tx_reclaim_below = size / 4 < VIO_TX_RECLAIM_BELOW ? size / 4 : VIO_TX_RECLAIM_BELOW;
	return 0;
}

static void free_cookie(void *c, void *arg)
{
	(void)arg;
	rte_pktmbuf_free(c);
}

void vio_queue_reset_packed(struct vio_queue *q, bool in_order, bool mrg, bool event_idx)
{
	uint64_t err[VQP_ERR_MAX];

	viop_drop_partial(q);
	vqp_drain(&q->pq, free_cookie, NULL);
	memcpy(err, q->pq.err, sizeof(err));
	vqp_init(&q->pq, q->mem, q->pq.size, in_order, event_idx, q->pslots);
	memcpy(q->pq.err, err, sizeof(err));
	q->mrg = mrg;
}
