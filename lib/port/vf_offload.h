/* Software completion of transmit offloads: what a port does itself when
 * the peer it sends to did not take the checksum or TSO work a packet asks
 * for in its mbuf (ol_flags RTE_MBUF_F_TX_*, l2/l3/l4_len, tso_segsz; the
 * L4 checksum field holds the pseudo-header sum, as in DPDK and virtio).
 *
 * The drivers decide what their peer takes (a mask of VF_OL_CAP_*); this
 * module does the rest on the transmit path, in bursts, with segments from
 * the packet's own mempool (no allocation of memory per packet). */
#ifndef VF_OFFLOAD_H
#define VF_OFFLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

/* What the receiving side of a transmit queue finishes itself. */
#define VF_OL_CAP_CSUM	1u	/* TCP/UDP checksum from l2+l3 on (partial) */
#define VF_OL_CAP_TSO4	2u	/* TCP segmentation, IPv4 */
#define VF_OL_CAP_TSO6	4u	/* TCP segmentation, IPv6 */
#define VF_OL_CAP_ECN	8u	/* TSO frames with CWR set */

/* The ol_flags that ask a transmitter for work. */
#define VF_OL_TX_MASK (RTE_MBUF_F_TX_L4_MASK | RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IP_CKSUM)

/* Largest TSO frame, counted from the IP header (IPv4's total length). */
#define VF_OL_TSO_MAX 65535u
/* Most segments one TSO frame may be cut into (a 64 KiB frame at the
 * smallest MSS Linux uses is under this; more is a hostile gso_size). */
#define VF_OL_TSO_MAX_SEGS 256u
/* Longest header run (L2 + L3 + L4) we copy in front of each segment. */
#define VF_OL_HDR_MAX 256u

/* Per-queue counters of the software path (single writer: the queue's
 * forwarding core). */
struct vf_ol_stats {
	uint64_t sw_csum;	/* checksums filled in software */
	uint64_t sw_tso;	/* TSO frames cut in software */
	uint64_t sw_tso_segs;	/* segments those made */
	uint64_t sw_nombuf;	/* frames dropped: no mbuf for the segments */
	uint64_t sw_bad;	/* frames dropped: request we cannot finish */
	uint64_t sw_unsent;	/* segments dropped: ring full mid-frame */
};

/* Per transmit queue: what the peer takes, and the counters. */
struct vf_ol_txq {
	uint32_t caps;			/* VF_OL_CAP_*; set by the control thread
					 * while the queue is stopped */
	struct vf_ol_stats st;
};

typedef uint16_t (*vf_ol_tx_fn)(void *q, struct rte_mbuf **pkts, uint16_t n);

/* Completes the checksum of a partial-checksum packet in place: the one's
 * complement sum of [start, pkt_len), whose 16-bit field at start + off
 * holds the seed (the pseudo-header sum), is stored at start + off.
 * Multi-segment packets are fine.  Returns 0, or -EINVAL when the field is
 * not inside the packet (nothing written). */
int vf_ol_csum_fill(struct rte_mbuf *m, uint32_t start, uint32_t off);

/* Finishes m's checksum requests (IPv4 header, TCP/UDP) in place and
 * clears them from ol_flags.  0 or -EINVAL (lengths outside the packet). */
int vf_ol_csum_finish(struct rte_mbuf *m);

/* Cuts the TSO frame m (RTE_MBUF_F_TX_TCP_SEG with l2/l3/l4_len and
 * tso_segsz; IPv4 or IPv6 and TCP) into frames of at most tso_segsz
 * payload bytes from mp, written to out[0..max): each with the headers of
 * m, IPv4 id + i, its own total/payload length, sequence number + offset,
 * FIN and PSH on the last only, CWR on the first only, and full IPv4 and
 * TCP checksums; no offload flags.  m is left as it was.  Returns the
 * number of frames, -EINVAL for a frame we cannot cut (bad lengths, not
 * TCP, more than max segments), -ENOBUFS when mp ran out (none kept). */
int vf_ol_tso_segment(const struct rte_mbuf *m, struct rte_mempool *mp,
		      struct rte_mbuf **out, unsigned int max);

/* True when m asks for work the peer described by caps does not take. */
static inline bool vf_ol_needs_sw(const struct rte_mbuf *m, uint32_t caps)
{
	uint64_t f = m->ol_flags;

	if (f & RTE_MBUF_F_TX_TCP_SEG)
		return !(caps & ((f & RTE_MBUF_F_TX_IPV6) ? VF_OL_CAP_TSO6 : VF_OL_CAP_TSO4)) ||
		       (f & RTE_MBUF_F_TX_IP_CKSUM);
	if (f & RTE_MBUF_F_TX_IP_CKSUM)
		return true;
	return (f & RTE_MBUF_F_TX_L4_MASK) && !(caps & VF_OL_CAP_CSUM);
}

/* The general path of vf_ol_tx_burst(). */
uint16_t vf__ol_tx_sw(void *q, vf_ol_tx_fn tx, struct vf_ol_txq *ol,
		      struct rte_mbuf **pkts, uint16_t n);

/* A transmit burst through tx that finishes in software what the peer
 * (ol->caps) does not take.  Same contract as tx: returns the packets
 * consumed (pkts[0..ret)); the rest stay the caller's, unchanged but for
 * checksums already filled.  A TSO frame whose segments only partly fit
 * counts as consumed (the rest counted in sw_unsent).  With no packet
 * asking, this costs an OR of the burst's ol_flags and one test. */
static inline uint16_t vf_ol_tx_burst(void *q, vf_ol_tx_fn tx, struct vf_ol_txq *ol,
				      struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t any = 0;

	/* one branch per burst when nothing asks */
	for (uint16_t i = 0; i < n; i++)
		any |= pkts[i]->ol_flags;
	if (unlikely(any & VF_OL_TX_MASK)) {
		for (uint16_t i = 0; i < n; i++)
			if ((pkts[i]->ol_flags & VF_OL_TX_MASK) && vf_ol_needs_sw(pkts[i], ol->caps))
				return vf__ol_tx_sw(q, tx, ol, pkts, n);
	}
	return tx(q, pkts, n);
}

#endif
