/* The common main: options -> runtime -> ports -> engine -> stats -> exit. */
#include "vf_app.h"

#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "vf_complete.h"
#include "vf_capture.h"
#include "vf_ctl.h"
#include "vf_log.h"
#include "vf_mem.h"
#include "vf_prom.h"
#include "vf_runtime.h"
#include "vf_shell.h"
#include "vf_stats.h"
#include "vf_sync.h"
#include "vf_telemetry.h"

#define EXIT_USAGE 2

static volatile sig_atomic_t got_signal;
static struct rte_mempool *pool;

/* Per-port snapshots for rates: the previous period's, and the start's. */
static struct vf_port_stats prev_st[VF_MAX_PORTS];
static double prev_time;

static void on_signal(int sig)
{
	got_signal = sig;
}

int vf_app_signalled(void)
{
	return got_signal;
}

int vf_app_add_spec(struct vf_app *app, const char *spec, char *err, size_t errlen)
{
	if (app->nb_specs == VF_MAX_SPECS) {
		snprintf(err, errlen, "too many ports (max %d)", VF_MAX_SPECS);
		return -1;
	}
	if (!*spec || strlen(spec) >= VF_DEVARGS_STR_MAX) {
		snprintf(err, errlen, "bad port spec: expected 1..%d characters", VF_DEVARGS_STR_MAX - 1);
		return -1;
	}
	app->specs[app->nb_specs] = strdup(spec);
	if (!app->specs[app->nb_specs]) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	app->nb_specs++;
	return 0;
}

static const struct vf_opt *find_opt(const struct vf_tool *tool, const char *lname, int sname)
{
	const struct vf_opt *tables[2] = { tool->opts, vf_common_opts };

	for (int t = 0; t < 2; t++)
		for (const struct vf_opt *o = tables[t]; o && o->lname; o++)
			if ((lname && !strcmp(o->lname, lname)) || (sname && o->sname == sname))
				return o;
	return NULL;
}

static void print_opts(FILE *f, const struct vf_opt *o)
{
	for (; o && o->lname; o++) {
		char left[64];

		snprintf(left, sizeof(left), "%s%c%s--%s%s%s",
			 o->sname ? "-" : "", o->sname ? o->sname : ' ',
			 o->sname ? ", " : "  ", o->lname, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		fprintf(f, "  %-30s %s\n", o->sname ? left : left + 2, o->help);
	}
}

static void usage(const struct vf_tool *tool, FILE *f)
{
	fprintf(f, "Usage: %s [OPTIONS]\n%s\n\n", tool->name, tool->summary);
	if (tool->opts && tool->opts->lname) {
		fprintf(f, "%s options:\n", tool->name);
		print_opts(f, tool->opts);
		fprintf(f, "\n");
	}
	fprintf(f, "Common options:\n");
	print_opts(f, vf_common_opts);
	fprintf(f, "  %-30s %s\n  %-30s %s\n", "-h, --help", "this help",
		 "--version", "print the version");
	fprintf(f, "\nModes:");
	for (unsigned int i = 0; vf_fwd_mode_at(i); i++)
		fprintf(f, " %s", vf_fwd_mode_at(i)->name);
	fprintf(f, "\nDrivers:");
	for (unsigned int i = 0; vf_driver_at(i); i++)
		fprintf(f, " %s", vf_driver_at(i)->name);
	fprintf(f, "\nSee %s(%s) and vf-ports(7).\n", tool->name,
		!strcmp(tool->name, "vhostd") ? "8" : "1");
}

static int usage_error(const struct vf_tool *tool, const char *msg)
{
	fprintf(stderr, "%s: %s\nTry '%s --help'.\n", tool->name, msg, tool->name);
	return EXIT_USAGE;
}

/* Returns 0 to go on, or an exit status + 1 (so 1 = exit 0). */
static int parse_args(struct vf_app *app, int argc, char **argv)
{
	const struct vf_tool *tool = app->tool;
	char err[512], msg[600];

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		const struct vf_opt *o;
		char name[64];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(tool, stdout);
			return 1;
		}
		if (!strcmp(a, "--version")) {
			printf("%s %s\n", tool->name, VF_VERSION);
			return 1;
		}
		if (a[0] == '-' && a[1] == '-' && a[2]) {
			const char *eq = strchr(a + 2, '=');
			size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			if (n >= sizeof(name))
				n = sizeof(name) - 1;
			memcpy(name, a + 2, n);
			name[n] = '\0';
			o = find_opt(tool, name, 0);
			if (eq)
				val = eq + 1;
		} else if (a[0] == '-' && a[1] && a[1] != '-') {
			o = find_opt(tool, NULL, a[1]);
			snprintf(name, sizeof(name), "%c", a[1]);
			if (o && a[2]) {
				if (!o->arg) {
					snprintf(msg, sizeof(msg), "unknown option '%s'", a);
					return usage_error(tool, msg) + 1;
				}
				val = a + 2;
			}
		} else {
			snprintf(msg, sizeof(msg), "unexpected argument '%s'", a);
			return usage_error(tool, msg) + 1;
		}
		if (!o) {
			snprintf(msg, sizeof(msg), "unknown option '%s'", a);
			return usage_error(tool, msg) + 1;
		}
		if (o->arg && !val) {
			if (i + 1 >= argc) {
				snprintf(msg, sizeof(msg), "option '%s' needs an argument %s", a, o->arg);
				return usage_error(tool, msg) + 1;
			}
			val = argv[++i];
		} else if (!o->arg && val) {
			snprintf(msg, sizeof(msg), "option '--%s' takes no argument", o->lname);
			return usage_error(tool, msg) + 1;
		}
		err[0] = '\0';
		if (o->set(app, val, err, sizeof(err)))
			return usage_error(tool, err) + 1;
	}
	return 0;
}

