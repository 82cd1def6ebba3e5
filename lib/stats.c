#include "vf_stats.h"

#include <stddef.h>

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

static uint64_t field(const struct vf_port_stats *st, unsigned int i)
{
	return *(const uint64_t *)((const char *)st + vf_port_stat_descs[i].offset);
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

void vf_stats_port(struct vf_out *o, struct vf_port *p, const struct vf_port_stats *st,
		   const struct vf_rates *r)
{
	struct vf_link link;

	vf_port_link(p, &link);
	vf_out_obj_begin(o, NULL);
	vf_out_title(o, "Port %u (%s, driver %s) link %s", p->id, p->name, p->drv->name,
		     link.up ? "up" : "down");
	vf_out_u64(o, "id", p->id);
	vf_out_str(o, "name", p->name);
	vf_out_str(o, "driver", p->drv->name);
	vf_out_str(o, "link", link.up ? "up" : "down");
	for (unsigned int i = 0; i < vf_port_stat_count; i++)
		vf_out_u64(o, vf_port_stat_descs[i].name, field(st, i));
	vf_out_dbl(o, "rx_pps", r->rx_pps);
	vf_out_dbl(o, "tx_pps", r->tx_pps);
	vf_out_dbl(o, "rx_bps", r->rx_bps);
	vf_out_dbl(o, "tx_bps", r->tx_bps);
	vf_out_obj_end(o);
}

void vf_stats_stream_counts(const struct vf_stream *fs, uint64_t *rx, uint64_t *tx,
			    uint64_t *dropped)
{
	*rx = fs->rx_packets - fs->stats_base[0];
	*tx = fs->tx_packets - fs->stats_base[1];
	*dropped = fs->fwd_dropped - fs->stats_base[2];
}

void vf_stats_stream(struct vf_out *o, const struct vf_stream *fs)
{
	uint64_t rx, tx, dropped;
	char key[8];

	vf_stats_stream_counts(fs, &rx, &tx, &dropped);
	vf_out_obj_begin(o, NULL);
	vf_out_title(o, "Stream %u: port %u/queue %u -> port %u/queue %u on lcore %u",
		     fs->id, fs->rx_port->id, fs->rx_queue, fs->tx_port->id,
		     fs->tx_queue, fs->lcore);
	vf_out_u64(o, "id", fs->id);
	vf_out_u64(o, "rx_port", fs->rx_port->id);
	vf_out_u64(o, "rx_queue", fs->rx_queue);
	vf_out_u64(o, "tx_port", fs->tx_port->id);
	vf_out_u64(o, "tx_queue", fs->tx_queue);
	vf_out_u64(o, "lcore", fs->lcore);
	vf_out_u64(o, "rx", rx);
	vf_out_u64(o, "tx", tx);
	vf_out_u64(o, "dropped", dropped);
	/* Keys are burst sizes; 0 counts polls that found nothing. */
	vf_out_obj_begin(o, "rx_bursts");
	for (unsigned int b = 0; b <= fs->burst && b <= VF_MAX_BURST; b++) {
		uint64_t v = fs->rx_bursts[b] - (fs->bursts_base ? fs->bursts_base[b] : 0);
		if (!v)
			continue;
		snprintf(key, sizeof(key), "%u", b);
		vf_out_u64(o, key, v);
	}
	vf_out_obj_end(o);
	vf_stats_stream_impair(o, fs);
	vf_out_obj_end(o);
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
