/* The common options: one table for parsing, --help, completion and tests. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts_priv.h"
#include "vf_app.h"
#include "vf_parse.h"
#include "vf_rate.h"
#include "vf_capture.h"
#include "vf_search.h"
#include "vf_search_goals.h"

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

int vf_app_port_kv(struct vf_app *app, const struct vf_opt *o, const char *arg, char *err,
		   size_t errlen)
{
	bool secret = !strcmp(o->devarg, "secret");
	const char *shown = secret ? "***" : arg;
	size_t n = strlen(app->port_kv);
	char pat[64], expect[160];

	snprintf(pat, sizeof(pat), ",%s=", o->devarg);
	if (strstr(app->port_kv, pat)) {
		snprintf(err, errlen, "--%s given twice", o->lname);
		return -1;
	}
	if (!*arg || strchr(arg, ',') || strchr(arg, '=')) {
		snprintf(err, errlen, "bad --%s '%s': expected a value without ',' or '='",
			 o->lname, shown);
		return -1;
	}
	if (o->check && o->check(arg, expect, sizeof(expect))) {
		snprintf(err, errlen, "bad --%s '%s': expected %s", o->lname, shown, expect);
		return -1;
	}
	if ((size_t)snprintf(app->port_kv + n, sizeof(app->port_kv) - n, ",%s=%s", o->devarg,
			     arg) >= sizeof(app->port_kv) - n) {
		app->port_kv[n] = '\0';
		snprintf(err, errlen, "--%s: value too long", o->lname);
		return -1;
	}
	return 0;
}

static int set_str(char *dst, size_t len, const char *arg, const char *what,
		   char *err, size_t errlen)
{
	if (!*arg || strlen(arg) >= len) {
		snprintf(err, errlen, "bad %s: expected 1..%zu characters", what, len - 1);
		return -1;
	}
	strcpy(dst, arg);
	return 0;
}


#define U(field, lo, hi, what) do {					\
		uint64_t v_;						\
		if (vf_parse_u64(arg, lo, hi, &v_)) {			\
			snprintf(err, errlen, "bad %s '%s': expected an integer in %llu..%llu", \
				 what, arg, (unsigned long long)(lo), (unsigned long long)(hi)); \
			return -1;					\
		}							\
		app->ses.field = v_;					\
	} while (0)

static int o_port(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	return vf_app_add_spec(app, arg, err, errlen);
}

static int o_fwd(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	const struct vf_fwd_mode *m = vf_fwd_mode_find(arg);
	char list[256] = "";
	size_t off = 0;

	if (!m) {
		for (unsigned int i = 0; vf_fwd_mode_at(i); i++)
			off += snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "",
					vf_fwd_mode_at(i)->name);
		snprintf(err, errlen, "unknown forwarding mode '%s': modes are %s", arg, list);
		return -1;
	}
	app->ses.fwd.mode = m;
	app->mode_set = true;
	return 0;
}

static int o_nb_cores(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ U(nb_cores, 1, RTE_MAX_LCORE, "--nb-cores"); return 0; }
static int o_rxq(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ U(nb_rxq, 1, VF_MAX_QUEUES, "--rxq"); return 0; }
static int o_txq(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ U(nb_txq, 1, VF_MAX_QUEUES, "--txq"); return 0; }
static int o_rxd(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ U(nb_rxd, 32, 32768, "--rxd"); return 0; }
static int o_txd(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ U(nb_txd, 32, 32768, "--txd"); return 0; }
static int o_burst(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ U(fwd.burst, 1, VF_MAX_BURST, "--burst"); return 0; }
static int o_tx_retry(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ U(fwd.tx_retry, 0, VF_FWD_TX_RETRY_MAX, "--tx-retry"); return 0; }
static int o_tx_retry_us(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ U(fwd.tx_retry_us, 0, VF_FWD_TX_RETRY_US_MAX, "--tx-retry-us"); return 0; }
static int o_rx_mode(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	int m = vf_rx_mode_parse(arg);

	(void)app;
	if (m < 0) {
		snprintf(err, errlen, "bad --rx-mode '%s': expected poll, interrupt or adaptive", arg);
		return -1;
	}
	/* Before any port exists: the ports whose spec has no rx-mode= take it. */
	vf_port_default_rx_mode((enum vf_rx_mode)m);
	return 0;
}
static int o_txpkts(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	char msg[320];

	if (vf_mix_parse(arg, &app->ses.fwd.txpkts, VF_MIX_MIN_LEN, VF_MIX_MAX_LEN, msg, sizeof(msg))) {
		snprintf(err, errlen, "bad --txpkts '%s': %s", arg, msg);
		return -1;
	}
	return 0;
}
static int o_flows(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ U(fwd.nb_flows, 1, VF_FLOWS_MAX, "--flows"); return 0; }
/* --flow-*: the field each option sets */
#define FIELD(name, id) static int name(struct vf_app *app, const char *arg, char *err, size_t errlen) \
{ return vf_field_parse(id, arg, &app->ses.fwd.flows.f[id], err, errlen); }
FIELD(o_flow_src, VF_FIELD_SRC) FIELD(o_flow_dst, VF_FIELD_DST)
FIELD(o_flow_sport, VF_FIELD_SPORT) FIELD(o_flow_dport, VF_FIELD_DPORT)
FIELD(o_flow_smac, VF_FIELD_SMAC) FIELD(o_flow_dmac, VF_FIELD_DMAC) FIELD(o_flow_vlan, VF_FIELD_VLAN)

