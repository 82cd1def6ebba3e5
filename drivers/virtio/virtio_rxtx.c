/* virtio-net receive and transmit bursts over split rings. */
#include "virtio_rxtx.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <rte_ether.h>
#include <rte_malloc.h>

#include "vf_mbuf.h"

#define VIO_FREE_CHUNK 64

static inline void vio_kick(struct vio_queue *q)
{
	static const uint64_t one = 1;

	/* Only when the backend asked for it (used->flags lacks NO_NOTIFY).
	 * The eventfd is ours and nonblocking: a full counter just means the
	 * backend has not read it yet. */
	if (vqs_need_kick(&q->vq) && q->kickfd >= 0) {
		ssize_t r = write(q->kickfd, &one, sizeof(one));

		(void)r;
		vf_ctr_add(q->st.kicks, 1);
	}
}

/* ---- tx ---- */

/* Frees the mbufs of completed transmit chains, in bulk. */
void vio_tx_reclaim(struct vio_queue *q)
{
	struct vq_split *vq = &q->vq;
	uint16_t n = vqs_used_count(vq);
	struct rte_mbuf *done[VIO_FREE_CHUNK];

	if (n == 0)
		return;
	if (vq->in_order) {
		/* The device may publish a batch with only its last entry
		 * written: one check per batch, no per-entry reads. */
		if (!vqs_inorder_check(vq, n))
			return;
		while (n > 0) {
			uint16_t k = n < VIO_FREE_CHUNK ? n : VIO_FREE_CHUNK;

			vqs_inorder_take(vq, k, (void **)done);
			vf_mbuf_free_bulk(done, k);
			n -= k;
		}
		return;
	}
	while (n > 0) {
		uint16_t k = 0;

		while (n > 0 && k < VIO_FREE_CHUNK) {
			void *c;
			uint32_t len;

			if (vqs_get(vq, &c, &len) == -EPROTO)
				goto out;
			done[k++] = c;
			n--;
		}
out:
		if (k)
			vf_mbuf_free_bulk(done, k);
		if (vq->broken)
			return;
	}
}

/* Can the header go into the packet's own headroom (one descriptor less)?
 * Only for a private, direct first segment. */
static inline bool vio_can_push(const struct rte_mbuf *m)
{
	return RTE_MBUF_DIRECT(m) && rte_mbuf_refcnt_read(m) == 1 &&
	       rte_pktmbuf_headroom(m) >= VIO_HDR_LEN;
}

uint16_t vio_tx_burst(void *qp, struct rte_mbuf **pkts, uint16_t n)
{
	struct vio_queue *q = qp;
	struct vq_split *vq = &q->vq;
	uint64_t bytes = 0;
	uint16_t i, dropped = 0;

	if (__builtin_expect(!vio_ready(q), 0))
		return 0;
	/* Reclaim only when the ring runs low: fewer reads of the used ring
	 * the backend keeps writing, and bigger bulk frees. */
	if (vq->nfree < q->tx_reclaim_below)
		vio_tx_reclaim(q);
	if (__builtin_expect(vq->broken, 0))
		return 0;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		bool push = vio_can_push(m);
		uint16_t need = m->nb_segs + !push;

		if (__builtin_expect(need > vq->nfree || need > VIO_TX_MAX_SEGS, 0)) {
			if (need <= VIO_TX_MAX_SEGS && need <= vq->size) {
				vio_tx_reclaim(q);
				if (need <= vq->nfree && !vq->broken)
					goto post;
				break;		/* ring full: the caller keeps the rest */
			}
			/* Can never fit: take it and drop it. */
			rte_pktmbuf_free(m);
			dropped++;
			continue;
		}
post:
		if (push && m->nb_segs == 1) {
			struct virtio_net_hdr_mrg_rxbuf *h =
				rte_pktmbuf_mtod_offset(m, void *, -(int)VIO_HDR_LEN);

			vio_hdr_tx(q, h, m);
			vqs_post1(vq, vqs_addr(h), m->data_len + VIO_HDR_LEN, 0, m);
		} else {
			struct vqs_seg seg[VIO_TX_MAX_SEGS + 1];
			struct rte_mbuf *s = m;
			uint16_t k = 0;

			if (push) {
				struct virtio_net_hdr_mrg_rxbuf *h =
					rte_pktmbuf_mtod_offset(m, void *, -(int)VIO_HDR_LEN);

				vio_hdr_tx(q, h, m);
				seg[k].addr = vqs_addr(h);
				seg[k++].len = s->data_len + VIO_HDR_LEN;
				s = s->next;
			} else {
				/* The header slot belongs to the chain's head
				 * descriptor, so it stays ours until that chain
				 * completes. */
				struct virtio_net_hdr_mrg_rxbuf *h = &q->hdrs[vq->head];

				vio_hdr_tx(q, h, m);
				seg[k].addr = vqs_addr(h);
				seg[k++].len = VIO_HDR_LEN;
			}
			for (; s != NULL; s = s->next) {
				seg[k].addr = rte_pktmbuf_mtod(s, uintptr_t);
				seg[k++].len = s->data_len;
			}
			vqs_postv(vq, seg, k, m);
		}
		bytes += m->pkt_len;
	}
	if (i > dropped) {
		vqs_publish(vq);
		vio_kick(q);
		vf_ctr_add(q->st.packets, i - dropped);
		vf_ctr_add(q->st.bytes, bytes);
	}
	vf_ctr_add(q->st.errors, dropped);
	return i;
}

