#include "vf_stats.h"
#include "vf_impair.h"

#include <stddef.h>

#include <rte_cycles.h>

#define D(f) { #f, offsetof(struct vf_port_stats, f) }
const struct vf_stat_desc vf_port_stat_descs[] = {
	D(ipackets), D(opackets), D(ibytes), D(obytes),
	D(imissed), D(ierrors), D(oerrors), D(rx_nombuf),
};
#undef D
const unsigned int vf_port_stat_count =
	sizeof(vf_port_stat_descs) / sizeof(vf_port_stat_descs[0]);

_Static_assert(sizeof(struct vf_port_stats) == 8 * sizeof(uint64_t),
	       "vf_port_stat_descs must list every counter");

/* The port table: JSON keys in the order of the JSON schema (counters,
 * then rates); text: counters left, rates right. */
#define P(f) offsetof(struct vf_port_row, f)
#define S(f) (offsetof(struct vf_port_row, st) + offsetof(struct vf_port_stats, f))
#define R(f) (offsetof(struct vf_port_row, r) + offsetof(struct vf_rates, f))
static const struct vf_col port_cols[] = {
	{ "id", "port", 4, VF_COL_U64, P(id), NULL, NULL },
	{ "name", "name", 10, VF_COL_STR, P(name), NULL, NULL },
	{ "driver", "driver", 7, VF_COL_STR, P(driver), NULL, NULL },
	{ "link", "link", 4, VF_COL_STR, P(link), NULL, NULL },
	{ "ipackets", "rx-pkts", 15, VF_COL_U64, S(ipackets), "rx_packets", "Packets received" },
	{ "opackets", "tx-pkts", 15, VF_COL_U64, S(opackets), "tx_packets", "Packets sent" },
	{ "ibytes", "rx-bytes", 8, VF_COL_BYTES, S(ibytes), "rx_bytes", "Bytes received" },
	{ "obytes", "tx-bytes", 8, VF_COL_BYTES, S(obytes), "tx_bytes", "Bytes sent" },
	{ "imissed", "missed", 7, VF_COL_U64, S(imissed), "rx_missed", "Packets the rx ring had no room for" },
	{ "ierrors", "rx-err", 6, VF_COL_U64, S(ierrors), "rx_errors", "Erroneous received packets" },
	{ "oerrors", "tx-err", 6, VF_COL_U64, S(oerrors), "tx_errors", "Packets that failed to send" },
	{ "rx_nombuf", "nombuf", 7, VF_COL_U64, S(rx_nombuf), "rx_nombuf", "Receive mbuf allocation failures" },
	{ "rx_pps", "rx-rate", 10, VF_COL_PPS, R(rx_pps), NULL, NULL },
	{ "tx_pps", "tx-rate", 10, VF_COL_PPS, R(tx_pps), NULL, NULL },
	{ "rx_bps", "rx-Gb/s", 7, VF_COL_BPS, R(rx_bps), NULL, NULL },
	{ "tx_bps", "tx-Gb/s", 7, VF_COL_BPS, R(tx_bps), NULL, NULL },
};
#undef P
#undef S
#undef R
const struct vf_table vf_port_table = VF_TABLE(port_cols);

#define F(f) offsetof(struct vf_stream_row, f)
static const struct vf_col stream_cols[] = {
	{ "id", "stream", 6, VF_COL_U64, F(id), NULL, NULL },
	{ "rx_port", "rx-port", 7, VF_COL_U64, F(rx_port), NULL, NULL },
	{ "rx_queue", "rxq", 3, VF_COL_U64, F(rx_queue), NULL, NULL },
	{ "tx_port", "tx-port", 7, VF_COL_U64, F(tx_port), NULL, NULL },
	{ "tx_queue", "txq", 3, VF_COL_U64, F(tx_queue), NULL, NULL },
	{ "lcore", "lcore", 5, VF_COL_U64, F(lcore), NULL, NULL },
	{ "rx", "rx-pkts", 15, VF_COL_U64, F(rx), "rx_packets", "Packets the stream received" },
	{ "tx", "tx-pkts", 15, VF_COL_U64, F(tx), "tx_packets", "Packets the stream sent" },
	{ "dropped", "dropped", 13, VF_COL_U64, F(dropped), "dropped_packets", "Packets the stream dropped (tx refused or the mode dropped them)" },
	{ "tx_retries", "retries", 9, VF_COL_U64, F(retries), "tx_retries", "Tx calls repeated on frames a full ring refused (--tx-retry)" },
};
#undef F
const struct vf_table vf_stream_table = VF_TABLE(stream_cols);

