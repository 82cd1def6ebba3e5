/* The bodies of the virtio-net bursts, written once for both ring kinds.
 *
 * Included by virtio_rxtx.c (split) and virtio_rxtx_packed.c (packed) only.
 * Every function takes `packed` as a compile-time constant: each burst is
 * instantiated once per kind and the ring choice folds away, so neither
 * path tests the ring kind at run time.  What really differs between the
 * kinds (taking used entries, tx reclaim) stays in the two files: the
 * burst bodies get their file's reclaim and chain functions as constant
 * arguments, so this header uses nothing defined by the files that
 * include it (one-way: burst files -> this header -> virtio_queue.h). */
#ifndef VIRTIO_RXTX_BODY_H
#define VIRTIO_RXTX_BODY_H

#include <errno.h>
#include <unistd.h>

#include "vf_mbuf.h"
#include "virtio_queue.h"

/* Bulk sizes: frees, refills and used entries taken per pass. */
#define VIO_CHUNK 64

/* ---- the ring, by kind ---- */

static __rte_always_inline uint16_t vio_ring_nfree(const struct vio_queue *q, bool packed)
{
	return packed ? q->pq.nfree : q->vq.nfree;
}

static __rte_always_inline bool vio_ring_broken(const struct vio_queue *q, bool packed)
{
	return packed ? q->pq.broken : q->vq.broken;
}

static __rte_always_inline uint16_t vio_ring_size(const struct vio_queue *q, bool packed)
{
	return packed ? q->pq.size : q->vq.size;
}

static __rte_always_inline void vio_ring_post1(struct vio_queue *q, bool packed, uint64_t addr,
					       uint32_t len, uint16_t flags, void *cookie)
{
	if (packed)
		vqp_post1(&q->pq, addr, len, flags, cookie);
	else
		vqs_post1(&q->vq, addr, len, flags, cookie);
}

static __rte_always_inline void vio_ring_publish(struct vio_queue *q, bool packed)
{
	if (packed)
		vqp_publish(&q->pq);
	else
		vqs_publish(&q->vq);
}

static __rte_always_inline void vio_kick_if_asked(struct vio_queue *q, bool packed)
{
	static const uint64_t one = 1;

	/* Only when the backend asked for it (split: used->flags lacks
	 * NO_NOTIFY; packed: the device area does not say DISABLE).  The
	 * eventfd is ours and nonblocking: a full counter just means the
	 * backend has not read it yet. */
	if ((packed ? vqp_need_kick(&q->pq) : vqs_need_kick(&q->vq)) && q->kickfd >= 0) {
		ssize_t r = write(q->kickfd, &one, sizeof(one));

		(void)r;
		vf_ctr_add(q->st.kicks, 1);
	}
}

/* ---- tx ---- */

/* Can the header go into the packet's own headroom (one descriptor less)?
 * Only for a first segment that is ours to write (vf_mbuf_owned). */
static inline bool vio_can_push(const struct rte_mbuf *m)
{
	return vf_mbuf_owned(m) &&
	       rte_pktmbuf_headroom(m) >= VIO_HDR_LEN;
}

/* A packet that needs a header descriptor or several segments: a chain.
 * Kept out of the loop by its callers (noinline wrappers): the
 * single-descriptor case is the hot one. */
static __rte_always_inline void vio_tx_chain_body(struct vio_queue *q, struct rte_mbuf *m,
						  bool push, bool packed)
{
	struct vqs_seg seg[VIO_TX_MAX_SEGS + 1];
	struct rte_mbuf *s = m;
	struct virtio_net_hdr_mrg_rxbuf *h;
	uint16_t k = 0;

	_Static_assert(sizeof(struct vqs_seg) == sizeof(struct vqp_seg) &&
		       offsetof(struct vqs_seg, len) == offsetof(struct vqp_seg, len),
		       "one segment list for both ring kinds");
	if (push) {
		h = rte_pktmbuf_mtod_offset(m, void *, -(int)VIO_HDR_LEN);
		seg[k].len = s->data_len + VIO_HDR_LEN;
		s = s->next;
	} else {
		/* The header slot belongs to the chain's head descriptor
		 * (split) or buffer id (packed), so it stays ours until that
		 * chain completes. */
		h = &q->hdrs[packed ? vqp_next_id(&q->pq) : q->vq.head];
		seg[k].len = VIO_HDR_LEN;
	}
	vio_hdr_tx(q, h, m);
	seg[k++].addr = (uint64_t)(uintptr_t)h;
	for (; s != NULL; s = s->next) {
		seg[k].addr = rte_pktmbuf_mtod(s, uintptr_t);
		seg[k++].len = s->data_len;
	}
	if (packed)
		vqp_postv(&q->pq, (const struct vqp_seg *)seg, k, m);
	else
		vqs_postv(&q->vq, seg, k, m);
}