/* ---- rx ---- */

static inline void vio_rx_buf(const struct rte_mbuf *m, uint64_t *addr, uint32_t *len)
{
	/* The header lands in the headroom, the frame at the usual data
	 * offset (as DPDK's virtio PMD does). */
	*addr = (uint64_t)(uintptr_t)m->buf_addr + RTE_PKTMBUF_HEADROOM - VIO_HDR_LEN;
	*len = m->buf_len - RTE_PKTMBUF_HEADROOM + VIO_HDR_LEN;
}

static uint16_t vio_rx_post(struct vio_queue *q, uint16_t want)
{
	struct vq_split *vq = &q->vq;
	struct rte_mbuf *m[VIO_FREE_CHUNK];
	uint16_t posted = 0;

	while (want > 0) {
		uint16_t k = want < VIO_FREE_CHUNK ? want : VIO_FREE_CHUNK, i;

		/* Raw from the pool: only buf_addr/buf_len are read here; the
		 * packet fields are written once, when the buffer comes back
		 * used (vio_rx_one), which spares a pass over each mbuf. */
		if (rte_mempool_get_bulk(q->pool, (void **)m, k) != 0) {
			vf_ctr_add(q->st.nombuf, k);
			break;
		}
		for (i = 0; i < k; i++) {
			uint64_t addr;
			uint32_t len;

			vio_rx_buf(m[i], &addr, &len);
			vqs_post1(vq, addr, len, VRING_DESC_F_WRITE, m[i]);
		}
		want -= k;
		posted += k;
	}
	return posted;
}

uint16_t vio_rx_fill(struct vio_queue *q)
{
	uint16_t n = vio_rx_post(q, q->vq.nfree);

	if (n)
		vqs_publish(&q->vq);
	return n;
}

static inline void vio_rx_drop_partial(struct vio_queue *q)
{
	if (q->mrg_first != NULL) {
		rte_pktmbuf_free(q->mrg_first);
		q->mrg_first = q->mrg_last = NULL;
		q->mrg_left = 0;
		vf_ctr_add(q->st.errors, 1);
	}
}

/* Gives back an rx buffer the packet fields were never set on. */
static inline void vio_rx_putback(struct rte_mbuf *m)
{
	rte_mempool_put(m->pool, m);
}

