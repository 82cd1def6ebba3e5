/* measure: every stream sends stamped UDP/IPv4 or UDP/IPv6 frames (the lengths of
 * --txpkts, the flows of --flow-* and --flows, paced by --rate, bounded by
 * --count) and accounts what its rx port delivers: loss,
 * duplicates, reordering, latency (tx burst to rx burst, TSC) and jitter.
 *
 * Single writer everywhere: a stream's sender state belongs to its core;
 * the receive records live in one block per forwarding core, with one
 * record per sending stream.  The main thread reads (a burst old at
 * worst) and merges. */
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "vf_chain.h"
#include "vf_frames.h"
#include "vf_fwd_mode.h"
#include "vf_meas.h"
#include "vf_seq.h"
#include "vf_stamp.h"

#define MAX_FRAME (VF_MIX_MAX_LEN + 4)	/* --txpkts' bound (and a VLAN tag): longer is not ours */
#define SEQ_SANE (1ull << 32)	/* a jump beyond this is a forged stamp */

#include "meas_priv.h"

static uint64_t ns_mult;		/* ns = ticks * ns_mult >> 32 */

static void core_reset(struct meas_core *c, uint8_t epoch)
{
	/* the main thread reads all of it meanwhile (meas_read.c) */
	vf_ctr_set(c->epoch, epoch);
	vf_ctr_set(c->foreign, 0);
	vf_ctr_set(c->corrupt, 0);
	vf_ctr_set(c->stale, 0);
	for (unsigned int i = 0; i < c->nrec; i++) {
		struct meas_rec *r = &c->rec[i];
		vf_seq_reset(&r->seq);
		vf_ctr_set(r->jit_sum, 0);
		vf_ctr_set(r->jit_n, 0);
		r->last_lat = 0;
		vf_ctr_set(r->rx_port, -1);
		vf_hist_reset(&r->hist);
	}
}

/* The next frame of the stream's lengths and flows into f (vf_frames.h:
 * the IPv4 checksum and the UDP checksum's sum of all but the stamp kept
 * word by word, RFC 1624), the stamp's flow, epoch and sequence number;
 * returns the UDP checksum's sum of everything but the TSC, which the
 * second pass adds. */
static inline uint64_t fill_frame(struct meas_tx *t, uint8_t *f, uint16_t *lenp, uint8_t epoch)
{
	uint32_t flow, sum, fe;
	uint16_t len = vf_frames_next(&t->fr, f, &flow, &sum);
	uint64_t seq = t->seq++;
	uint8_t *st = f + t->fr.payload_off;	/* the stamp: after the UDP header */

	*lenp = len;
	fe = (flow & 0xffffff) | (uint32_t)epoch << 24;
	memcpy(st + 4, &fe, 4);
	memcpy(st + 8, &seq, 8);
	/* each term below 2^32 and a handful of them: no carry out of 64 bits */
	return (uint64_t)sum + fe + (uint32_t)seq + (seq >> 32);
}

/* fill_frame into an mbuf; a jumbo frame into its segments (the stamp
 * stays in the first, where stamp_one writes the TSC and the checksum). */
static inline uint64_t fill_one(struct meas_tx *t, struct rte_mbuf *m, uint8_t epoch)
{
	uint8_t *f = unlikely(t->scratch != NULL) ? t->scratch : rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t len;
	uint64_t psum = fill_frame(t, f, &len, epoch);

	m->data_len = len;
	m->pkt_len = len;
	if (unlikely(t->scratch != NULL))
		t->tails_used += vf_chain_fill(m, f, len, t->seg, t->tails + t->tails_used);
	return psum;
}

/* Second pass, right before the tx burst: the TSC and the checksum.  st:
 * the stamp (the frame's UDP payload). */
