/* Pieces both ring layouts share on the data path: the chain and cursor
 * helpers of the walks and copies, the drain acknowledgement, the call
 * eventfd, the simple-buffer checks and copies of the fast paths, the copy
 * of a packet into a writable chain, and the dirty-log marks after those
 * copies.  Included by virtqueue_split.c and virtqueue_packed.c only
 * (static inline: one copy each, no calls). */
#ifndef VH_VQ_SHARED_H
#define VH_VQ_SHARED_H

#include <string.h>
#include <unistd.h>

#include <linux/virtio_net.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "vf_ctr.h"
#include "vf_sync.h"
#include "vhost_log.h"
#include "vhost_mem.h"
#include "vhost_offload.h"
#include "vq_types.h"

/* Longest indirect table we accept (entries), as Linux. */
#define VH_MAX_INDIRECT 32768u
/* Buffers looked at ahead of their copies: descriptor reads and the
 * frames' first cache lines are in flight together (a multiple of 4). */
#define VH_BATCH 32u

/* Result of placing one packet in the front-end's rx buffers. */
enum { ENQ_OK, ENQ_FULL, ENQ_DROP, ENQ_BROKEN };

/* Appends [addr, addr+len) of the front-end's memory to c, split at region
 * ends.  Returns VH_WALK_OK, VH_WALK_ADDR, or VH_WALK_TOO_MANY (segments
 * beyond VH_MAX_SEGS are not stored; the caller keeps walking then drops). */
static inline int vh_chain_add(const struct vh_mem *mem, uint64_t addr, uint64_t left,
			       struct vh_chain *c)
{
	int rc = 0;

	while (left) {
		uint64_t part = left;
		uint8_t *p = vh_gpa_part(mem, addr, &part);

		if (!p)
			return -4;	/* VH_WALK_ADDR */
		if (c->nseg == VH_MAX_SEGS)
			rc = -7;	/* VH_WALK_TOO_MANY */
		else
			c->seg[c->nseg++] = (struct vh_seg){ p, (uint32_t)part };
		addr += part;	/* cannot wrap: regions do not */
		left -= part;
	}
	return rc;
}

struct vh_cursor {
	const struct vh_chain *c;
	unsigned int s;
	uint32_t off;
};

/* The caller made sure the segments hold len more bytes. */
static inline void vh_cursor_write(struct vh_cursor *cu, const void *src, uint32_t len)
{
	const uint8_t *p = src;

	while (len) {
		const struct vh_seg *g = &cu->c->seg[cu->s];
		uint32_t l = RTE_MIN(len, g->len - cu->off);

		rte_memcpy(g->p + cu->off, p, l);
		p += l;
		len -= l;
		cu->off += l;
		if (cu->off == g->len) {
			cu->s++;
			cu->off = 0;
		}
	}
}

/* Dequeue found the ring empty after reading drain_req as dreq. */
static inline void vh_drain_ack(struct vh_vq *vq, uint32_t dreq)
{
	vf_drain_ack(&vq->drain_ack, dreq);
}

/* Writes the call eventfd (the caller decided the front-end wants it). */
static inline void vh_vq_call(struct vh_vq *vq)
{
	int fd = __atomic_load_n(&vq->callfd, __ATOMIC_ACQUIRE);

	if (fd >= 0) {
		uint64_t one = 1;

		if (write(fd, &one, sizeof(one)) == sizeof(one))
			vf_ctr_add(vq->st.calls, 1);
	}
}

/* Bytes after the header an mbuf of the dequeue pool holds. */
static inline uint32_t vh_mbuf_room(const struct vh_vq *vq)
{
	return rte_pktmbuf_data_room_size(vq->pool) - RTE_PKTMBUF_HEADROOM;
}

/* A readable single descriptor (addr, len) already fetched once from the
 * ring, holding the header and a frame that fits one mbuf: the frame's
 * host address (*flen its length), or NULL when the general path must
 * decide. */
static __rte_always_inline const uint8_t *vh_simple_tx(const struct vh_vq *vq, uint64_t addr, uint32_t len,
					  uint32_t room, uint32_t *flen)
{
	const uint8_t *p;

	if (len <= vq->hdr_len || len - vq->hdr_len > room)
		return NULL;
	p = vh_gpa(vq->mem, addr, len);
	if (!p)
		return NULL;
	/* The copy reads the frame, never the header: fetch the frame's
	 * first line (with the usual headroom layout the header sits in
	 * the line before it). */
	rte_prefetch0(p + vq->hdr_len);
	*flen = len - vq->hdr_len;
	return p + vq->hdr_len;
}

/* A writable single descriptor with room for the header and the one-mbuf
 * packet m: its host address, or NULL for the general path. */
static __rte_always_inline uint8_t *vh_simple_rx(const struct vh_vq *vq, uint64_t addr, uint32_t len,
				    const struct rte_mbuf *m)
{
	uint32_t need = vq->hdr_len + m->pkt_len;
	uint8_t *p;

	if (m->nb_segs != 1 || len < need)
		return NULL;
	p = vh_gpa(vq->mem, addr, need);
	if (p) {
		/* The frame's first line, and the header's for reading
		 * (vh_copy_rx writes the header only if it differs; a
		 * prefetch for writing would take the line from the
		 * front-end's cache even when nothing is stored).  The frame
		 * line is a read prefetch too: since the build has PREFETCHW,
		 * asking for ownership moved DPDK's front-end on vhostd by
		 * +1..9 % but ours<->ours by -15..+4 % (bench/RESULTS.md,
		 * 2026-12-03 third session), so it stays as it was measured. */
		rte_prefetch0(p + vq->hdr_len);
		rte_prefetch0(p);
	}
	return p;
}

