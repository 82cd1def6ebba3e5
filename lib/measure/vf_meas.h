/* The measuring mode's results, read on the main thread.
 *
 * Each stream of `--fwd measure` sends stamped frames (vf_stamp.h) on its
 * tx port and accounts every frame its rx port delivers, whichever stream
 * sent it: per forwarding core, one record per sending stream (sequence
 * window, latency histogram, jitter), so that nothing on the data path is
 * shared between cores.  Readers merge the cores' records. */
#ifndef VF_MEAS_H
#define VF_MEAS_H

#include <stdbool.h>
#include <stdint.h>

#include "vf_hist.h"
#include "vf_out.h"

/* One sending stream, merged over the receiving cores. */
struct vf_meas_stream {
	unsigned int id;
	uint16_t tx_port, tx_queue;
	int rx_port;		/* the port its frames came back on, -1: none yet */
	uint64_t sent, received, unique, lost, dups, reordered, late;
	double loss_ratio;	/* lost / sent, 0 when nothing was sent */
	uint64_t jitter_sum, jitter_n;	/* |latency(n) - latency(n-1)|, ns */
	double stall_s;		/* longest gap between its core's sending polls
				 * (the sum: the longest of any stream) */
	double blocked_s;	/* time its port kept frames waiting (ring full);
				 * the sum: the mean over the streams */
	struct vf_hist hist;	/* latency in ns */
};

struct vf_meas_totals {
	uint64_t foreign;	/* frames without our stamp */
	uint64_t corrupt;	/* our magic, but cut short, bad checksum, bad ids */
	uint64_t stale;		/* stamped by an earlier run or before a clear */
};

/* Streams of the current (or last) measuring run; 0 when none ran. */
unsigned int vf_meas_nb_streams(void);
/* Fills *s for stream i (merging cores).  Returns 0, or -1 if none. */
int vf_meas_get(unsigned int i, struct vf_meas_stream *s);
void vf_meas_totals(struct vf_meas_totals *t);
/* All streams together (hist merged); ports as -1. */
void vf_meas_sum(struct vf_meas_stream *all);
/* Zeroes the figures; while running the cores switch at their next burst
 * and frames stamped before it count as stale. */
void vf_meas_clear(void);
/* True when every stream sent its --count (and so the run can end). */
bool vf_meas_all_sent(void);
/* Every stream that sends has had every frame it sent back (unique). */
bool vf_meas_all_back(void);

/* Output: the "measure" object (streams, totals); hist adds each stream's
 * non-empty histogram buckets. */
void vf_meas_report(struct vf_out *o, bool hist);
/* Latency of all streams in HdrHistogram's text format (microseconds). */
int vf_meas_write_hist_file(const char *path);

/* Threshold checks for the exit status: returns how many failed, and
 * prints one line per failure to stderr (prefixed with tool). */
struct vf_meas_limits {
	bool has_loss;
	double max_loss;
	unsigned int nb_lat;
	double lat_pct[8];
	double lat_us[8];
};
int vf_meas_check(const struct vf_meas_limits *lim, const char *tool);

/* Latency figures of one merged record, in microseconds. */
struct vf_meas_lat {
	double min, avg, p50, p90, p99, p999, max, jitter;
};
void vf_meas_latency(const struct vf_meas_stream *s, struct vf_meas_lat *l);
/* l as the JSON object name (keys from measure's one column description;
 * l NULL: an empty object, no sample). */
struct vf_out;
void vf_meas_lat_json(struct vf_out *o, const char *name, const struct vf_meas_lat *l);

/* The modes (mode_measure.c, mode_impair.c), registered by modes.c. */
struct vf_fwd_mode;
extern const struct vf_fwd_mode vf_fwd_measure;
extern const struct vf_fwd_mode vf_fwd_impair;

#endif
