/* Prometheus exposition: reads what the stats, the ports and the measuring
 * mode expose; the column tables carry the metric names (vf_stats.h). */
#include "vf_prom.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vf_capture.h"
#include "vf_impair.h"
#include "vf_meas.h"
#include "vf_stats.h"

/* A label value with \, " and newline escaped. */
static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*s, f);
	}
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP vf_%s %s\n# TYPE vf_%s %s\n", name, help, name, type);
}

static void port_labels(FILE *f, const char *tool, const struct vf_port *p)
{
	fputs("{tool=\"", f);
	esc(f, tool);
	fprintf(f, "\",port=\"%u\",name=\"", p->id);
	esc(f, p->name);
	fputs("\",driver=\"", f);
	esc(f, p->drv->name);
	fputs("\"", f);
}

static void ports(FILE *f, const char *tool)
{
	struct vf_port_row rows[VF_MAX_PORTS];
	struct vf_port *pp[VF_MAX_PORTS];
	unsigned int n = 0;

	for (uint16_t i = 0; i < vf_port_count(); i++) {
		struct vf_port *p = vf_port_get(i);
		struct vf_port_stats st;
		struct vf_rates r = { 0 };

		if (!p)
			continue;
		vf_port_stats(p, &st);
		vf_stats_port_row(p, &st, &r, &rows[n]);
		pp[n++] = p;
	}
	family(f, "port_link_up", "gauge", "1 when the port's link is up");
	for (unsigned int i = 0; i < n; i++) {
		fputs("vf_port_link_up", f);
		port_labels(f, tool, pp[i]);
		fprintf(f, "} %d\n", !strcmp(rows[i].link, "up"));
	}
	for (unsigned int c = 0; c < vf_port_table.n; c++) {
		const struct vf_col *col = &vf_port_table.cols[c];
		char name[96];

		if (!col->prom)
			continue;
		snprintf(name, sizeof(name), "port_%s_total", col->prom);
		family(f, name, "counter", col->help);
		for (unsigned int i = 0; i < n; i++) {
			fprintf(f, "vf_%s", name);
			port_labels(f, tool, pp[i]);
			fprintf(f, "} %" PRIu64 "\n", *(const uint64_t *)((const char *)&rows[i] + col->off));
		}
	}
	/* driver xstats: one family, the counter's name as a label */
	family(f, "port_xstat_total", "counter", "The driver's extended statistics (show port xstats)");
	for (unsigned int i = 0; i < n; i++) {
		int m = vf_port_xstats(pp[i], NULL, 0), got;
		struct vf_xstat *xs = m > 0 ? calloc((size_t)m, sizeof(*xs)) : NULL;

		got = xs ? vf_port_xstats(pp[i], xs, (unsigned int)m) : 0;
		for (int k = 0; k < got && k < m; k++) {
			fputs("vf_port_xstat_total", f);
			port_labels(f, tool, pp[i]);
			fputs(",xstat=\"", f);
			esc(f, xs[k].name);
			fprintf(f, "\"} %" PRIu64 "\n", xs[k].value);
		}
		free(xs);
	}
}

static void stream_labels(FILE *f, const char *tool, const struct vf_stream_row *r)
{
	fputs("{tool=\"", f);
	esc(f, tool);
	fprintf(f, "\",stream=\"%" PRIu64 "\",rx_port=\"%" PRIu64 "\",tx_port=\"%" PRIu64
		"\",lcore=\"%" PRIu64 "\"", r->id, r->rx_port, r->tx_port, r->lcore);
}

/* The rx modes' two counters per stream: seconds asleep, or wake-ups. */
static void stream_sleep(FILE *f, const char *tool, unsigned int n, bool wakeups)
{
	const char *name = wakeups ? "stream_wakeups_total" : "stream_asleep_seconds_total";

	family(f, name, "counter", wakeups ? "Times the stream's core woke from a sleep (rx modes)" :
	       "Seconds the stream's core slept (rx modes)");
	for (unsigned int i = 0; i < n; i++) {
		struct vf_stream_row r;
		double s;
		uint64_t w;

		vf_stats_stream_row(vf_fwd_stream(i), &r);
		vf_stats_stream_sleep(vf_fwd_stream(i), &s, &w);
		fprintf(f, "vf_%s", name);
		stream_labels(f, tool, &r);
		if (wakeups)
			fprintf(f, "} %" PRIu64 "\n", w);
		else
			fprintf(f, "} %.6f\n", s);
	}
}

