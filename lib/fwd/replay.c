/* replay: the frames of a capture (--pcap, read once at start by
 * vf_pcap_load into memory), sent at their recorded timing scaled by
 * --speed, or paced by --rate (and --pattern) instead, --loop times.
 *
 * Each send copies the frame from that memory into a fresh mbuf, as txonly
 * copies its template: a sent mbuf belongs to the driver, which may write
 * into it (virtio_user puts its header in the headroom), so the same mbuf
 * cannot safely go out twice.  No file access on the forwarding cores.
 *
 * With --split each stream replays its side's frames only (an index
 * array built before the run), at their times in the whole capture and
 * with the whole capture's pass length, so the two directions interleave
 * as recorded and their passes stay in step. */
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "vf_fwd_mode.h"

struct replay {
	const uint32_t *idx;	/* the capture's frames this stream sends; NULL: all */
	uint32_t n;		/* how many */
	uint32_t next;		/* the next of them to send */
	uint64_t loops;		/* passes over the capture finished */
	uint64_t t0;		/* TSC at which this pass's time 0 falls */
	double ns_per_cycle;	/* capture ns per TSC cycle: --speed / tsc_hz */
	uint64_t pass_cycles;	/* TSC cycles of one pass, gap to the next included */
	bool done;
};

/* With --split, the TSC of the run's time 0, shared by its streams: set by
 * the first to poll, zeroed by replay_init before the cores start. */
static uint64_t split_t0;

static inline const struct vf_pcap_frame *frame_at(const struct replay *r, const struct vf_pcap *cap,
						   uint32_t i)
{
	return &cap->frames[r->idx ? r->idx[i] : i];
}

/* The frames of the stream's side: streams are made in port order, so a
 * pair's first port is the one with the lower id (vf_fwd_setup).  A lone
 * port (no pair: refused before the run) sends nothing. */
static void pick_side(struct vf_stream *fs, struct replay *r)
{
	const struct vf_pcap_split *sp = fs->cfg->replay_split;
	unsigned int side = fs->tx_port->id < fs->rx_port->id ? 0 : 1;

	if (!sp) {
		r->n = fs->cfg->replay->n;
		return;
	}
	if (fs->tx_port == fs->rx_port)
		return;
	r->idx = vf_pcap_split_side(sp, side);
	r->n = sp->n[side];
}

static void replay_init(struct vf_stream *fs)
{
	const struct vf_fwd_cfg *cfg = fs->cfg;
	const struct vf_pcap *cap = cfg->replay;
	struct replay *r;
	double hz = (double)rte_get_tsc_hz(), span;

	rte_free(fs->mode_priv);
	fs->mode_priv = r = rte_zmalloc("vf_replay", sizeof(*r), RTE_CACHE_LINE_SIZE);
	if (!r)
		return;
	vf_fwd_gen_pace_init(fs);
	__atomic_store_n(&split_t0, 0, __ATOMIC_RELAXED);
	if (cap)
		pick_side(fs, r);
	if (!r->n) {
		r->done = true;
		return;
	}
	r->ns_per_cycle = cfg->replay_speed * 1e9 / hz;
	/* the next pass starts one mean gap after the last frame, so two
	 * passes do not put two frames on the same instant */
	span = (double)cap->frames[cap->n - 1].ts_ns;
	span += cap->n > 1 ? span / (cap->n - 1) : 1e6;
	r->pass_cycles = (uint64_t)(span / r->ns_per_cycle) + 1;
}

/* Time 0 of the first pass, once per stream and run: with --split the
 * same instant for every stream (the two directions on two cores keep
 * their recorded order), else the stream's first poll. */