static int o_rate(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ return vf__opt_rate(arg, &app->ses.rate_spec, &app->ses.fwd.rate_pps, "--rate", err, errlen); }
static int o_pattern(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	char msg[320];

	if (vf_pattern_parse(arg, &app->ses.fwd.pattern, msg, sizeof(msg))) {
		snprintf(err, errlen, "bad --pattern: %s", msg);
		return -1;
	}
	return 0;
}
static int o_pcap(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ return set_str(app->ses.pcap_file, sizeof(app->ses.pcap_file), arg, "--pcap", err, errlen); }
static int o_speed(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	return vf__opt_double(&app->ses.fwd.replay_speed, 0.001, 1e6, arg, "--speed",
			  "a factor in 0.001..1000000 (2: twice as fast)", err, errlen);
}
static int o_split(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	if (!vf_pcap_split_mode_parse(arg, &app->ses.split))
		return 0;
	snprintf(err, errlen, "bad --split '%s': expected none, mac or iface", arg);
	return -1;
}
static int o_loop(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ U(fwd.replay_loops, 0, UINT64_MAX, "--loop"); return 0; }
static int o_count(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ U(fwd.count, 1, UINT64_MAX, "--count"); return 0; }
static int o_mbufs(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ U(total_num_mbufs, 1024, 16u << 20, "--total-num-mbufs"); return 0; }

static int o_impair(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	char msg[384];

	if (vf_impair_parse(arg, &app->ses.impair, msg, sizeof(msg))) {
		snprintf(err, errlen, "bad --impair '%s': %s", arg, msg);
		return -1;
	}
	return 0;
}

static int o_eth_peer(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	unsigned int port, b[6];
	char tail;

	if (sscanf(arg, "%u,%2x:%2x:%2x:%2x:%2x:%2x%c", &port, &b[0], &b[1], &b[2],
		   &b[3], &b[4], &b[5], &tail) != 7 || port >= VF_MAX_PORTS) {
		snprintf(err, errlen, "bad --eth-peer '%s': expected PORT,XX:XX:XX:XX:XX:XX with PORT < %d",
			 arg, VF_MAX_PORTS);
		return -1;
	}
	for (int i = 0; i < 6; i++)
		app->ses.fwd.peer[port].addr_bytes[i] = (uint8_t)b[i];
	app->ses.eth_peer_set[port] = true;
	return 0;
}

static int o_tx_first(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ app->ses.tx_first = true; return 0; }
static int o_record_cycles(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ app->ses.fwd.record_cycles = true; return 0; }
static int o_check(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	if (strcmp(arg, "full") && strcmp(arg, "stamp")) {
		snprintf(err, errlen, "--check: full or stamp, not '%s'", arg);
		return -1;
	}
	app->ses.fwd.check_stamp = arg[0] == 's';
	app->check_given = true;
	return 0;
}