static __rte_always_inline uint16_t vio_tx_burst_body(struct vio_queue *q, struct rte_mbuf **pkts,
						      uint16_t n, bool packed,
						      void (*chain)(struct vio_queue *,
								    struct rte_mbuf *, bool),
						      void (*reclaim)(struct vio_queue *))
{
	uint64_t bytes = 0;
	uint16_t i, dropped = 0;

	if (__builtin_expect(!vio_ready(q), 0))
		return 0;
	/* Reclaim only when the ring runs low: fewer reads of what the
	 * backend keeps writing, and bigger bulk frees. */
	if (vio_ring_nfree(q, packed) < q->tx_reclaim_below)
		reclaim(q);
	if (__builtin_expect(vio_ring_broken(q, packed), 0))
		return 0;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		bool push = vio_can_push(m);
		uint16_t need = m->nb_segs + !push;

		if (__builtin_expect(need > vio_ring_nfree(q, packed) || need > VIO_TX_MAX_SEGS, 0)) {
			if (need <= VIO_TX_MAX_SEGS && need <= vio_ring_size(q, packed)) {
				reclaim(q);
				if (need <= vio_ring_nfree(q, packed) && !vio_ring_broken(q, packed))
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
			vio_ring_post1(q, packed, (uint64_t)(uintptr_t)h, m->data_len + VIO_HDR_LEN,
				       0, m);
		} else {
			chain(q, m, push);
		}
		bytes += m->pkt_len;
	}
	if (i > dropped) {
		vio_ring_publish(q, packed);
		vio_kick_if_asked(q, packed);
		vf_ctr_add(q->st.packets, i - dropped);
		vf_ctr_add(q->st.bytes, bytes);
	}
	vf_ctr_add(q->st.errors, dropped);
	return i;
}

/* ---- rx ---- */

/* Posts up to `want` buffers, raw from the pool: only buf_addr/buf_len are
 * read here; the packet fields are written once, when the buffer comes
 * back used (vio_rx_one), which spares a pass over each mbuf.  The header
 * lands in the headroom, the frame at the usual data offset (as DPDK's
 * virtio PMD does).  Returns the number posted (not published). */
static __rte_always_inline uint16_t vio_rx_post_body(struct vio_queue *q, uint16_t want,
						     bool packed)
{
	struct rte_mbuf *m[VIO_CHUNK];
	uint16_t posted = 0;

	while (want > 0) {
		uint16_t k = want < VIO_CHUNK ? want : VIO_CHUNK, i;

		if (rte_mempool_get_bulk(q->pool, (void **)m, k) != 0) {
			vf_ctr_add(q->st.nombuf, k);
			break;
		}
		for (i = 0; i < k; i++)
			vio_ring_post1(q, packed,
				       (uint64_t)(uintptr_t)m[i]->buf_addr + RTE_PKTMBUF_HEADROOM -
					       VIO_HDR_LEN,
				       m[i]->buf_len - RTE_PKTMBUF_HEADROOM + VIO_HDR_LEN,
				       VRING_DESC_F_WRITE, m[i]);
		want -= k;
		posted += k;
	}
	return posted;
}