static inline void stamp_one(uint8_t *st, uint64_t psum, uint64_t tsc)
{
	uint32_t lo = (uint32_t)tsc;
	uint16_t hi = (uint16_t)(tsc >> 32), ck;

	memcpy(st + 16, &lo, 4);
	memcpy(st + 20, &hi, 2);
	ck = (uint16_t)~vf_csum_fold64(psum + lo + hi);
	if (ck == 0)
		ck = 0xffff;	/* 0 means "no checksum" in UDP */
	memcpy(st - 2, &ck, 2);
}

static void tx_pending(struct vf_stream *fs, struct meas_tx *t)
{
	uint64_t tsc = rte_rdtsc();
	uint16_t sent;

	for (uint16_t i = 0; i < t->npend; i++)
		stamp_one(rte_pktmbuf_mtod(t->pend[i], uint8_t *) + t->fr.payload_off, t->psum[i], tsc);
	sent = vf_port_tx(fs->tx_port, fs->tx_queue, t->pend, t->npend);
	vf_ctr_add(fs->tx_packets, sent);
	vf_ctr_add(t->sent, sent);
	t->npend -= sent;
	if (t->npend) {
		if (!t->block_start)
			t->block_start = tsc;
		memmove(t->pend, t->pend + sent, t->npend * sizeof(t->pend[0]));
		memmove(t->psum, t->psum + sent, t->npend * sizeof(t->psum[0]));
	} else if (t->block_start) {
		vf_ctr_add(t->blocked, tsc - t->block_start);
		t->block_start = 0;
	}
}

static inline void note_gap(struct meas_tx *t, uint64_t now)	/* keeps the longest */
{
	if (t->last_poll && now - t->last_poll > t->stall)
		vf_ctr_set(t->stall, now - t->last_poll);
}

/* A clear: the stream starts over in a new epoch (sequence, frames,
 * the figures of this run). */
static void tx_restart(struct meas_tx *t, uint8_t epoch)
{
	t->clear_seen = vf__meas_clear_req;
	t->epoch = epoch;
	t->seq = 0;
	vf_frames_seek(&t->fr, 0);
	vf_ctr_set(t->sent, 0);
	vf_ctr_set(t->stall, 0);
	vf_ctr_set(t->blocked, 0);
	t->block_start = 0;
}

/* The burst built straight in the tx port's buffers (vf_port.h, struct
 * vf_slot_ops): no mbuf and no second copy.  n frames of budget; what the
 * ring has no room for goes back to the budget (the mbuf path keeps such
 * frames pending instead: the same load either way).  false: the port
 * cannot take this burst in place, the mbuf path sends it. */
static bool tx_inplace(struct vf_stream *fs, struct meas_tx *t, const struct vf_slot_ops *ops,
		       uint16_t n)
{
	struct vf_slot s[VF_MAX_BURST];
	void *q = fs->tx_port->txq[fs->tx_queue];
	bool other = false;
	uint16_t got = ops->tx_get(q, s, n, t->fr.tmpl_len, &other);
	uint64_t tsc;

	if (unlikely(other))
		return false;
	if (got < n) {
		vf_fwd_gen_unspend(fs, n - got);
		if (!t->block_start)
			t->block_start = rte_rdtsc();
		if (!got)
			return true;
	}
	for (uint16_t i = 0; i < got; i++) {
		uint16_t len;

		t->psum[i] = fill_frame(t, s[i].data, &len, t->epoch);
		s[i].len = len;
	}
	tsc = rte_rdtsc();	/* as late as the mbuf path's: right before the hand-over */
	for (uint16_t i = 0; i < got; i++)
		stamp_one(s[i].data + t->fr.payload_off, t->psum[i], tsc);
	ops->tx_put(q, s, got);
	if (fs->cfg->count)
		fs->gen_left -= got;
	vf_ctr_add(fs->tx_packets, got);
	vf_ctr_add(t->sent, got);
	if (got == n && t->block_start) {
		vf_ctr_add(t->blocked, tsc - t->block_start);
		t->block_start = 0;
	}
	return true;
}