/* One used buffer of a packet (first or continuation). */
static inline void vio_rx_one(struct vio_queue *q, struct rte_mbuf *m, uint32_t len, int r,
			      struct rte_mbuf **pkts, uint16_t *nrx, uint64_t *bytes)
{
	if (__builtin_expect(r != 0, 0)) {
		/* More than we posted: the data cannot be trusted. */
		vio_rx_putback(m);
		vio_rx_drop_partial(q);
		vf_ctr_add(q->st.bad_len, 1);
		vf_ctr_add(q->st.errors, 1);
		return;
	}
	if (q->mrg_left == 0) {
		/* First buffer of a packet: header, then frame. */
		uint16_t nb = 1;

		if (__builtin_expect(len < VIO_HDR_LEN, 0)) {
			vio_rx_putback(m);
			vf_ctr_add(q->st.bad_len, 1);
			vf_ctr_add(q->st.errors, 1);
			return;
		}
		if (q->mrg) {
			/* Read once; DPDK leaves it unwritten without
			 * MRG_RXBUF, so only read it with. */
			const struct virtio_net_hdr_mrg_rxbuf *h = (const void *)
				((char *)m->buf_addr + RTE_PKTMBUF_HEADROOM - VIO_HDR_LEN);

			nb = *(const volatile uint16_t *)&h->num_buffers;
			if (__builtin_expect(nb == 0 || nb > q->vq.size, 0)) {
				vio_rx_putback(m);
				vf_ctr_add(q->st.bad_hdr, 1);
				vf_ctr_add(q->st.errors, 1);
				return;
			}
		}
		vf_mbuf_init_len(m, vf_mbuf_rearm_word(RTE_PKTMBUF_HEADROOM, q->port_id),
				 len - VIO_HDR_LEN);
		if (nb == 1) {
			pkts[(*nrx)++] = m;
			*bytes += m->pkt_len;
			return;
		}
		q->mrg_first = q->mrg_last = m;
		q->mrg_left = nb - 1;
		return;
	}
	/* Continuation buffer of a mergeable packet: no header. */
	vf_mbuf_init_len(m, vf_mbuf_rearm_word(RTE_PKTMBUF_HEADROOM - VIO_HDR_LEN, q->port_id),
			 len);
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

#define VIO_RX_CHUNK 64
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
		void *ck[VIO_RX_CHUNK];
		uint32_t len[VIO_RX_CHUNK];
		int8_t rc[VIO_RX_CHUNK];
		/* Each used buffer yields at most one packet. */
		uint16_t want = avail < n - nrx ? avail : n - nrx, got, i;

		if (want > VIO_RX_CHUNK)
			want = VIO_RX_CHUNK;
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
		/* Pass 2: headers and mbuf fields. */
		for (i = 0; i < got; i++) {
			if (i + 1 < got)
				rte_prefetch0((char *)((struct rte_mbuf *)ck[i + 1])->buf_addr +
					      RTE_PKTMBUF_HEADROOM - VIO_HDR_LEN);
			vio_rx_one(q, ck[i], len[i], rc[i], pkts, &nrx, &bytes);
		}
	}
	if (vq->nfree >= VIO_RX_REFILL_MIN && !vq->broken) {
		if (vio_rx_post(q, vq->nfree)) {
			vqs_publish(vq);
			vio_kick(q);
		}
	}
	vf_ctr_add(q->st.packets, nrx);
	vf_ctr_add(q->st.bytes, bytes);
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
	/* The DPDK heap is fd-backed (lib/vf_mem.h), so the ring block and the
	 * tx header slots are inside the regions sent in SET_MEM_TABLE. */
	q->mem = rte_zmalloc_socket("vio_ring", len, 4096, socket);
	q->slots = rte_zmalloc_socket("vio_slots", sizeof(*q->slots) * size, 64, socket);
	if (!rx)
		q->hdrs = rte_zmalloc_socket("vio_hdrs", sizeof(*q->hdrs) * size, 64, socket);
	if (q->mem == NULL || q->slots == NULL || (!rx && q->hdrs == NULL)) {
		vio_queue_free(q);
		return -ENOMEM;
	}
	vqs_init(&q->vq, q->mem, size, true, q->slots);
	q->tx_reclaim_below = size / 4 < VIO_TX_RECLAIM_BELOW ? size / 4 : VIO_TX_RECLAIM_BELOW;
	return 0;
}

void vio_queue_free(struct vio_queue *q)
{
	rte_free(q->mem);
	rte_free(q->slots);
	rte_free(q->hdrs);
	rte_free(q->pslots);
	q->pslots = NULL;
	q->mem = NULL;
	q->slots = NULL;
	q->hdrs = NULL;
}

static void free_cookie(void *c, void *arg)
{
	struct vio_queue *q = arg;

	/* Posted rx buffers are raw pool objects (see vio_rx_post). */
	if (q->rx)
		vio_rx_putback(c);
	else
		rte_pktmbuf_free(c);
}

void vio_queue_reset(struct vio_queue *q, bool in_order, bool mrg)
{
	uint64_t err[VQS_ERR_MAX];

	vio_rx_drop_partial(q);
	vqs_drain(&q->vq, free_cookie, q);
	memcpy(err, q->vq.err, sizeof(err));
	vqs_init(&q->vq, q->mem, q->vq.size, in_order, q->slots);
	memcpy(q->vq.err, err, sizeof(err));
	q->mrg = mrg;
}
