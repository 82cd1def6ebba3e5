/* Fast mbuf helpers for drivers' hot paths. */
#ifndef VF_MBUF_H
#define VF_MBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

/* Is m's buffer its own: not attached to another mbuf's (RTE_MBUF_CLONED),
 * and either direct or pinned to it by its pool?  The pools whose data
 * rooms are in the peer heap (vf_mem_pool_create) pin each room to its
 * mbuf (DPDK's pinned external buffers, RTE_MBUF_F_EXTERNAL); no code of
 * ours attaches a second mbuf to one (no rte_pktmbuf_clone/attach), so a
 * pinned buffer's shared-info count is always 1 and is not read here. */
static inline bool vf_mbuf_own_buf(const struct rte_mbuf *m)
{
	return !RTE_MBUF_CLONED(m) &&
	       (!RTE_MBUF_HAS_EXTBUF(m) || RTE_MBUF_HAS_PINNED_EXTBUF(m));
}

/* Ours to write in place: its own buffer, referenced once. */
static inline bool vf_mbuf_owned(const struct rte_mbuf *m)
{
	return rte_mbuf_refcnt_read(m) == 1 && vf_mbuf_own_buf(m);
}

/* Frees n mbufs.  When all are single-segment, unshared (refcnt 1), own
 * their buffer, with no next, and from one pool (the common case on a
 * forwarding path), they go back with one mempool put, which skips the
 * per-mbuf pre-free of rte_pktmbuf_free_bulk(); otherwise that function
 * does the general work. */
static inline void vf_mbuf_free_bulk(struct rte_mbuf **pkts, unsigned int n)
{
	struct rte_mempool *mp;
	uint64_t bad;
	unsigned int i;

	if (unlikely(n == 0))
		return;
	mp = pkts[0]->pool;
	/* A pool's mbufs are all direct or all pinned: one test per burst. */
	bad = RTE_MBUF_F_INDIRECT |
	      ((rte_pktmbuf_priv_flags(mp) & RTE_PKTMBUF_POOL_F_PINNED_EXT_BUF) ? 0
									 : RTE_MBUF_F_EXTERNAL);
	for (i = 0; i < n; i++) {
		const struct rte_mbuf *m = pkts[i];

		if (unlikely(m->pool != mp || m->nb_segs != 1 || m->next != NULL ||
			     rte_mbuf_refcnt_read(m) != 1 || (m->ol_flags & bad)))
			break;
	}
	if (likely(i == n))
		rte_mempool_put_bulk(mp, (void **)pkts, n);
	else
		rte_pktmbuf_free_bulk(pkts, n);
}

/* The 8-byte word at rearm_data: data_off, refcnt = 1, nb_segs = 1, port
 * (the layout DPDK's vector PMDs rely on), built arithmetically and stored
 * with memcpy (no type punning for the optimiser to break). */
static inline uint64_t vf_mbuf_rearm_word(uint16_t data_off, uint16_t port)
{
	return (uint64_t)data_off | (uint64_t)1 << 16 | (uint64_t)1 << 32 |
	       (uint64_t)port << 48;
}

/* Sets a fresh mbuf (straight from its pool: next == NULL, nb_segs == 1,
 * which DPDK's pre-free guarantees) up as a single-segment packet of len
 * bytes, touching only its first cache line. */
static inline void vf_mbuf_init_len(struct rte_mbuf *m, uint64_t rearm, uint32_t len)
{
	memcpy(RTE_PTR_ADD(m, offsetof(struct rte_mbuf, rearm_data)), &rearm, sizeof(rearm));
	/* As rte_pktmbuf_reset: a pinned buffer stays marked so. */
	m->ol_flags &= RTE_MBUF_F_EXTERNAL;
	m->packet_type = 0;
	m->pkt_len = len;
	m->data_len = (uint16_t)len;
	m->vlan_tci = 0;
	m->vlan_tci_outer = 0;
	m->hash.rss = 0;
}

/* Allocates n mbufs and sets them up as single-segment packets of len
 * bytes with one 8-byte store for data_off/refcnt/nb_segs/port and plain
 * stores for the rest, instead of the field-by-field rte_pktmbuf_reset().
 * Returns 0 or -ENOENT. */
static inline int vf_mbuf_alloc_bulk_len(struct rte_mempool *mp, struct rte_mbuf **pkts,
					 unsigned int n, uint16_t port, uint32_t len)
{
	uint16_t room = rte_pktmbuf_data_room_size(mp);
	uint64_t rearm = vf_mbuf_rearm_word(RTE_PKTMBUF_HEADROOM < room ?
					    RTE_PKTMBUF_HEADROOM : room, port);

	if (unlikely(rte_mempool_get_bulk(mp, (void **)pkts, n) < 0))
		return -ENOENT;
	for (unsigned int i = 0; i < n; i++) {
		vf_mbuf_init_len(pkts[i], rearm, len);
		pkts[i]->tx_offload = 0;
	}
	return 0;
}

_Static_assert(offsetof(struct rte_mbuf, data_off) == offsetof(struct rte_mbuf, rearm_data) &&
	       offsetof(struct rte_mbuf, refcnt) == offsetof(struct rte_mbuf, rearm_data) + 2 &&
	       offsetof(struct rte_mbuf, nb_segs) == offsetof(struct rte_mbuf, rearm_data) + 4 &&
	       offsetof(struct rte_mbuf, port) == offsetof(struct rte_mbuf, rearm_data) + 6,
	       "rearm_data layout: data_off, refcnt, nb_segs, port");

#endif