/* The impair counters: a column each, after the stream id. */
static struct vf_col impair_cols[1 + VF_IMPAIR_NB_COUNTERS];
static struct vf_table impair_table;

const struct vf_table *vf_impair_table(void)
{
	if (!impair_table.n) {
		impair_cols[0] = (struct vf_col){ "id", "stream", 6, VF_COL_U64, 0, NULL, NULL };
		for (unsigned int i = 0; i < VF_IMPAIR_NB_COUNTERS; i++)
			impair_cols[1 + i] = (struct vf_col){
				vf_impair_counter_names[i], vf_impair_counter_names[i],
				(int)strlen(vf_impair_counter_names[i]) < 9 ? 9
					: (int)strlen(vf_impair_counter_names[i]),
				VF_COL_U64, sizeof(uint64_t) * (1 + i), vf_impair_counter_names[i], NULL,
			};
		impair_table.cols = impair_cols;
		impair_table.n = 1 + VF_IMPAIR_NB_COUNTERS;
	}
	return &impair_table;
}

void vf_stats_rates(const struct vf_port_stats *prev, const struct vf_port_stats *cur,
		    double dt, struct vf_rates *r)
{
	if (dt <= 0) {
		r->rx_pps = r->tx_pps = r->rx_bps = r->tx_bps = 0;
		return;
	}
	/* Counters may go "backwards" after a clear: report 0, not 2^64. */
#define DIFF(f) (cur->f >= prev->f ? (double)(cur->f - prev->f) : 0.0)
	r->rx_pps = DIFF(ipackets) / dt;
	r->tx_pps = DIFF(opackets) / dt;
	r->rx_bps = DIFF(ibytes) * 8.0 / dt;
	r->tx_bps = DIFF(obytes) * 8.0 / dt;
#undef DIFF
}

void vf_stats_port_row(struct vf_port *p, const struct vf_port_stats *st,
		       const struct vf_rates *r, struct vf_port_row *row)
{
	struct vf_link link;

	vf_port_link(p, &link);
	row->id = p->id;
	row->name = p->name;
	row->driver = p->drv->name;
	row->link = link.up ? "up" : "down";
	row->st = *st;
	row->r = *r;
}

void vf_stats_port_table_begin(struct vf_out *o)
{
	vf_out_table_begin(o, "ports", &vf_port_table);
}

void vf_stats_port_table_end(struct vf_out *o)
{
	vf_out_table_end(o);
}

void vf_stats_port(struct vf_out *o, struct vf_port *p, const struct vf_port_stats *st,
		   const struct vf_rates *r)
{
	struct vf_port_row row;

	vf_stats_port_row(p, st, r, &row);
	vf_out_row_begin(o, &vf_port_table, &row);
	vf_out_row_end(o);
}

void vf_stats_stream_counts(const struct vf_stream *fs, uint64_t *rx, uint64_t *tx,
			    uint64_t *dropped)
{
	*rx = vf_ctr_read(fs->rx_packets) - fs->stats_base[0];
	*tx = vf_ctr_read(fs->tx_packets) - fs->stats_base[1];
	*dropped = vf_ctr_read(fs->fwd_dropped) - fs->stats_base[2];
}

void vf_stats_stream_row(const struct vf_stream *fs, struct vf_stream_row *r)
{
	r->id = fs->id;
	r->rx_port = fs->rx_port->id;
	r->rx_queue = fs->rx_queue;
	r->tx_port = fs->tx_port->id;
	r->tx_queue = fs->tx_queue;
	r->lcore = fs->lcore;
	vf_stats_stream_counts(fs, &r->rx, &r->tx, &r->dropped);
	r->retries = vf_ctr_read(fs->tx_retries) - fs->stats_base[3];
}