static int o_one_way(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ app->ses.fwd.one_way = true; return 0; }
static int o_auto_start(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ app->ses.auto_start = true; return 0; }
static int o_json(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ app->ses.json = true; return 0; }
static int o_interactive(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ app->ses.interactive = true; return 0; }
static int o_stop_on_error(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ app->ses.stop_on_error = true; return 0; }
static int o_verbose(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ app->ses.verbose++; return 0; }

static int o_duration(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	return vf__opt_double(&app->ses.duration, 0.001, 1e9, arg, "--duration", "seconds > 0",
			  err, errlen);
}

static int o_stats_period(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	return vf__opt_double(&app->ses.stats_period, 0.01, 1e6, arg, "--stats-period",
			  "seconds >= 0.01", err, errlen);
}


static int o_stats_file(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ return set_str(app->ses.stats_file, sizeof(app->ses.stats_file), arg, "--stats-file", err, errlen); }

static int o_prom_file(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ return set_str(app->ses.prom_file, sizeof(app->ses.prom_file), arg, "--prom-file", err, errlen); }

static int o_capture(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	if (vf_capture_parse(arg, &app->ses.capture_port, &app->ses.capture_dirs, app->ses.capture_file,
			     sizeof(app->ses.capture_file), err, errlen))
		return -1;
	return 0;
}

static int o_ctl(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	app->ctl_given = true;
	if (!strcmp(arg, "none")) {
		app->ctl_path[0] = '\0';
		return 0;
	}
	return set_str(app->ctl_path, sizeof(app->ctl_path), arg, "--ctl", err, errlen);
}

static int o_event_file(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ return set_str(app->event_file, sizeof(app->event_file), arg, "--event-file", err, errlen); }

static int o_ctl_access(struct vf_app *app, const char *key, const char *opt, const char *arg,
			char *err, size_t errlen)
{
	char why[160];

	if (vf_access_set(&app->ctl_access, key, arg, why, sizeof(why)) == 0)
		return 0;
	snprintf(err, errlen, "bad %s: %s", opt, why);
	return -1;
}

static int o_ctl_mode(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ return o_ctl_access(app, "socket-mode", "--ctl-mode", arg, err, errlen); }
static int o_ctl_group(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ return o_ctl_access(app, "socket-group", "--ctl-group", arg, err, errlen); }

static int o_cmdline_file(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ return set_str(app->ses.cmdline_file, sizeof(app->ses.cmdline_file), arg, "--cmdline-file", err, errlen); }

static int o_lcores(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	if (strspn(arg, "0123456789,-") != strlen(arg) || !*arg) {
		snprintf(err, errlen, "bad -l '%s': expected a core list like 0-3 or 0,2,4", arg);
		return -1;
	}
	return set_str(app->lcores, sizeof(app->lcores), arg, "-l", err, errlen);
}

static int o_main_lcore(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	uint64_t v;

	if (vf_parse_u64(arg, 0, RTE_MAX_LCORE - 1, &v)) {
		snprintf(err, errlen, "bad --main-lcore '%s': expected 0..%d", arg, RTE_MAX_LCORE - 1);
		return -1;
	}
	app->main_lcore = (int)v;
	return 0;
}

static int o_eal(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ return set_str(app->eal_args, sizeof(app->eal_args), arg, "--eal", err, errlen); }

static int o_drain_ms(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ U(fwd.drain_ms, 0, 60000, "--drain-ms"); return 0; }

static int o_hist_file(struct vf_app *app, const char *arg, char *err, size_t errlen)
{ return set_str(app->ses.hist_file, sizeof(app->ses.hist_file), arg, "--hist-file", err, errlen); }