/* Devargs are checked before the EAL starts, so a typo costs no start-up. */
static int check_specs(struct vf_app *app, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < app->nb_specs; i++) {
		char drv[VF_NAME_LEN], tmp[512], shown[VF_DEVARGS_STR_MAX];
		const struct vf_driver *d;
		const char *rest;
		struct vf_devargs *da;
		int ret;

		vf_devargs_redact(app->specs[i], shown, sizeof(shown));
		if (vf_devargs_split(app->specs[i], drv, sizeof(drv), &rest, err, errlen))
			return -1;
		d = vf_driver_find(drv);
		if (!d) {
			size_t off = 0;
			char names[256] = "";
			for (unsigned int k = 0; vf_driver_at(k); k++)
				off += snprintf(names + off, sizeof(names) - off, "%s%s",
						k ? ", " : "", vf_driver_at(k)->name);
			snprintf(err, errlen, "unknown driver '%s' in port '%s': drivers are %s",
				 drv, shown, names);
			return -1;
		}
		da = malloc(sizeof(*da));
		if (!da)
			return -1;
		ret = vf_devargs_parse(rest, d->keys, da, tmp, sizeof(tmp));
		free(da);
		if (ret) {
			snprintf(err, errlen, "port '%s': %s", shown, tmp);
			return -1;
		}
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void vf_app_emit(struct vf_app *app, struct vf_out *o)
{
	char *s = vf_out_take(o);

	if (!s)
		return;
	fputs(s, stdout);
	if (app->json)
		fputc('\n', stdout);
	fflush(stdout);
	if (app->stats_fp) {
		fputs(s, app->stats_fp);
		if (app->json)
			fputc('\n', app->stats_fp);
		fflush(app->stats_fp);
	}
	free(s);
}

bool vf_app_wait_links(double timeout_s)
{
	double end = now_s() + timeout_s;

	for (;;) {
		bool all = true;

		for (uint16_t p = 0; p < vf_port_count(); p++) {
			struct vf_port *port = vf_port_get(p);
			struct vf_link l;

			if (!port)
				continue;
			vf_port_link(port, &l);
			all = all && l.up;
		}
		if (all)
			return true;
		if (got_signal || now_s() >= end)
			return false;
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	}
}

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
static unsigned int period_lines;

static unsigned int screen_rows(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 4)
		return ws.ws_row - 1;
	return 20;
}