/* --record-core-cycles figures since the last clear. */
struct stream_cycles {
	uint64_t poll, busy;
	double busy_pct, per_pkt;
};

/* False when the stream's polls were not timed. */
static bool stream_cycles(const struct vf_stream *fs, struct stream_cycles *c)
{
	uint64_t rx, tx, drop;

	c->poll = vf_ctr_read(fs->poll_cycles) - fs->cycles_base[0];
	c->busy = vf_ctr_read(fs->busy_cycles) - fs->cycles_base[1];
	if (!c->poll)
		return false;
	vf_stats_stream_counts(fs, &rx, &tx, &drop);
	/* Per packet received; a generator's per packet sent. */
	rx = rx ? rx : tx;
	c->per_pkt = rx ? (double)c->busy / (double)rx : 0.0;
	c->busy_pct = 100.0 * (double)c->busy / (double)c->poll;
	return true;
}

void vf_stats_stream_sleep(const struct vf_stream *fs, double *asleep_s, uint64_t *wakeups)
{
	*asleep_s = (double)(vf_ctr_read(fs->sleep_cycles) - fs->sleep_base[0]) /
		    (double)rte_get_tsc_hz();
	*wakeups = vf_ctr_read(fs->wakeups) - fs->sleep_base[1];
}

static uint64_t burst_count(const struct vf_stream *fs, unsigned int b)
{
	return vf_ctr_read(fs->rx_bursts[b]) - (fs->bursts_base ? fs->bursts_base[b] : 0);
}

void vf_stats_stream(struct vf_out *o, const struct vf_stream *fs)
{
	struct vf_stream_row row;
	struct stream_cycles cy;
	char key[8];
	double asleep;
	uint64_t wakeups;

	vf_stats_stream_row(fs, &row);
	vf_out_row_begin(o, &vf_stream_table, &row);
	if (vf_out_is_json(o)) {
		/* Keys are burst sizes; 0 counts polls that found nothing. */
		vf_out_obj_begin(o, "rx_bursts");
		for (unsigned int b = 0; b <= fs->burst && b <= VF_MAX_BURST; b++) {
			uint64_t v = burst_count(fs, b);
			if (!v)
				continue;
			snprintf(key, sizeof(key), "%u", b);
			vf_out_u64(o, key, v);
		}
		vf_out_obj_end(o);
		if (stream_cycles(fs, &cy)) {
			vf_out_u64(o, "poll_cycles", cy.poll);
			vf_out_u64(o, "busy_cycles", cy.busy);
			vf_out_dbl(o, "busy_pct", cy.busy_pct);
			vf_out_dbl(o, "cycles_per_pkt", cy.per_pkt);
		}
		vf_stats_stream_sleep(fs, &asleep, &wakeups);
		if (wakeups) {
			vf_out_dbl(o, "asleep_s", asleep);
			vf_out_u64(o, "wakeups", wakeups);
		}
		vf_stats_stream_impair(o, fs);
	}
	vf_out_row_end(o);
}

/* The impair mode's counters, for a stream that runs (or ran) it. */
void vf_stats_stream_impair(struct vf_out *o, const struct vf_stream *fs)
{
	struct vf_impair_counters c;
	const uint64_t *v = (const uint64_t *)&c;

	if (!vf_fwd_impair_counters(fs, &c))
		return;
	vf_out_obj_begin(o, "impair");
	for (unsigned int i = 0; i < VF_IMPAIR_NB_COUNTERS; i++)
		vf_out_u64(o, vf_impair_counter_names[i], v[i]);
	vf_out_obj_end(o);
}

