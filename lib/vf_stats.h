/* Stats rendering: one description per counter set renders both the text
 * and the JSON form (through vf_out), so the two cannot drift. */
#ifndef VF_STATS_H
#define VF_STATS_H

#include <stddef.h>

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

/* Rates between two snapshots dt seconds apart; bps = bytes * 8 / dt. */
void vf_stats_rates(const struct vf_port_stats *prev, const struct vf_port_stats *cur,
		    double dt, struct vf_rates *r);

/* One port as an object: id, name, driver, link, counters, rates. */
void vf_stats_port(struct vf_out *o, struct vf_port *p, const struct vf_port_stats *st,
		   const struct vf_rates *r);
/* One stream as an object: ports, queues, lcore, rx, tx, dropped and the
 * non-empty entries of the burst-size histogram. */
void vf_stats_stream(struct vf_out *o, const struct vf_stream *fs);
/* The "impair" object of a stream that runs (or ran) the impair mode. */
void vf_stats_stream_impair(struct vf_out *o, const struct vf_stream *fs);
/* Stream counters minus the last "clear fwd stats". */
void vf_stats_stream_counts(const struct vf_stream *fs, uint64_t *rx, uint64_t *tx,
			    uint64_t *dropped);

#endif