static void print_period_line(struct vf_app *app, struct vf_out *o, double dt, double elapsed)
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
		vf_stats_rates(&prev_st[p], &st, dt, &r);
		prev_st[p] = st;
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
	if (period_lines % screen_rows() == 0) {
		vf_out_table_head_text(line, sizeof(line), &period_table);
		vf_out_title(o, "%s", line);
	}
	period_lines++;
	vf_out_table_row_text(line, sizeof(line), &period_table, &row);
	vf_out_title(o, "%s", line);
	(void)app;
}

/* Text mode, final: one line that says what the run did. */
static void print_summary(struct vf_app *app, struct vf_out *o, double elapsed, uint64_t frx,
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
		     rx_only ? "received" : app->fwd.mode->generates ? "sent" : "forwarded",
		     cnt, elapsed, rate, drop);
}

void vf_app_print_stats(struct vf_app *app, bool final)
{
	struct vf_out *o = vf_out_new(app->json);
	double t = now_s(), dt = t - prev_time, elapsed = vf_fwd_elapsed();
	uint64_t frx = 0, ftx = 0, fdrop = 0;

	if (!o)
		return;
	if (!app->json && !final) {
		print_period_line(app, o, dt, elapsed);
		prev_time = t;
		vf_app_emit(app, o);
		vf_out_free(o);
		return;
	}
	if (!app->json) {
		/* the summary line needs the totals first */
		for (unsigned int i = 0; i < vf_fwd_nb_streams(); i++) {
			uint64_t rx, tx, d;

			vf_stats_stream_counts(vf_fwd_stream(i), &rx, &tx, &d);
			frx += rx;
			ftx += tx;
			fdrop += d;
		}
		print_summary(app, o, elapsed, frx, ftx, fdrop);
	}
	vf_out_obj_begin(o, NULL);
	vf_out_title(o, "%s statistics%s after %.3f s of %s forwarding", app->tool->name,
		     final ? " (final)" : "", elapsed, app->fwd.mode->name);
	if (app->json) {	/* text: all in the title */
		vf_out_str(o, "tool", app->tool->name);
		vf_out_dbl(o, "time", (double)time(NULL));
		vf_out_dbl(o, "elapsed", elapsed);
		vf_out_bool(o, "final", final);
		vf_out_str(o, "mode", app->fwd.mode->name);
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
			vf_stats_rates(&prev_st[p], &st, dt, &r);
		prev_st[p] = st;
		vf_stats_port(o, port, &st, &r);
	}
	vf_stats_port_table_end(o);
	vf_stats_streams(o, "fwd", &frx, &ftx, &fdrop);
	if (app->fwd.mode == vf_fwd_mode_find("measure"))
		vf_meas_report(o, app->json);
	vf_out_obj_end(o);
	prev_time = t;

	vf_app_emit(app, o);
	vf_out_free(o);
}

/* The socket to create the pool on: the sealed peer heap (lib/vf_mem.h),
 * so virtio_user and memif zero-copy hand peers memory they cannot shrink
 * under us; DPDK's heap when a dpdk: port may DMA into the pool (the peer
 * heap has no IOVAs) or the heap cannot be made. */
static int peer_heap(const struct vf_app *app, unsigned int nb_mbufs)
{
	/* mbufs of ~2.4 KiB with their mempool headers, packed across pages
	 * (vf_mem_pool_create), and room for rings */
	size_t len = (size_t)nb_mbufs * 2560 + ((size_t)32 << 20);
	int sock;

	for (unsigned int i = 0; i < app->nb_specs; i++)
		if (!strncmp(app->specs[i], "dpdk:", 5))
			return (int)rte_socket_id();
	sock = vf_mem_peer_heap_create(len, vf_runtime_hugepages());
	if (sock < 0) {
		VF_WARN("no sealed peer heap (%s): peers get DPDK's heap memory, which they "
			"could shrink", strerror(-sock));
		return (int)rte_socket_id();
	}
	return sock;
}