/* Gives back an rx buffer the packet fields were never set on. */
static inline void vio_rx_putback(struct rte_mbuf *m)
{
	rte_mempool_put(m->pool, m);
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

static inline void vio_rx_bad(struct vio_queue *q, struct rte_mbuf *m, uint64_t *ctr)
{
	vio_rx_putback(m);
	vio_rx_drop_partial(q);
	vf_ctr_add(*ctr, 1);
	vf_ctr_add(q->st.errors, 1);
}

/* One used buffer of a packet: a whole one, the first of a mergeable one
 * or a continuation.  r != 0: the device claimed more than we posted. */
static __rte_always_inline void vio_rx_one(struct vio_queue *q, struct rte_mbuf *m, uint32_t len,
					   int r, uint16_t ring_size, struct rte_mbuf **pkts,
					   uint16_t *nrx, uint64_t *bytes)
{
	if (__builtin_expect(r != 0, 0)) {
		/* More than we posted: the data cannot be trusted. */
		vio_rx_bad(q, m, &q->st.bad_len);
		return;
	}
	if (q->mrg_left == 0) {
		/* First buffer of a packet: header, then frame. */
		uint16_t nb = 1;

		if (__builtin_expect(len < VIO_HDR_LEN, 0)) {
			vio_rx_bad(q, m, &q->st.bad_len);
			return;
		}
		if (q->mrg) {
			/* Read once; DPDK leaves it unwritten without
			 * MRG_RXBUF, so only read it with. */
			const struct virtio_net_hdr_mrg_rxbuf *h = (const void *)
				((char *)m->buf_addr + RTE_PKTMBUF_HEADROOM - VIO_HDR_LEN);

			nb = *(const volatile uint16_t *)&h->num_buffers;
			if (__builtin_expect(nb == 0 || nb > ring_size, 0)) {
				vio_rx_bad(q, m, &q->st.bad_hdr);
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

/* Pass 2 of an rx burst: the used buffers taken in pass 1 (their mbufs
 * being loaded already) into packets, the next one's header prefetched. */
static __rte_always_inline void vio_rx_pass2(struct vio_queue *q, bool packed, void **ck,
					     const uint32_t *len, const int8_t *rc, uint16_t got,
					     struct rte_mbuf **pkts, uint16_t *nrx, uint64_t *bytes)
{
	uint16_t size = vio_ring_size(q, packed);

	for (uint16_t i = 0; i < got; i++) {
		if (i + 1 < got)
			rte_prefetch0((char *)((struct rte_mbuf *)ck[i + 1])->buf_addr +
				      RTE_PKTMBUF_HEADROOM - VIO_HDR_LEN);
		vio_rx_one(q, ck[i], len[i], rc[i], size, pkts, nrx, bytes);
	}
}

/* The end of an rx burst: refill in one batch once enough is free, publish
 * and kick once, count. */
static __rte_always_inline void vio_rx_end(struct vio_queue *q, bool packed, uint16_t nrx,
					   uint64_t bytes)
{
	if (vio_ring_nfree(q, packed) >= VIO_RX_REFILL_MIN && !vio_ring_broken(q, packed)) {
		if (vio_rx_post_body(q, vio_ring_nfree(q, packed), packed)) {
			vio_ring_publish(q, packed);
			vio_kick_if_asked(q, packed);
		}
	}
	vf_ctr_add(q->st.packets, nrx);
	vf_ctr_add(q->st.bytes, bytes);
}

/* Rx: every free descriptor gets a buffer, published, not kicked. */
static __rte_always_inline uint16_t vio_rx_fill_body(struct vio_queue *q, bool packed)
{
	uint16_t n = vio_rx_post_body(q, vio_ring_nfree(q, packed), packed);

	if (n)
		vio_ring_publish(q, packed);
	return n;
}

/* Posted buffers still in a ring being reset: rx ones are raw pool
 * objects (vio_rx_post_body), tx ones packets or, tagged, raw pool objects
 * that carried a frame built in place (virtio_inplace.c). */
static inline void vio_free_cookie(void *c, void *arg)
{
	const struct vio_queue *q = arg;

	if (q->rx)
		vio_rx_putback(c);
	else if ((uintptr_t)c & VIO_COOKIE_RAW)
		rte_mempool_put(q->pool, (void *)((uintptr_t)c & ~VIO_COOKIE_RAW));
	else
		rte_pktmbuf_free(c);
}

/* Completed tx cookies back where they came from: packets freed, raw
 * buffers of in-place frames put back in the pool. */
static __rte_always_inline void vio_tx_free(struct vio_queue *q, void **c, uint16_t k)
{
	void *raw[VIO_CHUNK];
	uint16_t nr = 0, np = 0;

	for (uint16_t i = 0; i < k; i++) {
		if ((uintptr_t)c[i] & VIO_COOKIE_RAW)
			raw[nr++] = (void *)((uintptr_t)c[i] & ~VIO_COOKIE_RAW);
		else
			c[np++] = c[i];
	}
	if (np)
		vf_mbuf_free_bulk((struct rte_mbuf **)c, np);
	if (nr)
		rte_mempool_put_bulk(q->pool, raw, nr);
}

#endif
