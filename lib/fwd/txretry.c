/* --tx-retry: the frames a full tx ring refused, offered again before they
 * are dropped, as testpmd's `set fwd MODE retry` (with `set burst tx
 * delay`) and OVS-DPDK's tx-retries do for a peer that drains its ring a
 * little late.  The core waits meanwhile, and so do the other streams it
 * serves: the bound is tx_retry x tx_retry_us per burst.  A port whose
 * link is down has no peer that could drain it, so the frames are dropped
 * at once instead: a peer that left must not hold the core (and the
 * streams' other ports) for the whole bound on every burst. */
#include <rte_cycles.h>

#include "vf_ctr.h"
#include "vf_fwd.h"

uint16_t vf_fwd_tx_retry(struct vf_stream *fs, struct rte_mbuf **pkts, uint16_t n)
{
	const struct vf_fwd_cfg *c = fs->cfg;
	uint16_t done = 0;

	for (uint32_t i = 0; i < c->tx_retry && done < n; i++) {
		struct vf_link link;

		vf_port_link(fs->tx_port, &link);	/* an atomic load in our drivers */
		if (!link.up)
			break;
		rte_delay_us_block(c->tx_retry_us);	/* a busy wait, never a sleep */
		done += vf_port_tx(fs->tx_port, fs->tx_queue, pkts + done, n - done);
		vf_ctr_add(fs->tx_retries, 1);
	}
	return done;
}
