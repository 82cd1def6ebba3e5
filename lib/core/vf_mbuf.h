/* Fast mbuf helpers for drivers' hot paths. */
#ifndef VF_MBUF_H
#define VF_MBUF_H

#include <stddef.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

/* Frees n mbufs.  When all are single-segment, unshared (refcnt 1), direct,
 * with no next, and from one pool (the common case on a forwarding path),
 * they go back with one mempool put, which skips the per-mbuf pre-free of
 * rte_pktmbuf_free_bulk(); otherwise that function does the general work. */
static inline void vf_mbuf_free_bulk(struct rte_mbuf **pkts, unsigned int n)
{
	struct rte_mempool *mp;
	unsigned int i;

	if (unlikely(n == 0))
		return;
	mp = pkts[0]->pool;
	for (i = 0; i < n; i++) {
		const struct rte_mbuf *m = pkts[i];

		if (unlikely(m->pool != mp || m->nb_segs != 1 || m->next != NULL ||
			     rte_mbuf_refcnt_read(m) != 1 || RTE_MBUF_HAS_EXTBUF(m) ||
			     RTE_MBUF_CLONED(m)))
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
	m->ol_flags = 0;
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
