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
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "service.h"
#include "vf_complete.h"
#include "vf_capture.h"
#include "vf_ctl.h"
#include "vf_ctlsock.h"
#include "vf_log.h"
#include "vf_mem.h"
#include "vf_runtime.h"
#include "vf_search.h"
#include "vf_search_goals.h"
#include "vf_shell.h"
#include "vf_sync.h"
#include "vf_telemetry.h"

#define EXIT_USAGE 2

static struct rte_mempool *pool;

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
	/* One line: what was wrong and what is accepted (--help lists all). */
	fprintf(stderr, "%s: %s\n", tool->name, msg);
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
		if (o->devarg ? vf_app_port_kv(app, o, val ? val : "yes", err, sizeof(err))
			      : o->set(app, val, err, sizeof(err)))
			return usage_error(tool, err) + 1;
	}
	return 0;
}

/* Devargs are checked before the EAL starts, so a typo costs no start-up
 * and exits with status 2. */
static int check_specs(struct vf_app *app, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < app->nb_specs; i++)
		if (vf_port_spec_check(app->specs[i], err, errlen))
			return -1;
	return 0;
}

/* Null ports (ours or DPDK's net_null) make up their own frames: nothing
 * there reflects what measure sends. */
static bool only_null_ports(const struct vf_app *app)
{
	for (unsigned int i = 0; i < app->nb_specs; i++) {
		const char *s = app->specs[i];
		if (!strncmp(s, "dpdk:", 5) && !strncmp(s + 5, "net_null", 8))
			continue;
		if (!strncmp(s, "null", 4) && (s[4] == '\0' || s[4] == ','))
			continue;
		return false;
	}
	return app->nb_specs > 0;
}

/* The sealed peer heap (lib/core/vf_mem.h): virtio_user and memif
 * zero-copy hand peers only the pool's data rooms and their rings, in
 * memory they cannot shrink under us; none when a dpdk: port may DMA into
 * the pool (the peer heap has no IOVAs) or the heap cannot be made (then
 * peers get DPDK's heap, mbuf headers and all). */
static void peer_heap(const struct vf_app *app, unsigned int nb_mbufs)
{
	/* data rooms (2176 B, vf_mem_pool_create) and room for rings */
	size_t len = (size_t)nb_mbufs * RTE_MBUF_DEFAULT_BUF_SIZE + ((size_t)32 << 20);
	int rc;

	for (unsigned int i = 0; i < app->nb_specs; i++)
		if (!strncmp(app->specs[i], "dpdk:", 5))
			return;
	rc = vf_mem_peer_heap_create(len, vf_runtime_hugepages());
	if (rc < 0)
		VF_WARN("no sealed peer heap (%s): peers get DPDK's heap memory, mbuf headers "
			"and all, which they could shrink", strerror(-rc));
}

/* Copy-mode ports (vhost, memif without zero-copy, null) that get the
 * rings' worth of mbufs, as the capture and measure tests were tuned
 * against; beyond them it was 5 MiB a port that nothing holds. */
#define FULL_COPY_PORTS 8
#define FEW_BURSTS 4

static unsigned int default_mbufs(const struct vf_app *app)
{
	uint64_t n = 0, rings = (uint64_t)app->ses.nb_rxq * app->ses.nb_rxd +
				(uint64_t)app->ses.nb_txq * app->ses.nb_txd;
	unsigned int copy = 0;

	/* Ports whose rings hold mbufs get the rings' worth.  The others copy
	 * into their peer's buffers and hold only the bursts in flight: a
	 * stream's rx burst, measure's pending and spare bursts, one more;
	 * the first FULL_COPY_PORTS of them still get the rings' worth. */
	for (unsigned int i = 0; i < app->nb_specs; i++)
		if (vf_port_spec_keeps_mbufs(app->specs[i]))
			n += rings;
		else if (copy++ < FULL_COPY_PORTS)
			n += rings;
		else
			n += (uint64_t)FEW_BURSTS * app->ses.fwd.burst *
			     (app->ses.nb_rxq + app->ses.nb_txq);

	/* + per-lcore caches and bursts in flight, + head-room */
	n += (uint64_t)rte_lcore_count() * (256 + 2 * VF_MAX_BURST) + 4096;
	if (n < 8192)
		n = 8192;
	return (unsigned int)n;
}

