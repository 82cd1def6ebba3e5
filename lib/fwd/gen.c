/* Packet generation shared by txonly, flowgen and --tx-first. */
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "vf_chain.h"
#include "vf_fwd_mode.h"
#include "vf_frames.h"

struct gen_tmpl {
	struct vf_frames fr;
	uint16_t npend;			/* --count: generated, not yet taken */
	struct rte_mbuf *pend[VF_MAX_BURST];
	/* frames longer than a segment (vf_chain.h); scratch NULL: none */
	uint32_t seg;			/* data room of a segment */
	uint8_t *scratch;		/* a whole frame, then copied into segments */
	struct rte_mbuf **tails;	/* a burst's tail segments */
	uint8_t mem[] __rte_cache_aligned;	/* the frames' template and schedule */
};

int vf_fwd_flows_resolve(struct vf_fwd_cfg *cfg, char *err, size_t errlen)
{
	return vf_flows_resolve(&cfg->flows, cfg->nb_flows, cfg->mode && cfg->mode->spreads, err,
				errlen);
}

/* With --count the generator promises N packets to the port, not N
 * attempts: what a full ring refuses is kept and offered again first. */
uint16_t vf_fwd_gen_send(struct vf_stream *fs)
{
	struct gen_tmpl *t = fs->mode_priv;
	struct rte_mbuf *pkts[VF_MAX_BURST];
	uint16_t n, sent;

	if (t->npend) {
		sent = vf_port_tx(fs->tx_port, fs->tx_queue, t->pend, t->npend);
		vf_ctr_add(fs->tx_packets, sent);
		t->npend -= sent;
		memmove(t->pend, t->pend + sent, t->npend * sizeof(t->pend[0]));
		return sent;
	}
	n = vf_fwd_gen_budget(fs);
	n = vf_fwd_gen_fill(fs, pkts, n);
	if (!fs->cfg->count) {
		fwd_tx(fs, pkts, n);
		return n;
	}
	fs->gen_left -= n;	/* n <= gen_left: the budget saw to it */
	sent = n ? vf_port_tx(fs->tx_port, fs->tx_queue, pkts, n) : 0;
	vf_ctr_add(fs->tx_packets, sent);
	t->npend = n - sent;
	memcpy(t->pend, pkts + sent, t->npend * sizeof(pkts[0]));
	return sent;
}

void vf_fwd_gen_release(struct vf_stream *fs)
{
	struct gen_tmpl *t = fs->mode_priv;

	if (!t || !t->npend)
		return;
	vf_ctr_add(fs->fwd_dropped, t->npend);
	rte_pktmbuf_free_bulk(t->pend, t->npend);
	t->npend = 0;
}

void vf_fwd_gen_init(struct vf_stream *fs)
{
	const struct vf_fwd_cfg *cfg = fs->cfg;
	struct gen_tmpl *t;

	size_t mem = vf_frames_mem_size(&cfg->txpkts, &cfg->flows, 0);
	uint32_t seg = rte_pktmbuf_data_room_size(cfg->pool) - RTE_PKTMBUF_HEADROOM;
	unsigned int max = vf_mix_max(&cfg->txpkts);
	size_t chain = vf_chain_mem_size(max, seg, VF_MAX_BURST);

	vf_fwd_gen_release(fs);
	rte_free(fs->mode_priv);
	t = rte_zmalloc("vf_tmpl", sizeof(*t) + mem + chain, RTE_CACHE_LINE_SIZE);
	fs->mode_priv = t;
	if (!t)
		return;
	vf_frames_init(&t->fr, t->mem, &cfg->txpkts, &cfg->flows, 0, fs->tx_port->mac,
		       cfg->peer[fs->tx_port->id].addr_bytes, NULL, 0);
	t->seg = seg;
	if (chain)
		vf_chain_layout(t->mem + mem, max, &t->scratch, &t->tails);
	vf_fwd_gen_pace_init(fs);
}

void vf_fwd_gen_pace_init(struct vf_stream *fs)
{
	const struct vf_fwd_cfg *cfg = fs->cfg;

	fs->gen_left = cfg->count;
	fs->tb_rate = 0;
	if (cfg->rate_pps) {
		/* The rate is shared by the generating streams. */
		fs->tb_rate = cfg->rate_pps / (fs->nb_senders ? fs->nb_senders : 1);
		if (!fs->tb_rate)
			fs->tb_rate = 1;
		fs->tb_tokens = 0;
		fs->tb_last_tsc = 0;
	}
}

