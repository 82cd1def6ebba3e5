/* --tx-retry: the frames a full tx ring refused, offered again before they
 * are dropped, as testpmd's `set fwd MODE retry` (with `set burst tx
 * delay`) and OVS-DPDK's tx-retries do for a peer that drains its ring a
 * little late.  The core waits meanwhile, and so do the other streams it
 * serves: the bound is tx_retry x tx_retry_us per burst. */
#include <rte_cycles.h>
#include <rte_pause.h>

#include "vf_ctr.h"
#include "vf_fwd.h"

uint16_t vf_fwd_tx_retry(struct vf_stream *fs, struct rte_mbuf **pkts, uint16_t n)
{
	const struct vf_fwd_cfg *c = fs->cfg;
	uint64_t gap = (uint64_t)c->tx_retry_us * rte_get_tsc_hz() / 1000000;
	uint16_t done = 0;

	for (uint32_t i = 0; i < c->tx_retry && done < n; i++) {
		uint64_t until = rte_rdtsc() + gap;

		while (rte_rdtsc() < until)
			rte_pause();
		done += vf_port_tx(fs->tx_port, fs->tx_queue, pkts + done, n - done);
		vf_ctr_add(fs->tx_retries, 1);
	}
	return done;
}
