/* impair: io forwarding through an emulated bad link (loss, duplication,
 * reordering, delay and jitter, a rate), as netem does for kernel
 * interfaces.  The decisions and the delay line are impair.c; this is
 * the forwarding core's side: mbufs, the TSC, the ports. */
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "vf_fwd_mode.h"
#include "vf_ctr.h"
#include "vf_impair.h"
#include "vf_meas.h"

#define OUT_ROOM     VF_IMPAIR_ROOM(VF_MAX_BURST)

struct impair_priv {
	struct vf_impair im;
	struct vf_impair_counters base;		/* clear fwd stats */
	struct vf_impair_ent ring[];
};

static struct impair_priv *priv_of(const struct vf_stream *fs)
{
	return fs->priv_mode == &vf_fwd_impair ? fs->mode_priv : NULL;
}

static void *mbuf_copy(void *pkt, void *ctx)
{
	struct rte_mbuf *m = pkt;

	return rte_pktmbuf_copy(m, ctx ? ctx : m->pool, 0, UINT32_MAX);
}

static uint32_t mbuf_len(const void *pkt)
{
	return rte_pktmbuf_pkt_len((const struct rte_mbuf *)pkt);
}

/* Transmits pkts in bursts of at most fs->burst; returns how many the port
 * took (it stops at the first short burst). */
static uint16_t tx_bursts(struct vf_stream *fs, void **pkts, unsigned int n)
{
	unsigned int done = 0;

	while (done < n) {
		uint16_t k = (uint16_t)RTE_MIN(n - done, (unsigned int)fs->burst);
		uint16_t sent = vf_port_tx(fs->tx_port, fs->tx_queue,
					   (struct rte_mbuf **)pkts + done, k);
		done += sent;
		if (sent < k)
			break;
	}
	return (uint16_t)done;
}

static void impair_fwd(struct vf_stream *fs)
{
	struct impair_priv *ip = fs->mode_priv;
	struct vf_impair *im = &ip->im;
	struct rte_mbuf *pkts[VF_MAX_BURST];
	void *out[OUT_ROOM], *drop[OUT_ROOM];
	const struct vf_impair_ops ops = { mbuf_copy, mbuf_len, fs->cfg->pool };
	uint16_t n = fwd_rx(fs, pkts);
	unsigned int no = 0, nd = 0;
	uint64_t now = rte_rdtsc();

	if (n) {
		no = vf_impair_input(im, (void **)pkts, n, now, &ops, out, drop, &nd);
		if (nd) {
			vf_ctr_add(fs->fwd_dropped, nd);
			rte_pktmbuf_free_bulk((struct rte_mbuf **)drop, nd);
		}
	}
	if (!im->line_on) {
		/* No line: what the port refuses is dropped, as io does. */
		uint16_t sent = no ? tx_bursts(fs, out, no) : 0;

		vf_ctr_add(fs->tx_packets, sent);
		vf_ctr_add(im->c.tx, sent);
		if (sent < no) {
			vf_ctr_add(fs->fwd_dropped, no - sent);
			vf_ctr_add(im->c.tx_dropped, no - sent);
			rte_pktmbuf_free_bulk((struct rte_mbuf **)out + sent, no - sent);
		}
		return;
	}
	/* What is due goes out in bursts; what the port refuses stays at the
	 * head of the line for the next call.  A few bursts per call, so the
	 * core's other streams get their turn. */
	for (int b = 0; b < 8; b++) {
		unsigned int k = vf_impair_due(im, now, out, fs->burst);
		uint16_t sent;

		if (!k)
			break;
		sent = vf_port_tx(fs->tx_port, fs->tx_queue, (struct rte_mbuf **)out, (uint16_t)k);
		vf_impair_sent(im, sent);
		vf_ctr_add(fs->tx_packets, sent);
		if (sent < k)
			break;
	}
}

static void impair_stream_init(struct vf_stream *fs)
{
	const struct vf_impair_spec *sp = fs->cfg->impair;
	uint32_t n = vf_impair_ring_entries(sp);
	struct impair_priv *ip;

	ip = rte_zmalloc("vf_impair", sizeof(*ip) + (size_t)n * sizeof(ip->ring[0]),
			 RTE_CACHE_LINE_SIZE);
	fs->mode_priv = ip;
	if (!ip)
		return;
	vf_impair_init(&ip->im, sp, fs->id, rte_get_tsc_hz(), n ? ip->ring : NULL);
}

/* On the main thread after the cores stopped: free what is still held or
 * queued, counted as flushed. */
static void impair_stream_fini(struct vf_stream *fs)
{
	struct impair_priv *ip = priv_of(fs);
	void *out[VF_MAX_BURST];
	unsigned int k;

	if (!ip)
		return;
	while ((k = vf_impair_flush(&ip->im, out, VF_MAX_BURST)) > 0) {
		vf_ctr_add(fs->fwd_dropped, k);
		rte_pktmbuf_free_bulk((struct rte_mbuf **)out, k);
	}
}

static void impair_stats_clear(struct vf_stream *fs)
{
	struct impair_priv *ip = priv_of(fs);

	if (!ip)
		return;
	/* the core writes the counters meanwhile (vf_ctr.h), one at a time */
	for (unsigned int i = 0; i < VF_IMPAIR_NB_COUNTERS; i++)
		((uint64_t *)&ip->base)[i] = vf_ctr_read(((uint64_t *)&ip->im.c)[i]);
}

bool vf_fwd_impair_counters(const struct vf_stream *fs, struct vf_impair_counters *c)
{
	const struct impair_priv *ip = priv_of(fs);
	const uint64_t *cur, *base;
	uint64_t *dst = (uint64_t *)c;

	if (!ip)
		return false;
	cur = (const uint64_t *)&ip->im.c;
	base = (const uint64_t *)&ip->base;
	for (unsigned int i = 0; i < VF_IMPAIR_NB_COUNTERS; i++)
		dst[i] = vf_ctr_read(cur[i]) - base[i];
	return true;
}

const struct vf_fwd_mode vf_fwd_impair = {
	.name = "impair",
	.help = "forward as io through an emulated bad link (--impair: loss, delay, ...)",
	.fwd = impair_fwd,
	.stream_init = impair_stream_init,
	.stream_fini = impair_stream_fini,
	.stats_clear = impair_stats_clear,
};