static void tx_burst(struct vf_stream *fs, struct meas_tx *t)
{
	uint16_t n, k;

	if (t->npend) {
		tx_pending(fs, t);
		return;
	}
	n = vf_fwd_gen_budget(fs);
	if (!n)
		return;
	{
		const struct vf_slot_ops *ops = fs->tx_port->slots;

		if (ops && !(fs->tx_port->capture & VF_CAP_TX) && tx_inplace(fs, t, ops, n))
			return;
	}
	/* The frames that came back first: their mbufs are ours, hot in the
	 * cache, and one pool get and put fewer per frame than a fresh one. */
	k = n < t->nspare ? n : t->nspare;
	t->nspare -= k;
	memcpy(t->pend, t->spare + t->nspare, k * sizeof(t->pend[0]));
	for (uint16_t i = 0; i < k; i++) {
		vf_mbuf_init_len(t->pend[i], t->rearm, t->fr.tmpl_len);	/* fill_one sets it */
		t->pend[i]->tx_offload = 0;
	}
	if (k < n && vf_mbuf_alloc_bulk_len(fs->cfg->pool, t->pend + k, n - k,
					    fs->tx_port->id, t->fr.tmpl_len)) {
		vf_ctr_add(fs->fwd_dropped, n - k);	/* nothing stamped: not a loss */
		n = k;
		if (!n)
			return;
	}
	if (unlikely(t->scratch != NULL)) {
		unsigned int need = vf_frames_tails(&t->fr, n, t->seg);

		t->tails_used = 0;
		if (need && vf_mbuf_alloc_bulk_len(fs->cfg->pool, t->tails, need,
						   fs->tx_port->id, 0)) {
			rte_pktmbuf_free_bulk(t->pend, n);
			vf_ctr_add(fs->fwd_dropped, n);	/* nothing stamped: not a loss */
			return;
		}
	}
	if (fs->cfg->count)
		fs->gen_left -= n;
	for (uint16_t i = 0; i < n; i++)
		t->psum[i] = fill_one(t, t->pend[i], t->epoch);
	t->npend = n;
	tx_pending(fs, t);
}

/* Received frames, accounted: those in a plain mbuf of the pool we send
 * from are kept (up to a burst) to be sent again, the rest freed. */
static void recycle(struct vf_stream *fs, struct meas_tx *t, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mempool *mp = fs->cfg->pool;
	struct rte_mbuf *drop[VF_MAX_BURST];
	uint16_t nd = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (likely(t->nspare < VF_MAX_BURST && m->pool == mp && m->nb_segs == 1 &&
			   m->next == NULL && vf_mbuf_owned(m)))
			t->spare[t->nspare++] = m;
		else
			drop[nd++] = m;
	}
	if (nd)
		vf_mbuf_free_bulk(drop, nd);
}

static void release_pending(struct vf_stream *fs, struct meas_tx *t)
{
	if (!t->npend)
		return;
	/* Stamped but never accepted: not sent, so not lost either; the
	 * sequence numbers are taken back. */
	t->seq -= t->npend;
	vf_frames_seek(&t->fr, t->seq);
	if (fs->cfg->count)
		fs->gen_left += t->npend;
	rte_pktmbuf_free_bulk(t->pend, t->npend);
	t->npend = 0;
}

/* A clear fwd stats while running: the core's records and its streams'
 * senders start over at their next burst. */
static void core_sync(struct meas_core *c)
{
	uint32_t req = vf__meas_clear_req;

	if (c->clear_seen != req) {
		c->clear_seen = req;
		core_reset(c, (uint8_t)(vf__meas_run_epoch + req));
	}
}

/* A run of frames of one stream sent in one burst: they left with one TSC
 * and arrived in one burst, so they share one latency; the histogram and
 * the jitter take the run at once (jitter inside it is 0). */