static unsigned int default_mbufs(const struct vf_app *app, unsigned int nports)
{
	uint64_t n = (uint64_t)nports * (app->nb_rxq * app->nb_rxd + app->nb_txq * app->nb_txd);

	/* + per-lcore caches and bursts in flight, + head-room */
	n += (uint64_t)rte_lcore_count() * (256 + 2 * VF_MAX_BURST) + 4096;
	if (n < 8192)
		n = 8192;
	return (unsigned int)n;
}

int vf_app_port_add(struct vf_app *app, const char *spec, char *err, size_t errlen)
{
	struct vf_port *p = vf_port_create(spec, err, errlen);
	struct vf_port_conf conf;
	uint16_t id;
	int ret;

	if (!p)
		return -1;
	id = p->id;
	if (!app->eth_peer_set[id]) {
		/* testpmd's default peer: 02:00:00:00:00:PORT */
		uint8_t def[6] = { 0x02, 0, 0, 0, 0, (uint8_t)id };
		memcpy(app->fwd.peer[id].addr_bytes, def, 6);
	}
	conf = (struct vf_port_conf){
		.nb_rxq = app->nb_rxq, .nb_txq = app->nb_txq,
		.nb_rxd = app->nb_rxd, .nb_txd = app->nb_txd, .pool = pool,
	};
	ret = vf_port_configure(p, &conf);
	if (ret == 0)
		ret = vf_port_start(p);
	if (ret) {
		snprintf(err, errlen, "port %u (%s): cannot %s: %s", id, p->spec,
			 p->configured ? "start" : "configure", strerror(-ret));
		vf_port_close(p);
		return -1;
	}
	return id;
}

static int setup_ports(struct vf_app *app)
{
	char err[512];

	for (unsigned int i = 0; i < app->nb_specs; i++)
		if (vf_app_port_add(app, app->specs[i], err, sizeof(err)) < 0) {
			VF_ERR("%s", err);
			return -1;
		}
	return 0;
}

int vf_app_fwd_start(struct vf_app *app, unsigned int tx_first_bursts)
{
	uint16_t nq = app->nb_rxq > app->nb_txq ? app->nb_rxq : app->nb_txq;
	int ret;

	if (vf_fwd_running())
		return -EALREADY;
	if (pool && app->fwd.txpkts > rte_pktmbuf_data_room_size(pool) - RTE_PKTMBUF_HEADROOM)
		return -EMSGSIZE;	/* a generated frame is one mbuf */
	app->fwd.nb_cores = app->nb_cores;
	ret = vf_fwd_setup(&app->fwd, nq);
	if (ret)
		return ret;
	prev_time = now_s();
	memset(prev_st, 0, sizeof(prev_st));
	for (uint16_t p = 0; p < vf_port_count(); p++)
		if (vf_port_get(p))
			vf_port_stats(vf_port_get(p), &prev_st[p]);
	return vf_fwd_start(tx_first_bursts);
}

static void teardown(void)
{
	struct vf_capture_stats cs;

	vf_fwd_stop();
	if (vf_capture_stop(&cs) == 0)
		VF_INFO("capture of port %u: %llu packets written to %s, %llu dropped", cs.port,
			(unsigned long long)cs.written, cs.path, (unsigned long long)cs.dropped);
	for (uint16_t p = 0; p < VF_MAX_PORTS; p++)
		vf_port_close(vf_port_get(p));
	vf_ctl_stop();
	if (pool) {
		rte_mempool_free(pool);
		pool = NULL;
	}
	vf_runtime_stop();
}