static uint64_t first_t0(const struct vf_stream *fs, uint64_t now)
{
	uint64_t t0 = 0;

	if (!fs->cfg->replay_split ||
	    __atomic_compare_exchange_n(&split_t0, &t0, now, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return now;
	return t0;	/* another stream's, read by the failed exchange */
}

/* Frames due now, at most a burst: by the rate (and --pattern), or by the
 * recorded time of this pass's frames; --count bounds both. */
static uint16_t due(struct vf_stream *fs, struct replay *r, const struct vf_pcap *cap)
{
	uint16_t n = 0, max = fs->burst;

	if (fs->tb_rate) {
		n = vf_fwd_gen_budget(fs);	/* capped by --count already */
	} else {
		uint64_t now = rte_rdtsc();

		if (!r->t0)
			r->t0 = first_t0(fs, now);
		if (now < r->t0)
			return 0;	/* the gap before the next pass */
		double at = (double)(now - r->t0) * r->ns_per_cycle;

		if (fs->cfg->count && fs->gen_left < max)
			max = (uint16_t)fs->gen_left;
		while (n < max && r->next + n < r->n &&
		       (double)frame_at(r, cap, r->next + n)->ts_ns <= at)
			n++;
	}
	if (fs->cfg->count)
		fs->gen_left -= n;
	return n;
}

static void replay_fwd(struct vf_stream *fs)
{
	struct replay *r = fs->mode_priv;
	const struct vf_pcap *cap = fs->cfg->replay;
	struct rte_mbuf *pkts[VF_MAX_BURST];
	uint16_t n, room;
	uint64_t rearm;

	/* what comes back (through a device, or the other port of a split
	 * pair) is counted and captured, and freed: the frames are a
	 * capture's, with no stamp to measure */
	n = fwd_rx(fs, pkts);
	if (n)
		vf_mbuf_free_bulk(pkts, n);
	if (!r || r->done || __atomic_load_n(&vf__fwd_draining, __ATOMIC_RELAXED))
		return;
	n = due(fs, r, cap);
	if (!n)
		return;
	if (rte_mempool_get_bulk(fs->cfg->pool, (void **)pkts, n) < 0) {
		vf_ctr_add(fs->fwd_dropped, n);
		return;
	}
	room = rte_pktmbuf_data_room_size(fs->cfg->pool);
	rearm = vf_mbuf_rearm_word(RTE_PKTMBUF_HEADROOM < room ? RTE_PKTMBUF_HEADROOM : room,
				   fs->tx_port->id);
	/* at --rate a burst may run over the end of a pass into the next */
	for (uint16_t i = 0; i < n; i++) {
		const struct vf_pcap_frame *f = frame_at(r, cap, r->next);

		vf_mbuf_init_len(pkts[i], rearm, f->len);
		pkts[i]->tx_offload = 0;
		rte_memcpy(rte_pktmbuf_mtod(pkts[i], void *), cap->buf + f->off, f->len);
		if (++r->next < r->n)
			continue;
		r->next = 0;
		r->loops++;
		r->t0 += r->pass_cycles;
		if (fs->cfg->replay_loops && r->loops >= fs->cfg->replay_loops) {
			__atomic_store_n(&r->done, true, __ATOMIC_RELAXED);
			rte_mempool_put_bulk(fs->cfg->pool, (void **)(pkts + i + 1), n - i - 1);
			n = i + 1;
			break;
		}
	}
	fwd_tx(fs, pkts, n);
}

/* Nothing to release (mode_priv is the engine's to free); having it says
 * the mode keeps state of its own, so --tx-first leaves it alone. */
static void replay_fini(struct vf_stream *fs)
{
	(void)fs;
}

bool vf_fwd_replay_done(void)
{
	for (unsigned int i = 0; i < vf_fwd_nb_streams(); i++) {
		struct vf_stream *fs = vf_fwd_stream(i);
		const struct replay *r = fs->mode_priv;

		if (fs->priv_mode != &vf_fwd_replay)
			return false;
		if (r && !__atomic_load_n(&r->done, __ATOMIC_RELAXED))
			return false;
	}
	return vf_fwd_nb_streams() > 0;
}

const struct vf_fwd_mode vf_fwd_replay = {
	.name = "replay",
	.help = "send the frames of a capture (--pcap) at their recorded timing (--speed) or at --rate; "
		"count what comes back",
	.fwd = replay_fwd,
	.stream_init = replay_init,
	.stream_fini = replay_fini,
	.generates = true,
};