static int setup_ports(struct vf_app *app)
{
	char err[512];

	for (unsigned int i = 0; i < app->nb_specs; i++)
		if (vf_session_port_add(&app->ses, app->specs[i], err, sizeof(err)) < 0) {
			VF_ERR("%s", err);
			return -1;
		}
	return 0;
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
	vf__app_events_stop();		/* the ports' last events to the file */
	vf_ctl_stop();
	if (pool) {
		rte_mempool_free(pool);
		pool = NULL;
	}
	vf_runtime_stop();
}

/* A measuring run that sent and got nothing back measured no device: one
 * line and exit status 1, whatever the limits. */
static bool nothing_back(const struct vf_tool *tool)
{
	struct vf_meas_stream all;

	vf_meas_sum(&all);
	if (!all.sent || all.received)
		return false;
	fprintf(stderr, "%s: measure: %llu frames sent, none came back: is the device forwarding to us?\n",
		tool->name, (unsigned long long)all.sent);
	return true;
}

/* Non-interactive run: forward until --duration, a signal, or forever. */
static void run_loop(struct vf_app *app)
{
	double start = vf_now_s(), next = start + app->ses.stats_period;

	bool measure_count = app->ses.fwd.mode->drains && app->ses.fwd.count;
	bool replay_end = app->ses.fwd.replay && app->ses.fwd.replay_loops;

	while (!vf_session_signalled() && !__atomic_load_n(&app->ses.quit, __ATOMIC_RELAXED)) {
		double t = vf_now_s(), wake = t + 0.05;

		if (app->ses.duration > 0 && t - start >= app->ses.duration)
			break;
		/* measure --count: the run is over once everything is sent */
		if (measure_count && vf_meas_all_sent())
			break;
		if (measure_count)
			wake = t + 0.001;
		/* replay --loop N: over once every pass is sent, and what was
		 * in flight had --drain-ms to come back */
		if (replay_end && vf_fwd_replay_done()) {
			struct timespec d = { (time_t)(app->ses.fwd.drain_ms / 1000),
					      (long)(app->ses.fwd.drain_ms % 1000) * 1000000L };

			nanosleep(&d, NULL);
			break;
		}
		if (app->ses.stats_period > 0 && t >= next) {
			vf_session_lock();	/* a control socket command may change ports */
			vf_session_print_stats(&app->ses, false);
			vf_session_unlock();
			next += app->ses.stats_period;
			if (next < t)
				next = t + app->ses.stats_period;
		}
		if (app->ses.duration > 0 && start + app->ses.duration < wake)
			wake = start + app->ses.duration;
		if (app->ses.stats_period > 0 && next < wake)
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
	vf_session_init(&app->ses, tool->name);
	vf_access_init(&app->ctl_access);
	app->ses.shell_init = tool->shell_init;
	app->ses.fwd.mode = vf_fwd_mode_find(tool->default_mode ? tool->default_mode : "io");
	if (tool->default_rx_mode)	/* before the options: --rx-mode wins */
		vf_port_default_rx_mode((enum vf_rx_mode)vf_rx_mode_parse(tool->default_rx_mode));

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
	if (app->event_file[0]) {
		/* the error now, not after the EAL's start-up (a FIFO needs
		 * its reader first: lines are written without blocking) */
		int fd = open(app->event_file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666);

		if (fd < 0) {
			snprintf(err, sizeof(err), "cannot open --event-file '%s': %s",
				 app->event_file, strerror(errno));
			return usage_error(tool, err);
		}
		close(fd);
	}
	if (app->ses.stats_file[0]) {
		app->ses.stats_fp = fopen(app->ses.stats_file, "a");
		if (!app->ses.stats_fp) {
			snprintf(err, sizeof(err), "cannot open --stats-file '%s': %s",
				 app->ses.stats_file, strerror(errno));
			return usage_error(tool, err);
		}
	}
	/* Commands come from stdin when it is a pipe or a file (not a tty
	 * without -i, not /dev/null), unless this is a one-shot run. */
	if (!app->ses.interactive && app->ses.duration == 0) {
		struct stat sb;
		if (fstat(STDIN_FILENO, &sb) == 0 && (S_ISFIFO(sb.st_mode) || S_ISREG(sb.st_mode)))
			app->ses.cmd_input = true;
	}
	if (app->ses.interactive && app->ses.duration > 0)
		return usage_error(tool, "--interactive and --duration exclude each other");
	if (app->search_opt && !app->ses.search.on) {
		snprintf(err, sizeof(err), "%s needs --search: it only sets the search",
			 app->search_opt);
		return usage_error(tool, err);
	}
	if ((app->ses.search.on || app->ses.hist_file[0] || app->ses.limits.has_loss || app->ses.limits.nb_lat ||
	     app->ses.warmup > 0 || app->check_given) && !app->ses.fwd.mode->drains)
		return usage_error(tool, "--search, --warmup, --check, --hist-file, --max-loss and --max-latency "
				   "need --fwd measure");
	/* A search over null ports has nothing to find; a fixed run there
	 * still times measuring itself (bench/measure.sh), so it only warns. */
	if (app->ses.fwd.mode->drains && only_null_ports(app) && app->ses.search.on)
		return usage_error(tool, "--search needs a device under test: null ports make their own "
			"frames; give a memif, vhost, virtio_user or dpdk: port");
	if (app->ses.fwd.mode->drains && only_null_ports(app))
		VF_WARN("measure over null ports only: they are no device (what they hand back is "
			"recycled buffers, counted as reordered and duplicates); this times measuring "
			"itself: give a memif, vhost, virtio_user or dpdk: port to measure a device");
	if (app->ses.warmup > 0 && app->ses.interactive)
		return usage_error(tool, "--warmup runs before a one-shot run or --search, not with -i");
	if (app->ses.search.on && (app->ses.limits.has_loss || app->ses.limits.nb_lat))
		return usage_error(tool, "--max-loss and --max-latency check one measuring run, not --search");
	if (app->ses.search.on && (app->ses.interactive || app->ses.duration > 0 || app->ses.fwd.count))
		return usage_error(tool, "--search runs its own trials: no -i, --duration or --count with it");
	if (app->ses.search.on && app->ctl_path[0])
		return usage_error(tool, "--ctl is not served during --search: the search drives the engine itself");
	/* before anything starts: a --ctl in use fails the run at once */
	if (app->ctl_path[0] && !app->ctl_later && vf_ctlsock_check(app->ctl_path, err, sizeof(err))) {
		fprintf(stderr, "%s: --ctl: %s\n", tool->name, err);
		return 1;
	}
	if (app->ses.search.on && app->ses.search.max_rate && app->ses.search.max_rate <= app->ses.search.min_rate)
		return usage_error(tool, "--max-rate must be above --min-rate");
	if (app->ses.fwd.pattern.kind == VF_PATTERN_BURST && app->ses.fwd.pattern.burst_ns &&
	    (app->ses.rate_spec.value > 0 || app->ses.search.on))
		return usage_error(tool, "--pattern burst:N/T sets the rate itself: not with --rate or "
				   "--search (give burst:N for bursts of N at --rate)");
	if (app->ses.fwd.pattern.kind != VF_PATTERN_CONSTANT && !app->ses.fwd.mode->generates)
		return usage_error(tool, "--pattern shapes what a generating mode sends: txonly, flowgen or measure");
	if (app->ses.fwd.pattern.kind != VF_PATTERN_CONSTANT && !app->ses.search.on &&
	    !(app->ses.fwd.pattern.kind == VF_PATTERN_BURST && app->ses.fwd.pattern.burst_ns) &&
	    app->ses.rate_spec.value == 0)
		return usage_error(tool, "--pattern burst:N and poisson need a mean rate: give --rate");
	if ((app->ses.fwd.mode == vf_fwd_mode_find("replay")) != (app->ses.pcap_file[0] != '\0'))
		return usage_error(tool, "--fwd replay and --pcap FILE go together");
	if (app->ses.verbose)	/* before the capture's split says how it fell */
		vf_log_set_level(app->ses.verbose > 1 ? VF_LOG_DEBUG : VF_LOG_INFO);
	if (vf_session_replay_load(&app->ses, err, sizeof(err)))
		return usage_error(tool, err);
	if (vf_fwd_flows_resolve(&app->ses.fwd, err, sizeof(err)))
		return usage_error(tool, err);
	if (app->ses.search.nb_goals && app->ses.search.bisect)
		return usage_error(tool, "--search-goal sets MLRsearch's goals: not with --search-method bisect");
	if (app->ses.search.nb_goals && app->ses.search.pdr_loss_given)
		return usage_error(tool, "--pdr-loss shapes the default PDR goal: with --search-goal, give loss= there");
	if (app->ses.search.on && !app->ses.search.bisect) {
		struct vf_mlr_goal g[VF_SEARCH_MAX_GOALS];
		struct vf_search_goal_name names[VF_SEARCH_MAX_GOALS];
		if (vf_search_goals(&app->ses.search, g, names, err, sizeof(err)) < 0)
			return usage_error(tool, err);
	}

	/* Size the pool before the EAL starts: without hugepages the memory
	 * is fixed at start-up. */
	nq = app->ses.nb_rxq > app->ses.nb_txq ? app->ses.nb_rxq : app->ses.nb_txq;
	memset(&ro, 0, sizeof(ro));
	ro.tool = tool->name;
	ro.lcores = app->lcores;
	ro.main_lcore = app->main_lcore;
	ro.eal_args = app->eal_args;
	ro.verbose = app->ses.verbose;
	for (unsigned int i = 0; i < app->nb_specs; i++)
		if (!strncmp(app->specs[i], "dpdk:", 5) && strncmp(app->specs[i] + 5, "net_", 4))
			ro.need_pci = true;
	{
		unsigned int guess = app->ses.total_num_mbufs ? app->ses.total_num_mbufs
			: (unsigned int)(app->nb_specs * nq * (app->ses.nb_rxd + app->ses.nb_txd) + 16384);
		ro.mem_mb = 256 + (size_t)guess * 2560 / (1024 * 1024);
	}
	/* Before the EAL: a signal during start-up still ends in a clean stop
	 * with final stats, not in a kill. */
	vf_session_signals_install();
	if (vf_runtime_start(&ro))
		return 1;

	vf_telemetry_register();
	if (vf_sync_init() || vf_ctl_start()) {
		VF_ERR("cannot start the control thread");
		status = 1;
		goto out;
	}
	if (vf__app_events_start(app)) {
		status = 1;
		goto out;
	}
	{
		unsigned int n = app->ses.total_num_mbufs ? app->ses.total_num_mbufs
						      : default_mbufs(app);
		peer_heap(app, n);
		pool = vf_mem_pool_create("vf_mbufs", n, 256, RTE_MBUF_DEFAULT_BUF_SIZE,
					  (int)rte_socket_id());
		if (!pool) {
			VF_ERR("cannot create a pool of %u mbufs: %s (try --total-num-mbufs)",
			       n, rte_strerror(rte_errno));
			status = 1;
			goto out;
		}
	}
	app->ses.fwd.pool = pool;
	if (setup_ports(app)) {
		status = 1;
		goto out;
	}
	if (vf_session_resolve_rates(&app->ses, err, sizeof(err)) ||
	    vf_session_replay_check(&app->ses, err, sizeof(err))) {
		VF_ERR("%s", err);
		status = EXIT_USAGE;
		goto out;
	}
	if (app->ses.capture_file[0] &&
	    vf_capture_start(app->ses.capture_port, app->ses.capture_dirs, app->ses.capture_file, 0, err,
			     sizeof(err))) {
		VF_ERR("--capture: %s", err);
		status = 1;
		goto out;
	}
	if (app->ses.interactive || app->ses.cmd_input) {
		status = vf__app_service_start(app) ? 1 : vf_shell_run(&app->ses);
		goto out;
	}
	/* One-shot: the script configures (and may start) before the run. */
	if (app->ses.cmdline_file[0] && vf_shell_run_file(&app->ses, app->ses.cmdline_file) && app->ses.stop_on_error) {
		status = 1;
		goto out;
	}
	if (app->ses.search.on) {
		status = app->ses.search.nb_sizes ? vf_search_sweep(&app->ses) : vf_search_run(&app->ses);
		vf_session_prom_stop(&app->ses);
		goto out;
	}
	if (!vf_fwd_running() && app->ses.fwd.mode->drains && !vf_session_wait_links(10))
		VF_WARN("not every port's link is up after 10 s: measuring anyway");
	if (!vf_fwd_running() && app->ses.warmup > 0 &&
	    (ret = vf_session_warmup(&app->ses, app->ses.warmup, app->ses.fwd.rate_pps)) != 0) {
		if (ret != -EINTR)
			VF_ERR("cannot start the warm-up: %s", strerror(-ret));
		status = 1;
		goto out;
	}
	if (!vf_fwd_running()) {
		ret = vf_session_fwd_start(&app->ses, app->ses.tx_first ? 1 : 0);
		if (ret) {
			VF_ERR("cannot start forwarding: %s", strerror(-ret));
			status = 1;
			goto out;
		}
	}
	vf_session_prom_start(&app->ses);
	if (vf__app_service_start(app) == 0)
		run_loop(app);
	else
		status = 1;
	vf__app_service_stop(app);
	vf_session_lock();		/* the metrics writer reads the streams */
	vf_fwd_stop();
	vf_session_unlock();
	vf_session_print_stats(&app->ses, true);
	vf_session_prom_stop(&app->ses);
	if (app->ses.fwd.mode->drains) {
		if (app->ses.hist_file[0] && (ret = vf_meas_write_hist_file(app->ses.hist_file)) != 0) {
			VF_ERR("cannot write --hist-file '%s': %s", app->ses.hist_file, strerror(-ret));
			status = 1;
		}
		if (vf_meas_check(&app->ses.limits, tool->name))
			status = 1;
		/* A short load is the tester's result, not the device's: a
		 * threshold met under it proves nothing. */
		struct vf_session_load l;
		vf_session_load(&app->ses, &l);
		if (l.limited) {
			bool checked = app->ses.limits.has_loss || app->ses.limits.nb_lat;
			fprintf(stderr, "%s: measure: tester-limited: the ports took %.0f pps of the %.0f asked "
				"over %.2f s%s\n", tool->name, l.offered_pps, l.intended_pps, l.effective_s,
				checked ? ": --max-loss and --max-latency cannot pass" : "");
			if (checked)
				status = 1;
		}
		if (nothing_back(tool))
			status = 1;
	}
out:
	vf__app_service_stop(app);	/* no control command runs past here */
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
	if (app->ses.stats_fp)
		fclose(app->ses.stats_fp);
	for (unsigned int i = 0; i < app->nb_specs; i++)
		free(app->specs[i]);
	vf_session_replay_free(&app->ses);
	free(app);
	return status;
}