/* Non-interactive run: forward until --duration, a signal, or forever. */
static void run_loop(struct vf_app *app)
{
	double start = now_s(), next = start + app->stats_period;

	bool measure_count = app->fwd.mode->drains && app->fwd.count;

	while (!got_signal && !app->quit) {
		double t = now_s(), wake = t + 0.05;

		if (app->duration > 0 && t - start >= app->duration)
			break;
		/* measure --count: the run is over once everything is sent */
		if (measure_count && vf_meas_all_sent())
			break;
		if (measure_count)
			wake = t + 0.001;
		if (app->stats_period > 0 && t >= next) {
			vf_app_print_stats(app, false);
			next += app->stats_period;
			if (next < t)
				next = t + app->stats_period;
		}
		if (app->duration > 0 && start + app->duration < wake)
			wake = start + app->duration;
		if (app->stats_period > 0 && next < wake)
			wake = next;
		if (wake > t) {
			double d = wake - t;
			struct timespec ts = { (time_t)d, (long)((d - (double)(time_t)d) * 1e9) };
			nanosleep(&ts, NULL);
		}
	}
}

static int app_run(struct vf_app *app, const struct vf_tool *tool, int argc, char **argv)
{
	struct vf_runtime_opts ro;
	char err[512];
	int ret, status = 0;
	uint16_t nq;

	app->tool = tool;
	app->main_lcore = -1;
	app->nb_rxq = app->nb_txq = 1;
	app->nb_rxd = app->nb_txd = 1024;
	app->fwd.burst = 32;
	app->fwd.txpkts = 64;
	app->fwd.nb_flows = 1024;
	app->fwd.drain_ms = 100;
	app->search.pdr_loss = 0.005;
	app->search.min_rate = 10000;
	app->search.trial = 1.0;
	app->search.precision = 0.005;
	app->fwd.mode = vf_fwd_mode_find(tool->default_mode ? tool->default_mode : "io");

	ret = parse_args(app, argc, argv);
	if (ret)
		return ret - 1;
	if (tool->finish && tool->finish(app, err, sizeof(err)))
		return usage_error(tool, err);
	if (app->nb_specs == 0)
		for (unsigned int i = 0; i < tool->default_null_ports; i++)
			vf_app_add_spec(app, "null", err, sizeof(err));
	if (app->nb_specs == 0)
		return usage_error(tool, "no port: give at least one --port SPEC");
	if (check_specs(app, err, sizeof(err)))
		return usage_error(tool, err);
	if (app->stats_file[0]) {
		app->stats_fp = fopen(app->stats_file, "a");
		if (!app->stats_fp) {
			snprintf(err, sizeof(err), "cannot open --stats-file '%s': %s",
				 app->stats_file, strerror(errno));
			return usage_error(tool, err);
		}
	}
	/* Commands come from stdin when it is a pipe or a file (not a tty
	 * without -i, not /dev/null), unless this is a one-shot run. */
	if (!app->interactive && app->duration == 0) {
		struct stat sb;
		if (fstat(STDIN_FILENO, &sb) == 0 && (S_ISFIFO(sb.st_mode) || S_ISREG(sb.st_mode)))
			app->cmd_input = true;
	}
	if (app->interactive && app->duration > 0)
		return usage_error(tool, "--interactive and --duration exclude each other");
	if ((app->search.on || app->hist_file[0] || app->limits.has_loss || app->limits.nb_lat) &&
	    !app->fwd.mode->drains)
		return usage_error(tool, "--search, --hist-file, --max-loss and --max-latency need --fwd measure");
	if (app->search.on && (app->limits.has_loss || app->limits.nb_lat))
		return usage_error(tool, "--max-loss and --max-latency check one measuring run, not --search");
	if (app->search.on && (app->interactive || app->duration > 0 || app->fwd.count))
		return usage_error(tool, "--search runs its own trials: no -i, --duration or --count with it");
	if (app->search.on && app->search.max_rate && app->search.max_rate <= app->search.min_rate)
		return usage_error(tool, "--max-rate must be above --min-rate");
	if (app->verbose)
		vf_log_set_level(app->verbose > 1 ? VF_LOG_DEBUG : VF_LOG_INFO);

	/* Size the pool before the EAL starts: without hugepages the memory
	 * is fixed at start-up. */
	nq = app->nb_rxq > app->nb_txq ? app->nb_rxq : app->nb_txq;
	memset(&ro, 0, sizeof(ro));
	ro.tool = tool->name;
	ro.lcores = app->lcores;
	ro.main_lcore = app->main_lcore;
	ro.eal_args = app->eal_args;
	ro.verbose = app->verbose;
	for (unsigned int i = 0; i < app->nb_specs; i++)
		if (!strncmp(app->specs[i], "dpdk:", 5) && strncmp(app->specs[i] + 5, "net_", 4))
			ro.need_pci = true;
	{
		unsigned int guess = app->total_num_mbufs ? app->total_num_mbufs
			: (unsigned int)(app->nb_specs * nq * (app->nb_rxd + app->nb_txd) + 16384);
		ro.mem_mb = 256 + (size_t)guess * 2560 / (1024 * 1024);
	}
	/* Before the EAL: a signal during start-up still ends in a clean stop
	 * with final stats, not in a kill. */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	if (vf_runtime_start(&ro))
		return 1;

	vf_telemetry_register();
	if (vf_sync_init() || vf_ctl_start()) {
		VF_ERR("cannot start the control thread");
		status = 1;
		goto out;
	}
	{
		unsigned int n = app->total_num_mbufs ? app->total_num_mbufs
						      : default_mbufs(app, app->nb_specs);
		int sock = peer_heap(app, n);

		pool = sock == vf_mem_peer_socket()
			? vf_mem_pool_create("vf_mbufs", n, 256, RTE_MBUF_DEFAULT_BUF_SIZE, sock)
			: rte_pktmbuf_pool_create("vf_mbufs", n, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
						  sock);
		if (!pool) {
			VF_ERR("cannot create a pool of %u mbufs: %s (try --total-num-mbufs)",
			       n, rte_strerror(rte_errno));
			status = 1;
			goto out;
		}
	}
	app->fwd.pool = pool;
	if (setup_ports(app)) {
		status = 1;
		goto out;
	}
	if (app->capture_file[0] &&
	    vf_capture_start(app->capture_port, app->capture_dirs, app->capture_file, 0, err,
			     sizeof(err))) {
		VF_ERR("--capture: %s", err);
		status = 1;
		goto out;
	}
	if (app->interactive || app->cmd_input) {
		status = vf_shell_run(app);
		goto out;
	}
	/* One-shot: the script configures (and may start) before the run. */
	if (app->cmdline_file[0] && vf_shell_run_file(app, app->cmdline_file) && app->stop_on_error) {
		status = 1;
		goto out;
	}
	if (app->search.on) {
		status = vf_search_run(app);
		vf_prom_stop(app);
		goto out;
	}
	if (!vf_fwd_running() && app->fwd.mode->drains && !vf_app_wait_links(10))
		VF_WARN("not every port's link is up after 10 s: measuring anyway");
	if (!vf_fwd_running()) {
		ret = vf_app_fwd_start(app, app->tx_first ? 1 : 0);
		if (ret) {
			VF_ERR("cannot start forwarding: %s", strerror(-ret));
			status = 1;
			goto out;
		}
	}
	vf_prom_start(app);
	run_loop(app);
	vf_app_lock();		/* the metrics writer reads the streams */
	vf_fwd_stop();
	vf_app_unlock();
	vf_app_print_stats(app, true);
	vf_prom_stop(app);
	if (app->fwd.mode->drains) {
		if (app->hist_file[0] && (ret = vf_meas_write_hist_file(app->hist_file)) != 0) {
			VF_ERR("cannot write --hist-file '%s': %s", app->hist_file, strerror(-ret));
			status = 1;
		}
		if (vf_meas_check(&app->limits, tool->name))
			status = 1;
	}
out:
	teardown();
	return status;
}

int vf_app_main(const struct vf_tool *tool, int argc, char **argv)
{
	struct vf_app *app;
	int status;

	if (argc >= 2 && !strcmp(argv[1], "__complete"))
		return vf_complete(tool, argc - 2, argv + 2);
	app = calloc(1, sizeof(*app));
	if (!app)
		return 1;
	status = app_run(app, tool, argc, argv);
	if (app->stats_fp)
		fclose(app->stats_fp);
	for (unsigned int i = 0; i < app->nb_specs; i++)
		free(app->specs[i]);
	free(app);
	return status;
}