static void streams(FILE *f, const char *tool)
{
	unsigned int n = vf_fwd_nb_streams();
	const struct vf_table *it = vf_impair_table();

	for (unsigned int c = 0; c < vf_stream_table.n; c++) {
		const struct vf_col *col = &vf_stream_table.cols[c];
		char name[96];

		if (!col->prom)
			continue;
		snprintf(name, sizeof(name), "stream_%s_total", col->prom);
		family(f, name, "counter", col->help);
		for (unsigned int i = 0; i < n; i++) {
			struct vf_stream_row r;

			vf_stats_stream_row(vf_fwd_stream(i), &r);
			fprintf(f, "vf_%s", name);
			stream_labels(f, tool, &r);
			fprintf(f, "} %" PRIu64 "\n", *(const uint64_t *)((const char *)&r + col->off));
		}
	}
	/* the impair mode's counters, for the streams that run it */
	for (unsigned int c = 1; c < it->n; c++) {
		bool head = false;
		char name[96];

		snprintf(name, sizeof(name), "stream_impair_%s_total", it->cols[c].key);
		for (unsigned int i = 0; i < n; i++) {
			struct vf_impair_counters ic;
			struct vf_stream_row r;

			if (!vf_fwd_impair_counters(vf_fwd_stream(i), &ic))
				continue;
			if (!head) {
				family(f, name, "counter", "Impair mode counter (show fwd stats: impair)");
				head = true;
			}
			vf_stats_stream_row(vf_fwd_stream(i), &r);
			fprintf(f, "vf_%s", name);
			stream_labels(f, tool, &r);
			fprintf(f, "} %" PRIu64 "\n", ((const uint64_t *)&ic)[c - 1]);
		}
	}
	/* rx modes: what each stream's core slept (0 where it polls) */
	stream_sleep(f, tool, n, false);
	stream_sleep(f, tool, n, true);
	family(f, "fwd_running", "gauge", "1 while forwarding runs");
	fprintf(f, "vf_fwd_running{tool=\"%s\"} %d\n", tool, vf_fwd_running() ? 1 : 0);
	family(f, "fwd_elapsed_seconds", "gauge", "Seconds of forwarding of the current (or last) run");
	fprintf(f, "vf_fwd_elapsed_seconds{tool=\"%s\"} %.6f\n", tool, vf_fwd_elapsed());
}

static void meas_labels(FILE *f, const char *tool, const struct vf_meas_stream *s)
{
	fprintf(f, "{tool=\"%s\",stream=\"%u\",tx_port=\"%u\",rx_port=\"%d\"", tool, s->id,
		s->tx_port, s->rx_port);
}