const struct vf_opt vf_common_opts[] = {
	{ "port", 0, "SPEC", "add a port: DRIVER[,key=value...] or dpdk:DEVARGS (repeatable)",
	  VF_COMP_PORT, NULL, o_port },
	{ "fwd", 0, "MODE", "forwarding mode", VF_COMP_MODE, NULL, o_fwd },
	{ "forward-mode", 0, "MODE", "alias of --fwd", VF_COMP_MODE, NULL, o_fwd },
	{ "nb-cores", 0, "N", "forwarding cores to use (default: all but the main lcore)",
	  VF_COMP_NONE, NULL, o_nb_cores },
	{ "rxq", 0, "N", "rx queues per port (default 1)", VF_COMP_NONE, NULL, o_rxq },
	{ "txq", 0, "N", "tx queues per port (default 1)", VF_COMP_NONE, NULL, o_txq },
	{ "rxd", 0, "N", "rx descriptors per queue (default 1024)", VF_COMP_NONE, NULL, o_rxd },
	{ "txd", 0, "N", "tx descriptors per queue (default 1024)", VF_COMP_NONE, NULL, o_txd },
	{ "burst", 0, "N", "packets per burst, 1..512 (default 32)", VF_COMP_NONE, NULL, o_burst },
	{ "tx-retry", 0, "N", "frames a full tx ring refused: offered again up to N times, 0..1024, "
	  "before they are dropped (default 0: dropped at once)", VF_COMP_NONE, NULL, o_tx_retry },
	{ "tx-retry-us", 0, "US", "microseconds between those tries, 0..1000 (default 1)",
	  VF_COMP_NONE, NULL, o_tx_retry_us },
	{ "rx-mode", 0, "MODE", "ports that can notify (memif, vhost, virtio_user): poll, interrupt, or adaptive "
	  "(sleep after 250 us idle) (default: adaptive in vhostd and memifctl, else poll); a port's "
	  "rx-mode= wins", VF_COMP_CHOICES, "poll|interrupt|adaptive", o_rx_mode },
	{ "txpkts", 0, "LENS", "generators: frame lengths without FCS, 42..9000 (past one mbuf, chained): a length (64), "
	  "a list (64,570,1518), lengths with weights (64:7,570:4,1518:1) or imix, sent in a fixed "
	  "interleaved order (default 64)", VF_COMP_CHOICES, VF_MIX_NAMES, o_txpkts },
	{ "flows", 0, "N", "generators: flows, 1..16777216 (flowgen/measure default 1024 over the source "
	  "address; with --flow-*: every tuple of their ranges)", VF_COMP_NONE, NULL, o_flows },
	{ "flow-src", 0, "RANGE", "generators: IPv4 or IPv6 source: 10.0.0.1, 10.0.0.1-10.0.3.255, "
	  "10.0.0.0/22, 2001:db8::1-2001:db8::ffff (the last 32 bits vary), a range with :inc (default) "
	  "or :random[:SEED] (default 198.18.0.1, IPv6 2001:2::1)", VF_COMP_NONE, NULL, o_flow_src },
	{ "flow-dst", 0, "RANGE", "generators: IPv4 or IPv6 destination, as --flow-src, the same family "
	  "(default 198.19.0.2, IPv6 2001:2:0:1::2)", VF_COMP_NONE, NULL, o_flow_dst },
	{ "flow-sport", 0, "RANGE", "generators: UDP source port: 9 or 1024-65535, a range with :inc "
	  "(default) or :random[:SEED] (default 9)", VF_COMP_NONE, NULL, o_flow_sport },
	{ "flow-dport", 0, "RANGE", "generators: UDP destination port, as --flow-sport (default 9)",
	  VF_COMP_NONE, NULL, o_flow_dport },
	{ "flow-src-mac", 0, "RANGE", "generators: source MAC: 02:00:00:00:00:01 or "
	  "02:00:00:00:00:01-02:00:00:00:00:ff (the last 32 bits vary), a range with :inc (default) "
	  "or :random[:SEED] (default: the port's)", VF_COMP_NONE, NULL, o_flow_smac },
	{ "flow-dst-mac", 0, "RANGE", "generators: destination MAC, as --flow-src-mac "
	  "(default: --eth-peer's)", VF_COMP_NONE, NULL, o_flow_dmac },
	{ "flow-vlan", 0, "RANGE", "generators: one 802.1Q tag with this VLAN ID, 0..4095, or a range "
	  "(100-199) with :inc (default) or :random[:SEED] (default: untagged)",
	  VF_COMP_NONE, NULL, o_flow_vlan },
	{ "rate", 0, "RATE", "txonly/flowgen/measure/replay: all streams together, in packets/s (200k, 1.5Mpps), "
	  "L2 bit/s with the FCS (1Mbps, 10Gbps), L1 bit/s (10Gbps-L1: also preamble and gap) "
	  "or percent of each port's link (50%) (default: unlimited)",
	  VF_COMP_NONE, NULL, o_rate },
	{ "pattern", 0, "PATTERN", "txonly/flowgen/measure: how the frames fall: constant (default), "
	  "burst:N/T (N frames every T, e.g. burst:64/1ms), burst:N (bursts of N at --rate) "
	  "or poisson[:SEED] (random arrivals at --rate)",
	  VF_COMP_CHOICES, "constant|burst:|poisson", o_pattern },
	{ "pcap", 0, "FILE", "replay: the capture to send (pcap or pcapng, Ethernet), read into memory at start",
	  VF_COMP_FILE, NULL, o_pcap },
	{ "speed", 0, "FACTOR", "replay: play the recorded timing FACTOR times as fast (default 1); --rate paces instead",
	  VF_COMP_NONE, NULL, o_speed },
	{ "loop", 0, "N", "replay: send the capture N times, then end the run (default 1; 0: until stopped)",
	  VF_COMP_NONE, NULL, o_loop },
	{ "split", 0, "MODE", "replay, two ports a pair: the first port sends the frames from the first frame's "
	  "source MAC (mac) or of pcapng interface 0 (iface), the second the rest (default none: both all)",
	  VF_COMP_CHOICES, VF_PCAP_SPLIT_NAMES, o_split },
	{ "count", 0, "N", "txonly/flowgen/measure: packets to generate per stream, then idle (measure: then stop) (default: unlimited)",
	  VF_COMP_NONE, NULL, o_count },
	{ "drain-ms", 0, "MS", "measure: receive up to this long after the last send, so late packets count (default 100)",
	  VF_COMP_NONE, NULL, o_drain_ms },
	{ "hist-file", 0, "PATH", "measure: write the latency distribution in HdrHistogram's text format",
	  VF_COMP_FILE, NULL, o_hist_file },
	{ "max-loss", 0, "RATIO", "measure: exit 1 if the loss ratio is above RATIO (e.g. 0.001)",
	  VF_COMP_NONE, NULL, vf__o_max_loss },
	{ "max-latency", 0, "PCT:USEC", "measure: exit 1 if the PCT percentile latency is above USEC (repeatable)",
	  VF_COMP_NONE, NULL, vf__o_max_latency },
	{ "check", 0, "WHAT", "measure: what the receiver checks of each frame: full (the UDP checksum over "
	  "every byte, default) or stamp (headers and stamp; the zeros after it are not read)",
	  VF_COMP_CHOICES, "full|stamp", o_check },
	{ "warmup", 0, "SEC", "measure/search: send for SEC seconds first and discard the figures",
	  VF_COMP_NONE, NULL, vf__o_warmup },
	{ "search", 0, NULL, "measure: find NDR and PDR (MLRsearch, RFC 9971), then latency at 10/50/90% of PDR",
	  VF_COMP_NONE, NULL, vf__o_search },
	{ "search-method", 0, "METHOD", "search only: mlr (RFC 9971, default) or bisect (plain RFC 2544 bisection)",
	  VF_COMP_CHOICES, "mlr|bisect", vf__o_search_method },
	{ "search-goal", 0, "GOAL", "search only (mlr): a goal, repeatable: " VF_SEARCH_GOAL_PRESETS
	  " or KEY=VALUE,... of name, loss, exceed, trial, sum, width (default: ndr and pdr)",
	  VF_COMP_CHOICES, VF_SEARCH_GOAL_PRESETS, vf__o_search_goal },
	{ "search-sizes", 0, "SIZES", "search only: search once per frame length, then one table: rfc2544 "
	  "(64,128,256,512,1024,1280,1518) or lengths and named mixes, comma-separated (64,imix,1518)",
	  VF_COMP_CHOICES, "rfc2544|" VF_MIX_NAMES, vf__o_search_sizes },
	{ "pdr-loss", 0, "RATIO", "search only: loss ratio allowed at PDR (default 0.005)", VF_COMP_NONE, NULL, vf__o_pdr_loss },
	{ "min-rate", 0, "RATE", "search only: lowest rate tried, units as --rate (default 10000)", VF_COMP_NONE, NULL, vf__o_min_rate },
	{ "max-rate", 0, "RATE", "search only: highest rate tried, units as --rate (default: what the ports take unthrottled)",
	  VF_COMP_NONE, NULL, vf__o_max_rate },
	{ "trial", 0, "SEC", "search only: seconds per trial (mlr: of the default goals' final trials) (default 1)", VF_COMP_NONE, NULL, vf__o_trial },
	{ "precision", 0, "RATIO", "search only: stop when the interval is this narrow, relative (default 0.005)",
	  VF_COMP_NONE, NULL, vf__o_precision },
	{ "impair", 0, "SPEC", "impair mode: KEY=VALUE,... of loss, loss-every, seed, dup, reorder, delay, jitter, rate, limit",
	  VF_COMP_NONE, NULL, o_impair },
	{ "eth-peer", 0, "PORT,MAC", "destination MAC for mac mode on PORT (default 02:00:00:00:00:PORT)",
	  VF_COMP_NONE, NULL, o_eth_peer },
	{ "tx-first", 0, NULL, "send one burst per stream before forwarding", VF_COMP_NONE, NULL, o_tx_first },
	{ "one-way", 0, NULL, "generators: of each port pair only the first sends (its frames come back on the second)",
	  VF_COMP_NONE, NULL, o_one_way },
	{ "record-core-cycles", 0, NULL, "time each poll: busy share and cycles per packet in the stream stats",
	  VF_COMP_NONE, NULL, o_record_cycles },
	{ "auto-start", 'a', NULL, "start forwarding at once (interactive mode)",
	  VF_COMP_NONE, NULL, o_auto_start },
	{ "total-num-mbufs", 0, "N", "mbufs in the pool (default: from ports, queues and descriptors)",
	  VF_COMP_NONE, NULL, o_mbufs },
	{ "duration", 0, "SEC", "forward for SEC seconds, print the final stats and exit",
	  VF_COMP_NONE, NULL, o_duration },
	{ "stats-period", 0, "SEC", "print stats every SEC seconds (text: one line per period)", VF_COMP_NONE, NULL, o_stats_period },
	{ "json", 0, NULL, "stats as JSON objects, one per line, on stdout", VF_COMP_NONE, NULL, o_json },
	{ "stats-file", 0, "PATH", "also append the stats lines to PATH", VF_COMP_FILE, NULL, o_stats_file },
	{ "prom-file", 0, "PATH", "write the stats as Prometheus metrics to PATH every period (atomic rename)",
	  VF_COMP_FILE, NULL, o_prom_file },
	{ "capture", 0, "PORT[:rx|tx|both]:FILE", "write the packets PORT receives and sends to a pcapng FILE (default both)",
	  VF_COMP_NONE, NULL, o_capture },
	{ "interactive", 'i', NULL, "command prompt (forwarding starts with 'start', or -a)",
	  VF_COMP_NONE, NULL, o_interactive },
	{ "cmdline-file", 0, "FILE", "run the shell commands in FILE first", VF_COMP_FILE, NULL, o_cmdline_file },
	{ "ctl", 0, "PATH", "control socket for vfctl: the shell's commands while running (none: off; "
	  "vhostd, memifctl: on at /run/TOOL.ctl)", VF_COMP_FILE, NULL, o_ctl },
	{ "event-file", 0, "PATH", "append events (link, peers, reconnects, drops, rx modes) to PATH as "
	  "JSON lines, as vfctl monitor shows them", VF_COMP_FILE, NULL, o_event_file },
	{ "ctl-mode", 0, "OCTAL", "mode of the control socket file (default 0600)", VF_COMP_NONE, NULL, o_ctl_mode },
	{ "ctl-group", 0, "GROUP", "group of the control socket file; its members may connect (with --ctl-mode 0660)",
	  VF_COMP_NONE, NULL, o_ctl_group },
	{ "stop-on-error", 0, NULL, "a failing command exits with status 1", VF_COMP_NONE, NULL, o_stop_on_error },
	{ "lcores", 'l', "LIST", "cores to use, as DPDK's -l (default: all)", VF_COMP_NONE, NULL, o_lcores },
	{ "main-lcore", 0, "N", "core for the main thread (default: first of -l)", VF_COMP_NONE, NULL, o_main_lcore },
	{ "eal", 0, "ARGS", "extra DPDK EAL arguments, blank-separated", VF_COMP_NONE, NULL, o_eal },
	{ "verbose", 'v', NULL, "more log output on stderr (twice: debug)", VF_COMP_NONE, NULL, o_verbose },
	{ NULL },
};
