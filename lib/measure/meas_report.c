/* The measuring mode's report: one description per column renders the text
 * table (a row per sending stream) and the JSON object; the HdrHistogram
 * file; the exit-status thresholds. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "vf_meas.h"

struct meas_row {
	uint64_t sent, received, lost, reordered, dups, late;
	double loss_ratio;
	struct vf_meas_lat lat;
};

/* The columns: the shared description (vf_out.h); the latency ones go
 * inside "latency_us" in JSON. */
#define R(f) offsetof(struct meas_row, f)
#define L(f) (offsetof(struct meas_row, lat) + offsetof(struct vf_meas_lat, f))
static const struct vf_col cols[] = {
	{ "sent", "sent", 12, VF_COL_U64, R(sent), NULL, NULL },
	{ "received", "received", 12, VF_COL_U64, R(received), NULL, NULL },
	{ "lost", "lost", 10, VF_COL_U64, R(lost), NULL, NULL },
	{ "loss_ratio", "loss%", 8, VF_COL_RATIO, R(loss_ratio), NULL, NULL },
	{ "reordered", "reord", 8, VF_COL_U64, R(reordered), NULL, NULL },
	{ "duplicates", "dup", 6, VF_COL_U64, R(dups), NULL, NULL },
	{ "min", "min", 9, VF_COL_US, L(min), NULL, NULL },
	{ "avg", "avg", 9, VF_COL_US, L(avg), NULL, NULL },
	{ "p50", "p50", 9, VF_COL_US, L(p50), NULL, NULL },
	{ "p90", "p90", 9, VF_COL_US, L(p90), NULL, NULL },
	{ "p99", "p99", 9, VF_COL_US, L(p99), NULL, NULL },
	{ "p99_9", "p99.9", 9, VF_COL_US, L(p999), NULL, NULL },
	{ "max", "max", 9, VF_COL_US, L(max), NULL, NULL },
	{ "jitter", "jitter", 8, VF_COL_US, L(jitter), NULL, NULL },
};
#undef R
#undef L
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

void vf_meas_latency(const struct vf_meas_stream *s, struct vf_meas_lat *l)
{
	const struct vf_hist *h = &s->hist;

	memset(l, 0, sizeof(*l));
	if (!h->count)
		return;
	l->min = (double)h->min / 1e3;
	l->avg = vf_hist_mean(h) / 1e3;
	l->p50 = (double)vf_hist_percentile(h, 50) / 1e3;
	l->p90 = (double)vf_hist_percentile(h, 90) / 1e3;
	l->p99 = (double)vf_hist_percentile(h, 99) / 1e3;
	l->p999 = (double)vf_hist_percentile(h, 99.9) / 1e3;
	l->max = (double)h->max / 1e3;
	l->jitter = s->jitter_n ? (double)s->jitter_sum / (double)s->jitter_n / 1e3 : 0;
}

static void row_of(const struct vf_meas_stream *s, struct meas_row *r)
{
	r->sent = s->sent;
	r->received = s->received;
	r->lost = s->lost;
	r->reordered = s->reordered;
	r->dups = s->dups;
	r->late = s->late;
	r->loss_ratio = s->loss_ratio;
	vf_meas_latency(s, &r->lat);
}

static void text_header(struct vf_out *o)
{
	char line[512];
	int n = snprintf(line, sizeof(line), "%-7s %-9s", "stream", "path");

	for (unsigned int c = 0; c < NCOLS && n < (int)sizeof(line); c++)
		n += snprintf(line + n, sizeof(line) - (size_t)n, " %*s", cols[c].width, cols[c].head);
	vf_out_title(o, "%s", line);
}