/* The measuring mode: loss and latency per sending stream. */
static void measure(FILE *f, const char *tool)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} cnt[] = {
		{ "sent", "Stamped frames sent", offsetof(struct vf_meas_stream, sent) },
		{ "received", "Stamped frames received", offsetof(struct vf_meas_stream, received) },
		{ "lost", "Frames sent and not received", offsetof(struct vf_meas_stream, lost) },
		{ "reordered", "Frames received out of order", offsetof(struct vf_meas_stream, reordered) },
		{ "duplicates", "Frames received more than once", offsetof(struct vf_meas_stream, dups) },
		{ "late", "Frames older than the sequence window", offsetof(struct vf_meas_stream, late) },
	};
	static const struct {
		const char *q;
		size_t off;
	} qs[] = {
		{ "0.5", offsetof(struct vf_meas_lat, p50) },
		{ "0.9", offsetof(struct vf_meas_lat, p90) },
		{ "0.99", offsetof(struct vf_meas_lat, p99) },
		{ "0.999", offsetof(struct vf_meas_lat, p999) },
	};
	static struct vf_meas_stream s;	/* a histogram: off the stack */
	unsigned int n = vf_meas_nb_streams();
	struct vf_meas_totals tot;
	char name[64];

	if (!n)
		return;
	for (unsigned int c = 0; c < sizeof(cnt) / sizeof(cnt[0]); c++) {
		snprintf(name, sizeof(name), "measure_%s_total", cnt[c].name);
		family(f, name, "counter", cnt[c].help);
		for (unsigned int i = 0; i < n; i++) {
			if (vf_meas_get(i, &s))
				continue;
			fprintf(f, "vf_%s", name);
			meas_labels(f, tool, &s);
			fprintf(f, "} %" PRIu64 "\n", *(const uint64_t *)((const char *)&s + cnt[c].off));
		}
	}
	family(f, "measure_loss_ratio", "gauge", "Lost over sent");
	for (unsigned int i = 0; i < n; i++) {
		if (vf_meas_get(i, &s))
			continue;
		fputs("vf_measure_loss_ratio", f);
		meas_labels(f, tool, &s);
		fprintf(f, "} %.9g\n", s.loss_ratio);
	}
	family(f, "measure_latency_seconds", "summary",
	       "Latency from the tx burst to the rx burst");
	for (unsigned int i = 0; i < n; i++) {
		struct vf_meas_lat l;

		if (vf_meas_get(i, &s))
			continue;
		vf_meas_latency(&s, &l);
		for (unsigned int q = 0; q < sizeof(qs) / sizeof(qs[0]) && s.hist.count; q++) {
			fputs("vf_measure_latency_seconds", f);
			meas_labels(f, tool, &s);
			fprintf(f, ",quantile=\"%s\"} %.9g\n", qs[q].q,
				*(const double *)((const char *)&l + qs[q].off) / 1e6);
		}
		fputs("vf_measure_latency_seconds_sum", f);
		meas_labels(f, tool, &s);
		fprintf(f, "} %.9g\n", l.avg * (double)s.hist.count / 1e6);
		fputs("vf_measure_latency_seconds_count", f);
		meas_labels(f, tool, &s);
		fprintf(f, "} %" PRIu64 "\n", (uint64_t)s.hist.count);
	}
	{
		static const struct {
			const char *name, *help;
			size_t off;
		} g[] = {
			{ "min", "Lowest latency", offsetof(struct vf_meas_lat, min) },
			{ "max", "Highest latency", offsetof(struct vf_meas_lat, max) },
			{ "jitter", "Mean difference of consecutive latencies", offsetof(struct vf_meas_lat, jitter) },
		};

		for (unsigned int k = 0; k < sizeof(g) / sizeof(g[0]); k++) {
			snprintf(name, sizeof(name), "measure_latency_%s_seconds", g[k].name);
			family(f, name, "gauge", g[k].help);
			for (unsigned int i = 0; i < n; i++) {
				struct vf_meas_lat l;

				if (vf_meas_get(i, &s) || !s.hist.count)
					continue;
				vf_meas_latency(&s, &l);
				fprintf(f, "vf_%s", name);
				meas_labels(f, tool, &s);
				fprintf(f, "} %.9g\n", *(const double *)((const char *)&l + g[k].off) / 1e6);
			}
		}
	}
	vf_meas_totals(&tot);
	family(f, "measure_foreign_total", "counter", "Received frames without our stamp");
	fprintf(f, "vf_measure_foreign_total{tool=\"%s\"} %" PRIu64 "\n", tool, tot.foreign);
	family(f, "measure_corrupt_total", "counter", "Received frames with a damaged stamp");
	fprintf(f, "vf_measure_corrupt_total{tool=\"%s\"} %" PRIu64 "\n", tool, tot.corrupt);
	family(f, "measure_stale_total", "counter", "Received frames of an earlier run");
	fprintf(f, "vf_measure_stale_total{tool=\"%s\"} %" PRIu64 "\n", tool, tot.stale);
}

static void capture(FILE *f, const char *tool)
{
	struct vf_capture_stats cs;

	if (!vf_capture_stats(&cs))
		return;
	family(f, "capture_packets_total", "counter", "Packets written to the capture file");
	fprintf(f, "vf_capture_packets_total{tool=\"%s\",port=\"%u\"} %" PRIu64 "\n", tool, cs.port,
		cs.written);
	family(f, "capture_dropped_total", "counter",
	       "Packets the capture could not keep (ring full, no buffer, write error)");
	fprintf(f, "vf_capture_dropped_total{tool=\"%s\",port=\"%u\"} %" PRIu64 "\n", tool, cs.port,
		cs.dropped);
}

void vf_prom_render(FILE *f, const char *tool)
{
	vf_port_registry_lock();
	ports(f, tool);
	vf_port_registry_unlock();
	streams(f, tool);
	measure(f, tool);
	capture(f, tool);
}

int vf_prom_write(const char *path, const char *tool)
{
	char tmp[600];
	FILE *f;
	int ret = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp-%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	vf_prom_render(f, tool);
	if (ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}