static inline void rec_run(struct meas_rec *r, uint64_t tsc, uint64_t now, uint32_t n,
			   int rx_port)
{
	uint64_t lat = (now - tsc) & VF_STAMP_TSC_MASK;

	lat = (uint64_t)(((unsigned __int128)lat * ns_mult) >> 32);
	vf_hist_add_n(&r->hist, lat, n);
	if (r->jit_n)
		vf_ctr_add(r->jit_sum, lat > r->last_lat ? lat - r->last_lat : r->last_lat - lat);
	vf_ctr_add(r->jit_n, n);
	r->last_lat = lat;
	if (r->rx_port != rx_port)
		vf_ctr_set(r->rx_port, rx_port);
}

/* Received frames of one burst in a row of one stream and one TSC: the
 * current run, closed into the records when another begins. */
struct rx_run {
	struct meas_rec *rec;
	uint64_t tsc;
	uint32_t n;
};

static inline void run_close(struct rx_run *run, uint64_t now, uint16_t rx_port)
{
	if (run->n)
		rec_run(run->rec, run->tsc, now, run->n, rx_port);
	run->n = 0;
}

/* One received frame of len bytes at d (checked, then counted); d may be a
 * peer's shared buffer: the parse bounds every read by len, a local.
 * sum_max: how much of the datagram the checksum reads (--check).
 * Forced inline: with two callers GCC made it a call per frame, and
 * measuring on null ports lost 10 % (16.4 -> 14.8 Mpps, 8 rounds). */
static inline __attribute__((always_inline)) void
rx_one(struct meas_core *c, struct rx_run *run, const uint8_t *d, uint32_t len, uint64_t now,
       uint16_t rx_port, uint32_t nflows, uint32_t sum_max)
{
	struct vf_stamp s;
	enum vf_stamp_result res = vf_stamp_parse_fast(d, len, &s, sum_max);
	struct meas_rec *r;

	if (unlikely(res != VF_STAMP_OK)) {
		if (res == VF_STAMP_FOREIGN)
			vf_ctr_add(c->foreign, 1);
		else
			vf_ctr_add(c->corrupt, 1);
		return;
	}
	if (unlikely(s.stream >= c->nrec || s.flow >= nflows)) {
		vf_ctr_add(c->corrupt, 1);
		return;
	}
	if (unlikely(s.epoch != c->epoch)) {
		run_close(run, now, rx_port);	/* a clear resets the records: close the run first */
		core_sync(c);	/* a clear this core has not seen yet */
		if (s.epoch != c->epoch) {
			vf_ctr_add(c->stale, 1);
			return;
		}
	}
	r = &c->rec[s.stream];
	if (unlikely(s.seq >= r->seq.next + SEQ_SANE)) {
		vf_ctr_add(c->corrupt, 1);
		return;
	}
	vf_seq_add(&r->seq, s.seq);
	if (likely(r == run->rec && s.tsc == run->tsc && run->n)) {
		run->n++;
		return;
	}
	run_close(run, now, rx_port);
	run->rec = r;
	run->tsc = s.tsc;
	run->n = 1;
}

static void rx_account(struct meas_core *c, struct rte_mbuf **pkts, uint16_t n,
		       uint16_t rx_port, uint32_t nflows, uint32_t sum_max)
{
	uint64_t now = rte_rdtsc() & VF_STAMP_TSC_MASK;
	struct rx_run run = { .n = 0 };
	uint8_t buf[MAX_FRAME];

	/* The whole burst's frames at once: a peer on another core wrote
	 * them last, and one miss at a time (a frame ahead) left the parse
	 * waiting on each. */
	for (uint16_t i = 0; i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
		uint32_t len = m->data_len;

		if (unlikely(m->nb_segs > 1)) {
			if (m->pkt_len > sizeof(buf)) {
				len = m->data_len;	/* too long to be ours: parse says so */
			} else {
				d = rte_pktmbuf_read(m, 0, m->pkt_len, buf);
				len = m->pkt_len;
			}
		}
		rx_one(c, &run, d, len, now, rx_port, nflows, sum_max);
	}
	run_close(&run, now, rx_port);
}