static void text_row(struct vf_out *o, const char *name, const char *path,
		     const struct meas_row *r, bool has_lat)
{
	char line[512];
	int n = snprintf(line, sizeof(line), "%-7s %-9s", name, path);

	for (unsigned int c = 0; c < NCOLS && n < (int)sizeof(line); c++) {
		char cell[64];

		if (cols[c].kind == VF_COL_US && !has_lat)
			snprintf(cell, sizeof(cell), "-");
		else
			vf_out_cell(cell, sizeof(cell), &cols[c], r);
		n += snprintf(line + n, sizeof(line) - (size_t)n, " %*s", cols[c].width, cell);
	}
	vf_out_title(o, "%s", line);
}

static void json_row(struct vf_out *o, const struct meas_row *r, bool has_lat)
{
	for (unsigned int c = 0; c < NCOLS; c++) {
		const void *p = (const char *)r + cols[c].off;

		if (cols[c].kind == VF_COL_US)
			continue;
		if (cols[c].kind == VF_COL_U64)
			vf_out_u64(o, cols[c].key, *(const uint64_t *)p);
		else
			vf_out_dbl(o, cols[c].key, *(const double *)p);
	}
	vf_out_u64(o, "late", r->late);
	vf_meas_lat_json(o, "latency_us", has_lat ? &r->lat : NULL);
}

void vf_meas_lat_json(struct vf_out *o, const char *name, const struct vf_meas_lat *l)
{
	vf_out_obj_begin(o, name);
	for (unsigned int c = 0; c < NCOLS && l; c++)
		if (cols[c].kind == VF_COL_US)
			vf_out_dbl(o, cols[c].key, *(const double *)((const char *)l + cols[c].off -
								    offsetof(struct meas_row, lat)));
	vf_out_obj_end(o);
}

static void json_hist(struct vf_out *o, const struct vf_hist *h)
{
	/* [lowest value of the bucket in ns, count] for each non-empty one */
	vf_out_arr_begin(o, "hist_ns");
	for (unsigned int i = 0; i < VF_HIST_NBUCKETS; i++) {
		if (!h->b[i])
			continue;
		vf_out_arr_begin(o, NULL);
		vf_out_u64(o, NULL, vf_hist_bucket_low(i));
		vf_out_u64(o, NULL, h->b[i]);
		vf_out_arr_end(o);
	}
	vf_out_arr_end(o);
}

static void text_hist(struct vf_out *o, const struct vf_hist *h)
{
	uint64_t seen = 0;

	vf_out_title(o, "  %14s %14s %12s %10s", "from us", "to us", "count", "cumul%");
	for (unsigned int i = 0; i < VF_HIST_NBUCKETS; i++) {
		if (!h->b[i])
			continue;
		seen += h->b[i];
		vf_out_title(o, "  %14.3f %14.3f %12llu %10.4f", (double)vf_hist_bucket_low(i) / 1e3,
			     (double)(vf_hist_bucket_high(i) + 1) / 1e3, (unsigned long long)h->b[i],
			     100.0 * (double)seen / (double)h->count);
	}
}

