/* Stats rendering: one description per counter set renders both the text
 * and the JSON form (through vf_out), so the two cannot drift. */
#ifndef VF_STATS_H
#define VF_STATS_H

#include <stddef.h>
#include <string.h>

#include "vf_fwd.h"
#include "vf_out.h"
#include "vf_port.h"

struct vf_rates {
	double rx_pps, tx_pps, rx_bps, tx_bps;
};

struct vf_stat_desc {
	const char *name;	/* JSON key = text label */
	size_t offset;
};

/* The DPDK telemetry /ethdev/stats names, in order. */
extern const struct vf_stat_desc vf_port_stat_descs[];
extern const unsigned int vf_port_stat_count;

/* One row of the port table, and the table (JSON keys as above). */
struct vf_port_row {
	uint64_t id;
	const char *name, *driver, *link;
	struct vf_port_stats st;
	struct vf_rates r;
};
extern const struct vf_table vf_port_table;

/* One row of the stream table. */
struct vf_stream_row {
	uint64_t id, rx_port, rx_queue, tx_port, tx_queue, lcore, rx, tx, dropped, retries;
};
extern const struct vf_table vf_stream_table;
/* Stream id, then the impair counters in struct order. */
const struct vf_table *vf_impair_table(void);

/* Rates between two snapshots dt seconds apart; bps = bytes * 8 / dt. */
void vf_stats_rates(const struct vf_port_stats *prev, const struct vf_port_stats *cur,
		    double dt, struct vf_rates *r);

void vf_stats_port_row(struct vf_port *p, const struct vf_port_stats *st,
		       const struct vf_rates *r, struct vf_port_row *row);
/* The "ports" array (JSON) or the heading of the port table (text). */
void vf_stats_port_table_begin(struct vf_out *o);
void vf_stats_port_table_end(struct vf_out *o);
/* One port as an object / a table row: id, name, driver, link, counters,
 * rates. */
void vf_stats_port(struct vf_out *o, struct vf_port *p, const struct vf_port_stats *st,
		   const struct vf_rates *r);
/* One stream as an object: ports, queues, lcore, rx, tx, dropped and the
 * non-empty entries of the burst-size histogram. */
void vf_stats_stream(struct vf_out *o, const struct vf_stream *fs);
/* The "impair" object of a stream that runs (or ran) the impair mode. */
void vf_stats_stream_impair(struct vf_out *o, const struct vf_stream *fs);
void vf_stats_stream_row(const struct vf_stream *fs, struct vf_stream_row *r);
/* Rx modes: seconds the stream's core slept and its wake-ups, since the
 * last clear (JSON "asleep_s" and "wakeups"; Prometheus
 * vf_stream_asleep_seconds_total and vf_stream_wakeups_total). */
void vf_stats_stream_sleep(const struct vf_stream *fs, double *asleep_s, uint64_t *wakeups);
/* Every stream: the "streams" array and the totals object under total_key
 * (JSON), or the stream table, burst sizes, impair table and a "total:"
 * line (text).  The totals go to *rx, *tx, *dropped (each may be NULL). */
void vf_stats_streams(struct vf_out *o, const char *total_key, uint64_t *rx, uint64_t *tx,
		      uint64_t *dropped);
/* Stream counters minus the last "clear fwd stats". */
void vf_stats_stream_counts(const struct vf_stream *fs, uint64_t *rx, uint64_t *tx,
			    uint64_t *dropped);

#endif
