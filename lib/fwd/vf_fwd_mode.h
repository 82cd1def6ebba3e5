/* Helpers shared by the forwarding modes (inline: they are the hot path). */
#ifndef VF_FWD_PRIV_H
#define VF_FWD_PRIV_H

#include "vf_fwd.h"
#include "vf_mbuf.h"

static inline uint16_t fwd_rx(struct vf_stream *fs, struct rte_mbuf **pkts)
{
	uint16_t n = vf_port_rx(fs->rx_port, fs->rx_queue, pkts, fs->burst);

	vf_ctr_add(fs->rx_bursts[n], 1);
	vf_ctr_add(fs->rx_packets, n);
	return n;
}

static inline void fwd_tx(struct vf_stream *fs, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t sent;

	if (n == 0)
		return;
	sent = vf_port_tx(fs->tx_port, fs->tx_queue, pkts, n);
	if (unlikely(sent < n) && fs->cfg->tx_retry)
		sent += vf_fwd_tx_retry(fs, pkts + sent, n - sent);
	vf_ctr_add(fs->tx_packets, sent);
	if (unlikely(sent < n)) {
		vf_ctr_add(fs->fwd_dropped, (uint64_t)(n - sent));
		vf_mbuf_free_bulk(pkts + sent, n - sent);
	}
}

/* Generators (txonly, flowgen, --tx-first): how many packets this burst may
 * carry under --rate and --count. */
uint16_t vf_fwd_gen_budget(struct vf_stream *fs);
/* Gives back n packets of the last budget that the port had no room for
 * (--count is the caller's: it subtracts only what went). */
void vf_fwd_gen_unspend(struct vf_stream *fs, uint16_t n);
/* Allocates n mbufs and fills them with the stream's next frames (lengths
 * of the --txpkts mix, flows of --flow-* and --flows, vf_frames.h);
 * returns how many were allocated (0 or n).  Does not touch --count: the
 * caller decides whether the burst counts. */
uint16_t vf_fwd_gen_fill(struct vf_stream *fs, struct rte_mbuf **pkts, uint16_t n);
void vf_fwd_gen_init(struct vf_stream *fs);
/* --count and the token bucket of a generating stream (its share of
 * --rate among the senders), for every generating mode's stream_init. */
void vf_fwd_gen_pace_init(struct vf_stream *fs);
/* One generator burst (txonly, flowgen); returns the packets sent. */
uint16_t vf_fwd_gen_send(struct vf_stream *fs);
/* Frees packets a --count generator still holds (counted as dropped). */
void vf_fwd_gen_release(struct vf_stream *fs);

/* Set while a draining mode's stop waits for late packets: generators
 * stop sending, receivers go on. */
extern bool vf__fwd_draining;	/* relaxed loads and stores */

#define VF_FWD_MODE(sym) extern const struct vf_fwd_mode sym

VF_FWD_MODE(vf_fwd_io);
VF_FWD_MODE(vf_fwd_mac);
VF_FWD_MODE(vf_fwd_macswap);
VF_FWD_MODE(vf_fwd_rxonly);
VF_FWD_MODE(vf_fwd_txonly);
VF_FWD_MODE(vf_fwd_flowgen);
VF_FWD_MODE(vf_fwd_icmpecho);
VF_FWD_MODE(vf_fwd_5tswap);
VF_FWD_MODE(vf_fwd_replay);

#endif
