/* The statistics document of a session: a period line (text, with
 * --stats-period), or the ports and streams (and the measuring mode's
 * report), with a summary line in text. */
#include "vf_session.h"
#include "vf_runtime.h"

#include <stddef.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "vf_out.h"
#include "vf_stats.h"

/* Text mode, periodic: one line per period, as vmstat prints, the rates of
 * the period and the counts so far over all ports. */
struct period_row {
	double elapsed, rx_pps, tx_pps, rx_bps, tx_bps;
	uint64_t ipackets, opackets, imissed, errors, nombuf, dropped;
};
#define PR(f) offsetof(struct period_row, f)
static const struct vf_col period_cols[] = {
	{ "elapsed", "time", 8, VF_COL_DBL, PR(elapsed), NULL, NULL },
	{ "rx_pps", "rx-rate", 10, VF_COL_PPS, PR(rx_pps), NULL, NULL },
	{ "tx_pps", "tx-rate", 10, VF_COL_PPS, PR(tx_pps), NULL, NULL },
	{ "rx_bps", "rx-Gb/s", 7, VF_COL_BPS, PR(rx_bps), NULL, NULL },
	{ "tx_bps", "tx-Gb/s", 7, VF_COL_BPS, PR(tx_bps), NULL, NULL },
	{ "ipackets", "rx-pkts", 15, VF_COL_U64, PR(ipackets), NULL, NULL },
	{ "opackets", "tx-pkts", 15, VF_COL_U64, PR(opackets), NULL, NULL },
	{ "imissed", "missed", 7, VF_COL_U64, PR(imissed), NULL, NULL },
	{ "errors", "errors", 7, VF_COL_U64, PR(errors), NULL, NULL },
	{ "rx_nombuf", "nombuf", 7, VF_COL_U64, PR(nombuf), NULL, NULL },
	{ "dropped", "dropped", 9, VF_COL_U64, PR(dropped), NULL, NULL },
};
#undef PR
static const struct vf_table period_table = VF_TABLE(period_cols);

static unsigned int screen_rows(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 4)
		return ws.ws_row - 1;
	return 20;
}

static void print_period_line(struct vf_session *ses, struct vf_out *o, double dt, double elapsed)
{
	struct period_row row = { .elapsed = elapsed };
	char line[512];

	for (uint16_t p = 0; p < vf_port_count(); p++) {
		struct vf_port *port = vf_port_get(p);
		struct vf_port_stats st;
		struct vf_rates r;

		if (!port)
			continue;
		vf_port_stats(port, &st);
		vf_stats_rates(&ses->prev_st[p], &st, dt, &r);
		ses->prev_st[p] = st;
		row.rx_pps += r.rx_pps;
		row.tx_pps += r.tx_pps;
		row.rx_bps += r.rx_bps;
		row.tx_bps += r.tx_bps;
		row.ipackets += st.ipackets;
		row.opackets += st.opackets;
		row.imissed += st.imissed;
		row.errors += st.ierrors + st.oerrors;
		row.nombuf += st.rx_nombuf;
	}
	for (unsigned int i = 0; i < vf_fwd_nb_streams(); i++) {
		uint64_t rx, tx, d;

		vf_stats_stream_counts(vf_fwd_stream(i), &rx, &tx, &d);
		row.dropped += d;
	}
	if (ses->period_lines % screen_rows() == 0) {
		vf_out_table_head_text(line, sizeof(line), &period_table);
		vf_out_title(o, "%s", line);
	}
	ses->period_lines++;
	vf_out_table_row_text(line, sizeof(line), &period_table, &row);
	vf_out_title(o, "%s", line);
	(void)ses;
}

/* Text mode, final: one line that says what the run did. */
static void print_summary(struct vf_session *ses, struct vf_out *o, double elapsed, uint64_t frx,
			  uint64_t ftx, uint64_t fdrop)
{
	bool rx_only = ftx == 0 && frx > 0;
	uint64_t n = rx_only ? frx : ftx;
	char cnt[32], rate[32], drop[32];

	vf_out_fmt_si(cnt, sizeof(cnt), (double)n, "");
	if (cnt[strlen(cnt) - 1] == ' ')
		cnt[strlen(cnt) - 1] = '\0';
	vf_out_fmt_pps(rate, sizeof(rate), elapsed > 0 ? (double)n / elapsed : 0.0);
	vf_out_fmt_count(drop, sizeof(drop), fdrop);
	vf_out_title(o, "%s %s packets in %.2f s: %s, %s dropped",
		     rx_only ? "received" : ses->fwd.mode->generates ? "sent" : "forwarded",
		     cnt, elapsed, rate, drop);
}

void vf_session_print_stats(struct vf_session *ses, bool final)
{
	struct vf_out *o = vf_out_new(ses->json);
	double t = vf_now_s(), dt = t - ses->prev_time, elapsed = vf_fwd_elapsed();
	uint64_t frx = 0, ftx = 0, fdrop = 0;

	if (!o)
		return;
	if (!ses->json && !final) {
		print_period_line(ses, o, dt, elapsed);
		ses->prev_time = t;
		vf_session_emit(ses, o);
		vf_out_free(o);
		return;
	}
	if (!ses->json) {
		/* the summary line needs the totals first */
		for (unsigned int i = 0; i < vf_fwd_nb_streams(); i++) {
			uint64_t rx, tx, d;

			vf_stats_stream_counts(vf_fwd_stream(i), &rx, &tx, &d);
			frx += rx;
			ftx += tx;
			fdrop += d;
		}
		print_summary(ses, o, elapsed, frx, ftx, fdrop);
	}
	vf_out_obj_begin(o, NULL);
	vf_out_title(o, "%s statistics%s after %.3f s of %s forwarding", ses->tool,
		     final ? " (final)" : "", elapsed, ses->fwd.mode->name);
	if (ses->json) {	/* text: all in the title */
		vf_out_str(o, "tool", ses->tool);
		vf_out_dbl(o, "time", (double)time(NULL));
		vf_out_dbl(o, "elapsed", elapsed);
		vf_out_bool(o, "final", final);
		vf_out_str(o, "mode", ses->fwd.mode->name);
	}
	vf_stats_port_table_begin(o);
	for (uint16_t p = 0; p < vf_port_count(); p++) {
		struct vf_port *port = vf_port_get(p);
		struct vf_port_stats st, zero = { 0 };
		struct vf_rates r;

		if (!port)
			continue;
		vf_port_stats(port, &st);
		/* Final: averaged over the whole run; periodic: this period. */
		if (final)
			vf_stats_rates(&zero, &st, elapsed, &r);
		else
			vf_stats_rates(&ses->prev_st[p], &st, dt, &r);
		ses->prev_st[p] = st;
		vf_stats_port(o, port, &st, &r);
	}
	vf_stats_port_table_end(o);
	vf_stats_streams(o, "fwd", &frx, &ftx, &fdrop);
	if (ses->fwd.mode == vf_fwd_mode_find("measure")) {
		vf_meas_report(o, ses->json);
		vf_session_report_load(ses, o);
	}
	vf_out_obj_end(o);
	ses->prev_time = t;

	vf_session_emit(ses, o);
	vf_out_free(o);
}