uint16_t vf_fwd_gen_budget(struct vf_stream *fs)
{
	uint16_t n = fs->burst;
	/* the shell's 'set rate' may change it under us */
	if (!fs->sends)
		return 0;
	uint64_t rate = __atomic_load_n(&fs->tb_rate, __ATOMIC_RELAXED);

	if (rate) {
		/* Token bucket in units of packets x tsc_hz, so the arithmetic
		 * is exact in integers.  Its depth is 50 ms of traffic (at
		 * least a burst, and a --pattern burst): a core that was
		 * preempted catches up, burst by burst, instead of losing the
		 * time.  The constant pattern credits it evenly; the others by
		 * their schedule (pace.c). */
		const struct vf_pattern *pat = &fs->cfg->pattern;
		uint64_t now = rte_rdtsc(), hz = rte_get_tsc_hz();
		uint64_t depth = rate / 20 > fs->burst ? rate / 20 : fs->burst;
		uint64_t cap;

		if (pat->kind == VF_PATTERN_BURST && fs->pace.n > depth)
			depth = fs->pace.n;
		cap = depth * hz;
		if (pat->kind == VF_PATTERN_CONSTANT) {
			uint64_t dt = fs->tb_last_tsc ? now - fs->tb_last_tsc : 0;

			if (dt > hz)
				dt = hz;
			fs->tb_tokens += dt * rate;
		} else {
			uint64_t room = fs->tb_tokens < cap ? (cap - fs->tb_tokens) / hz : 0;

			fs->tb_tokens += vf_pace_due(&fs->pace, pat, now, hz, rate, room) * hz;
		}
		fs->tb_last_tsc = now;
		if (fs->tb_tokens > cap)
			fs->tb_tokens = cap;
		uint64_t avail = fs->tb_tokens / hz;
		if (avail < n)
			n = (uint16_t)avail;
		fs->tb_tokens -= (uint64_t)n * hz;
	}
	if (fs->cfg->count) {
		if (fs->gen_left < n)
			n = (uint16_t)fs->gen_left;
	}
	return n;
}

void vf_fwd_gen_unspend(struct vf_stream *fs, uint16_t n)
{
	if (__atomic_load_n(&fs->tb_rate, __ATOMIC_RELAXED))
		fs->tb_tokens += (uint64_t)n * rte_get_tsc_hz();	/* capped at the next budget */
}

/* A mix with frames longer than a segment: each frame whole in the
 * scratch buffer, then copied into its segments; the burst's tails come
 * from the pool at once, or the burst is dropped. */
static uint16_t gen_fill_chained(struct vf_stream *fs, struct gen_tmpl *t, struct rte_mbuf **pkts,
				 uint16_t n)
{
	unsigned int need = vf_frames_tails(&t->fr, n, t->seg), used = 0;

	if (need && vf_mbuf_alloc_bulk_len(fs->cfg->pool, t->tails, need, fs->tx_port->id, 0)) {
		rte_pktmbuf_free_bulk(pkts, n);
		vf_ctr_add(fs->fwd_dropped, n);
		return 0;
	}
	for (uint16_t i = 0; i < n; i++) {
		uint32_t flow, sum;
		uint16_t len = vf_frames_next(&t->fr, t->scratch, &flow, &sum);

		if (t->fr.v6)
			vf_frames_udp_cksum(t->scratch, t->fr.l4_off, sum);
		used += vf_chain_fill(pkts[i], t->scratch, len, t->seg, t->tails + used);
	}
	return n;
}

uint16_t vf_fwd_gen_fill(struct vf_stream *fs, struct rte_mbuf **pkts, uint16_t n)
{
	struct gen_tmpl *t = fs->mode_priv;

	if (!t || n == 0)
		return 0;
	if (vf_mbuf_alloc_bulk_len(fs->cfg->pool, pkts, n, fs->tx_port->id, t->fr.lens[0].len)) {
		vf_ctr_add(fs->fwd_dropped, n);
		return 0;
	}
	if (unlikely(t->scratch != NULL))
		return gen_fill_chained(fs, t, pkts, n);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t flow, sum;
		uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
		uint16_t len = vf_frames_next(&t->fr, d, &flow, &sum);

		if (unlikely(t->fr.v6))
			vf_frames_udp_cksum(d, t->fr.l4_off, sum);
		m->data_len = len;
		m->pkt_len = len;
	}
	return n;
}