/* The rx burst read where the port's peer put it (vf_port.h, struct
 * vf_slot_ops; the driver prefetched each frame).  false: the next frame
 * cannot be read in place, the mbuf burst takes it. */
static bool rx_inplace(struct vf_stream *fs, struct meas_tx *t, const struct vf_slot_ops *ops)
{
	struct vf_slot s[VF_MAX_BURST];
	void *q = fs->rx_port->rxq[fs->rx_queue];
	bool other = false;
	uint16_t n = ops->rx_get(q, s, fs->burst, &other);

	if (unlikely(other))
		return false;
	vf_ctr_add(fs->rx_bursts[n], 1);
	vf_ctr_add(fs->rx_packets, n);
	if (n) {
		uint64_t now = rte_rdtsc() & VF_STAMP_TSC_MASK;
		struct rx_run run = { .n = 0 };

		for (uint16_t i = 0; i < n; i++)
			rx_one(t->core, &run, s[i].data, s[i].len, now, fs->rx_port->id, t->nflows,
			       t->sum_max);
		run_close(&run, now, fs->rx_port->id);
		ops->rx_put(q, s, n);
	}
	return true;
}

static void measure_fwd(struct vf_stream *fs)
{
	struct meas_tx *t = fs->mode_priv;
	struct meas_core *c = t->core;
	struct rte_mbuf *pkts[VF_MAX_BURST];
	uint16_t n;

	if (unlikely(t->clear_seen != vf__meas_clear_req)) {
		core_sync(c);
		release_pending(fs, t);
		tx_restart(t, c->epoch);
		fs->gen_left = fs->cfg->count;
	}
	if (likely(!__atomic_load_n(&vf__fwd_draining, __ATOMIC_RELAXED))) {
		uint64_t now = rte_rdtsc();

		note_gap(t, now);
		t->last_poll = now;
		tx_burst(fs, t);
	} else {
		if (t->last_poll) {	/* away until the drain began: counts too */
			uint64_t now = rte_rdtsc();

			note_gap(t, now);
			t->last_poll = 0;
			if (t->block_start)
				vf_ctr_add(t->blocked, now - t->block_start);
			t->block_start = 0;
		}
		release_pending(fs, t);
	}
	{
		const struct vf_slot_ops *ops = fs->rx_port->slots;

		if (ops && !(fs->rx_port->capture & VF_CAP_RX) && rx_inplace(fs, t, ops))
			return;
	}
	n = fwd_rx(fs, pkts);
	if (n) {
		rx_account(c, pkts, n, fs->rx_port->id, t->nflows, t->sum_max);
		recycle(fs, t, pkts, n);
	}
}

static struct meas_core *core_get(unsigned int lcore, unsigned int nrec)
{
	struct meas_core *c = vf__meas_cores[lcore];

	if (!c || c->nrec < nrec) {
		rte_free(c);
		c = rte_zmalloc("vf_meas", sizeof(*c) + nrec * sizeof(c->rec[0]),
				RTE_CACHE_LINE_SIZE);
		vf__meas_cores[lcore] = c;
		if (!c)
			return NULL;
		c->nrec = nrec;
	}
	return c;
}