void vf_meas_report(struct vf_out *o, bool hist)
{
	bool json = vf_out_is_json(o);
	unsigned int n = vf_meas_nb_streams();
	struct vf_meas_totals tot;
	static struct vf_meas_stream s, all;	/* histograms: keep them off the stack */
	struct meas_row r;

	vf_meas_totals(&tot);
	vf_out_obj_begin(o, "measure");
	if (!json) {
		vf_out_title(o, "Measured per sending stream (latency: tx burst to rx burst, in us)");
		text_header(o);
	} else {
		vf_out_arr_begin(o, "streams");
	}
	for (unsigned int i = 0; i < n; i++) {
		char name[16], path[32];

		if (vf_meas_get(i, &s))
			continue;
		row_of(&s, &r);
		if (json) {
			vf_out_obj_begin(o, NULL);
			vf_out_u64(o, "id", s.id);
			vf_out_u64(o, "tx_port", s.tx_port);
			vf_out_u64(o, "tx_queue", s.tx_queue);
			vf_out_i64(o, "rx_port", s.rx_port);
			json_row(o, &r, s.hist.count > 0);
			if (hist)
				json_hist(o, &s.hist);
			vf_out_obj_end(o);
		} else {
			snprintf(name, sizeof(name), "%u", s.id);
			if (s.rx_port >= 0)
				snprintf(path, sizeof(path), "%u->%d", s.tx_port, s.rx_port);
			else
				snprintf(path, sizeof(path), "%u->?", s.tx_port);
			text_row(o, name, path, &r, s.hist.count > 0);
			if (hist)
				text_hist(o, &s.hist);
		}
	}
	vf_meas_sum(&all);
	row_of(&all, &r);
	if (json) {
		vf_out_arr_end(o);
		vf_out_obj_begin(o, "total");
		json_row(o, &r, all.hist.count > 0);
		vf_out_obj_end(o);
		vf_out_u64(o, "foreign", tot.foreign);
		vf_out_u64(o, "corrupt", tot.corrupt);
		vf_out_u64(o, "stale", tot.stale);
	} else {
		if (n > 1)
			text_row(o, "total", "", &r, all.hist.count > 0);
		char f[32], c[32], st[32];

		vf_out_fmt_count(f, sizeof(f), tot.foreign);
		vf_out_fmt_count(c, sizeof(c), tot.corrupt);
		vf_out_fmt_count(st, sizeof(st), tot.stale);
		vf_out_title(o, "not counted above: %s foreign, %s corrupt, %s stale frames", f, c, st);
	}
	vf_out_obj_end(o);
}

void vf_meas_sum(struct vf_meas_stream *all)
{
	static struct vf_meas_stream s;

	memset(all, 0, sizeof(*all));
	vf_hist_reset(&all->hist);
	all->rx_port = -1;
	for (unsigned int i = 0; i < vf_meas_nb_streams(); i++) {
		if (vf_meas_get(i, &s))
			continue;
		all->sent += s.sent;
		all->received += s.received;
		all->unique += s.unique;
		all->lost += s.lost;
		all->dups += s.dups;
		all->reordered += s.reordered;
		all->late += s.late;
		all->jitter_sum += s.jitter_sum;
		all->jitter_n += s.jitter_n;
		all->blocked_s += s.blocked_s / vf_meas_nb_streams();
		if (s.stall_s > all->stall_s)
			all->stall_s = s.stall_s;
		vf_hist_merge(&all->hist, &s.hist);
	}
	all->loss_ratio = all->sent ? (double)all->lost / (double)all->sent : 0.0;
}

int vf_meas_write_hist_file(const char *path)
{
	static struct vf_meas_stream all;
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -errno;
	vf_meas_sum(&all);
	ret = vf_hist_write_hdr(&all.hist, f, 1000.0);
	if (fclose(f) || ret)
		return -EIO;
	return 0;
}

int vf_meas_check(const struct vf_meas_limits *lim, const char *tool)
{
	static struct vf_meas_stream all;
	int failed = 0;

	vf_meas_sum(&all);
	if (lim->has_loss && all.loss_ratio > lim->max_loss) {
		fprintf(stderr, "%s: loss ratio %.6g (%llu of %llu lost) exceeds --max-loss %.6g by %.6g\n",
			tool, all.loss_ratio, (unsigned long long)all.lost,
			(unsigned long long)all.sent, lim->max_loss, all.loss_ratio - lim->max_loss);
		failed++;
	}
	for (unsigned int i = 0; i < lim->nb_lat; i++) {
		double us = (double)vf_hist_percentile(&all.hist, lim->lat_pct[i]) / 1e3;

		if (!all.hist.count) {
			fprintf(stderr, "%s: no latency sample for --max-latency %g:%g (nothing came back)\n",
				tool, lim->lat_pct[i], lim->lat_us[i]);
			failed++;
		} else if (us > lim->lat_us[i]) {
			fprintf(stderr, "%s: p%g latency %.3f us exceeds --max-latency %g:%g by %.3f us\n",
				tool, lim->lat_pct[i], us, lim->lat_pct[i], lim->lat_us[i],
				us - lim->lat_us[i]);
			failed++;
		}
	}
	return failed;
}