/* Fast-path copies: a frame into a fresh one-segment mbuf (with offloads
 * negotiated, its header into the headroom for vh_ol_dequeue()), and a
 * one-mbuf packet with its header (num_buffers 1) into a buffer. */
static __rte_always_inline void vh_copy_tx(struct vh_vq *vq, struct rte_mbuf *m,
					   const uint8_t *src, uint32_t flen)
{
	if (vq->ol.rx_allowed) {
		const uint8_t *g = src - vq->hdr_len;

		/* flags, gso_type: a header asking nothing costs this test */
		if (unlikely((g[0] | g[1]) != 0))
			vh_ol_stash(vq, m, g);
	}
	rte_memcpy(rte_pktmbuf_mtod(m, void *), src, flen);
	m->data_len = (uint16_t)flen;
	m->pkt_len = flen;
}

static __rte_always_inline bool vh_rx_wants_ol(const struct vh_vq *vq, const struct rte_mbuf *m)
{
	return unlikely(vq->ol.tx.caps != 0 && (m->ol_flags & VNET_OL_HDR_MASK));
}

/* The offload fields of the header written for m: what vf_ol_tx_burst()
 * left asked is what the guest negotiated. */
static __rte_always_inline void vh_rx_hdr_ol(const struct vh_vq *vq, const struct rte_mbuf *m,
					     struct virtio_net_hdr_mrg_rxbuf *hdr)
{
	if (vh_rx_wants_ol(vq, m))
		vnet_ol_mbuf_to_hdr(m, &hdr->hdr, true);
}

static __rte_always_inline void vh_copy_rx(const struct vh_vq *vq, uint8_t *dst, const struct rte_mbuf *m)
{
	static const struct virtio_net_hdr_mrg_rxbuf hdr = { .num_buffers = 1 };

	/* A recycled rx buffer usually holds this very header already (the
	 * front-end leaves it on tx): storing it again would move the
	 * header's line back to this core and the front-end's next read
	 * of num_buffers would miss.  So compare first and write only on a
	 * difference.  The buffer is the front-end's until we publish it,
	 * so whatever it holds then is what it reads.  An offload request
	 * (rare) writes its own header. */
	if (vh_rx_wants_ol(vq, m)) {
		struct virtio_net_hdr_mrg_rxbuf oh = hdr;

		vh_rx_hdr_ol(vq, m, &oh);
		memcpy(dst, &oh, vq->hdr_len == sizeof(oh) ? sizeof(oh) : sizeof(oh.hdr));
	} else if (vq->hdr_len == sizeof(hdr)) {
		if (memcmp(dst, &hdr, sizeof(hdr)) != 0)
			memcpy(dst, &hdr, sizeof(hdr));
	} else if (memcmp(dst, &hdr, sizeof(struct virtio_net_hdr)) != 0) {
		memcpy(dst, &hdr, sizeof(struct virtio_net_hdr));
	}
	rte_memcpy(dst + vq->hdr_len, rte_pktmbuf_mtod(m, const void *), m->pkt_len);
}

/* The general path's copy: header (num_buffers nb) and every segment of
 * m into the segments of c, which the caller made sure hold them. */
static inline void vh_copy_rx_chain(const struct vh_vq *vq, const struct vh_chain *c,
				    const struct rte_mbuf *m, uint16_t nb)
{
	struct virtio_net_hdr_mrg_rxbuf hdr = { .num_buffers = vq->mrg_rxbuf ? nb : 1 };
	struct vh_cursor cu = { .c = c };

	vh_rx_hdr_ol(vq, m, &hdr);
	vh_cursor_write(&cu, &hdr, vq->hdr_len);
	for (const struct rte_mbuf *s = m; s; s = s->next)
		vh_cursor_write(&cu, rte_pktmbuf_mtod(s, const void *), s->data_len);
}

/* Live migration: after the general path copied len bytes into c, their
 * pages are marked dirty, when the front-end set a log (the acquire pairs
 * with the release that publishes it). */
static inline void vh_log_chain_if(struct vh_vq *vq, const struct vh_chain *c, uint64_t len)
{
	const struct vh_log *lg = __atomic_load_n(&vq->dirty_log, __ATOMIC_ACQUIRE);

	if (unlikely(lg != NULL))
		vh_log_chain(vq, lg, c, len);
}

/* The same after a fast path copied header and pkts[i] into the single
 * buffers dst[i], for i < n. */
static inline void vh_log_simple_rx_if(struct vh_vq *vq, uint8_t *const *dst,
				       struct rte_mbuf *const *pkts, uint16_t n)
{
	const struct vh_log *lg = __atomic_load_n(&vq->dirty_log, __ATOMIC_ACQUIRE);

	if (unlikely(lg != NULL))
		for (uint16_t i = 0; i < n; i++)
			vh_log_host(vq, lg, dst[i], vq->hdr_len + pkts[i]->pkt_len);
}

#endif
