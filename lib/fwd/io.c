#include "vf_fwd_mode.h"

/* Packets go out as they came in. */
static void io_fwd(struct vf_stream *fs)
{
	struct rte_mbuf *pkts[VF_MAX_BURST];
	uint16_t n = fwd_rx(fs, pkts);

	fwd_tx(fs, pkts, n);
}

const struct vf_fwd_mode vf_fwd_io = {
	.name = "io",
	.help = "forward packets unchanged",
	.fwd = io_fwd,
	.sleeps = true,
};