/* Text: the burst sizes of each stream on one line, the impair table. */
static void streams_text_extra(struct vf_out *o)
{
	bool any_impair = false;

	for (unsigned int i = 0; i < vf_fwd_nb_streams(); i++) {
		const struct vf_stream *fs = vf_fwd_stream(i);
		char line[1024];
		size_t n = 0;
		uint64_t polls = 0, pkts = 0, bursts = 0, wakeups;
		struct stream_cycles cy;
		double asleep;

		for (unsigned int b = 0; b <= fs->burst && b <= VF_MAX_BURST; b++) {
			uint64_t v = burst_count(fs, b);

			polls += v;
			if (b) {
				bursts += v;
				pkts += v * b;
			}
		}
		if (!polls)
			continue;
		n = (size_t)snprintf(line, sizeof(line), "stream %u rx bursts: %.1f packets per burst, %.1f%% of polls empty; size:count",
				     fs->id, bursts ? (double)pkts / (double)bursts : 0.0,
				     100.0 * (double)burst_count(fs, 0) / (double)polls);
		for (unsigned int b = 1; b <= fs->burst && b <= VF_MAX_BURST && n < sizeof(line); b++) {
			uint64_t v = burst_count(fs, b);
			char c[32];

			if (!v)
				continue;
			vf_out_fmt_count(c, sizeof(c), v);
			n += (size_t)snprintf(line + n, sizeof(line) - n, " %u:%s", b, c);
		}
		vf_out_title(o, "%s", line);
		vf_stats_stream_sleep(fs, &asleep, &wakeups);
		if (wakeups) {
			char w[32];

			vf_out_fmt_count(w, sizeof(w), wakeups);
			vf_out_title(o, "stream %u rx mode: its core slept %.3f s (%.1f%% of the run), woke %s times",
				     fs->id, asleep, vf_fwd_elapsed() > 0 ? 100.0 * asleep / vf_fwd_elapsed() : 0.0, w);
		}
		if (stream_cycles(fs, &cy))
			vf_out_title(o, "stream %u cycles: %.1f%% of polling time busy, %.1f busy cycles per packet (TSC %.2f GHz)",
				     fs->id, cy.busy_pct, cy.per_pkt, (double)rte_get_tsc_hz() / 1e9);
	}
	for (unsigned int i = 0; i < vf_fwd_nb_streams(); i++) {
		struct { uint64_t id; struct vf_impair_counters c; } row;
		const struct vf_stream *fs = vf_fwd_stream(i);

		if (!vf_fwd_impair_counters(fs, &row.c))
			continue;
		if (!any_impair) {
			vf_out_title(o, "impair:");
			vf_out_table_begin(o, NULL, vf_impair_table());
			any_impair = true;
		}
		row.id = fs->id;
		vf_out_row_fields(o, vf_impair_table(), &row);
	}
}

void vf_stats_streams(struct vf_out *o, const char *total_key, uint64_t *trx, uint64_t *ttx,
		      uint64_t *tdrop)
{
	uint64_t rx = 0, tx = 0, drop = 0;
	char a[32], b[32], c[32];

	vf_out_table_begin(o, "streams", &vf_stream_table);
	for (unsigned int i = 0; i < vf_fwd_nb_streams(); i++) {
		uint64_t r, t, d;

		vf_stats_stream_counts(vf_fwd_stream(i), &r, &t, &d);
		rx += r;
		tx += t;
		drop += d;
		vf_stats_stream(o, vf_fwd_stream(i));
	}
	vf_out_table_end(o);
	if (vf_out_is_json(o)) {
		vf_out_obj_begin(o, total_key);
		vf_out_u64(o, "rx", rx);
		vf_out_u64(o, "tx", tx);
		vf_out_u64(o, "dropped", drop);
		vf_out_obj_end(o);
	} else {
		streams_text_extra(o);
		vf_out_fmt_count(a, sizeof(a), rx);
		vf_out_fmt_count(b, sizeof(b), tx);
		vf_out_fmt_count(c, sizeof(c), drop);
		vf_out_title(o, "total: rx %s, tx %s, dropped %s", a, b, c);
	}
	if (trx)
		*trx = rx;
	if (ttx)
		*ttx = tx;
	if (tdrop)
		*tdrop = drop;
}