static void measure_init(struct vf_stream *fs)
{
	const struct vf_fwd_cfg *cfg = fs->cfg;
	unsigned int ns = vf_fwd_nb_streams();
	uint16_t magic = VF_STAMP_MAGIC, stream = (uint16_t)fs->id;
	uint8_t payload[4];
	struct meas_tx *t;
	struct meas_core *c;
	unsigned int min_len = (cfg->flows.v6 ? VF_STAMP_MIN_FRAME6 : VF_STAMP_MIN_FRAME) +
			       (cfg->flows.vlan ? VF_FRAMES_VLAN_LEN : 0);

	if (fs->id == 0) {
		/* A new run: new epoch, every core's records empty. */
		vf__meas_run_epoch++;
		vf__meas_run_streams = ns;
		ns_mult = (uint64_t)(((unsigned __int128)1000000000u << 32) / rte_get_tsc_hz());
		for (unsigned int l = 0; l < RTE_MAX_LCORE; l++)
			if (vf__meas_cores[l]) {
				vf__meas_cores[l]->clear_seen = vf__meas_clear_req;
				core_reset(vf__meas_cores[l], vf__meas_epoch());
			}
	}
	c = core_get(fs->lcore, ns);
	if (!c)
		return;
	if (c->epoch != vf__meas_epoch() || c->clear_seen != vf__meas_clear_req) {
		c->clear_seen = vf__meas_clear_req;
		core_reset(c, vf__meas_epoch());
	}
	{
		size_t mem = vf_frames_mem_size(&cfg->txpkts, &cfg->flows, min_len);
		uint32_t seg = rte_pktmbuf_data_room_size(cfg->pool) - RTE_PKTMBUF_HEADROOM;
		unsigned int max = vf_mix_max(&cfg->txpkts);
		size_t chain = vf_chain_mem_size(max, seg, VF_MAX_BURST);

		t = rte_zmalloc("vf_meas_tx", sizeof(*t) + mem + chain, RTE_CACHE_LINE_SIZE);
		if (!t)
			return;
		t->seg = seg;
		if (chain)
			vf_chain_layout(t->mem + mem, max, &t->scratch, &t->tails);
	}
	t->core = c;
	{
		uint16_t room = rte_pktmbuf_data_room_size(cfg->pool);

		t->rearm = vf_mbuf_rearm_word(RTE_PKTMBUF_HEADROOM < room ? RTE_PKTMBUF_HEADROOM : room,
					      fs->tx_port->id);
	}
	t->epoch = vf__meas_epoch();
	t->clear_seen = vf__meas_clear_req;
	/* the stamp's magic and stream are the same in every frame: in the
	 * template, and in the checksum sums the frames keep */
	memcpy(payload, &magic, 2);
	memcpy(payload + 2, &stream, 2);
	vf_frames_init(&t->fr, t->mem, &cfg->txpkts, &cfg->flows, min_len,
		       fs->tx_port->mac, cfg->peer[fs->tx_port->id].addr_bytes, payload, sizeof(payload));
	t->nflows = t->fr.walk.n;
	t->sum_max = cfg->check_stamp ? VF_STAMP_SUM_STAMP : VF_STAMP_SUM_ALL;
	fs->mode_priv = t;
	vf_fwd_gen_pace_init(fs);	/* the token bucket and --count */
}

static void measure_fini(struct vf_stream *fs)
{
	struct meas_tx *t = fs->mode_priv;

	if (t) {
		release_pending(fs, t);
		if (t->nspare)
			rte_pktmbuf_free_bulk(t->spare, t->nspare);
		t->nspare = 0;
	}
}

const struct vf_fwd_mode vf_fwd_measure = {
	.name = "measure",
	.help = "send stamped UDP/IPv4 or IPv6 frames and measure what comes back: loss, reordering, latency",
	.fwd = measure_fwd,
	.stream_init = measure_init,
	.stream_fini = measure_fini,
	.generates = true,
	.spreads = true,
	.drains = true,
	.all_back = vf_meas_all_back,
};

void vf_meas_clear(void)
{
	if (vf_fwd_running()) {
		__atomic_add_fetch(&vf__meas_clear_req, 1, __ATOMIC_RELEASE);
		return;
	}
	vf__meas_clear_req++;
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++)
		if (vf__meas_cores[l]) {
			vf__meas_cores[l]->clear_seen = vf__meas_clear_req;
			core_reset(vf__meas_cores[l], vf__meas_epoch());
		}
	for (unsigned int i = 0; i < vf_meas_nb_streams(); i++) {
		struct vf_stream *fs = vf_fwd_stream(i);
		struct meas_tx *t = fs ? fs->mode_priv : NULL;

		if (!t || fs->cfg->mode != &vf_fwd_measure)
			continue;
		tx_restart(t, vf__meas_epoch());
	}
}

