/* Shell family: forwarding (start, stop, set ..., show config, fwd stats). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_lcore.h>

#include "vf_session.h"
#include "vf_parse.h"
#include "vf_runtime.h"
#include "vf_shell_priv.h"
#include "vf_stats.h"

static uint64_t num(const char *s)
{
	return strtoull(s, NULL, 10);
}

static int need_stopped(void)
{
	if (vf_fwd_running())
		return vf_cmd_error("forwarding is running: stop it first");
	return 0;
}

static void fwd_stats(struct vf_cmd_ctx *c)
{
	vf_out_obj_begin(c->out, NULL);
	vf_out_title(c->out, "Forward statistics (%s mode, %.3f s, %s)", c->ses->fwd.mode->name,
		     vf_fwd_elapsed(), vf_fwd_running() ? "running" : "stopped");
	if (vf_out_is_json(c->out)) {	/* text: in the title */
		vf_out_str(c->out, "mode", c->ses->fwd.mode->name);
		vf_out_dbl(c->out, "elapsed", vf_fwd_elapsed());
		vf_out_bool(c->out, "running", vf_fwd_running());
	}
	vf_stats_streams(c->out, "total", NULL, NULL, NULL);
	if (c->ses->fwd.mode->drains && vf_meas_nb_streams())
		vf_meas_report(c->out, false);
	vf_out_obj_end(c->out);
}

static int start_common(struct vf_cmd_ctx *c, unsigned int bursts)
{
	int ret;

	if (vf_fwd_running())
		return vf_cmd_error("forwarding already started");
	ret = vf_session_fwd_start(c->ses, bursts);
	if (ret)
		return vf_cmd_error("cannot start forwarding: %s", strerror(-ret));
	return 0;
}

static int cmd_start(struct vf_cmd_ctx *c, int argc, char **argv)
{
	return start_common(c, c->ses->tx_first ? 1 : 0);
}

static int cmd_start_tx_first(struct vf_cmd_ctx *c, int argc, char **argv)
{
	uint64_t n = argc ? num(argv[0]) : 1;

	if (n < 1 || n > 10000)
		return vf_cmd_error("tx_first bursts: expected 1..10000");
	return start_common(c, (unsigned int)n);
}

static int cmd_stop(struct vf_cmd_ctx *c, int argc, char **argv)
{
	if (!vf_fwd_running())
		return vf_cmd_error("forwarding is not started");
	vf_fwd_stop();
	fwd_stats(c);
	return 0;
}

static int cmd_show_fwd_stats(struct vf_cmd_ctx *c, int argc, char **argv)
{
	fwd_stats(c);
	return 0;
}

static int cmd_clear_fwd_stats(struct vf_cmd_ctx *c, int argc, char **argv)
{
	vf_fwd_stats_clear();
	vf_meas_clear();
	return 0;
}

static int show_latency(struct vf_cmd_ctx *c, bool hist)
{
	if (!vf_meas_nb_streams())
		return vf_cmd_error("no measurement: run the measure mode (set fwd measure, start)");
	vf_out_obj_begin(c->out, NULL);
	vf_out_dbl(c->out, "elapsed", vf_fwd_elapsed());
	vf_out_bool(c->out, "running", vf_fwd_running());
	vf_meas_report(c->out, hist);
	vf_out_obj_end(c->out);
	return 0;
}

static int cmd_show_latency(struct vf_cmd_ctx *c, int argc, char **argv)
{
	return show_latency(c, false);
}

static int cmd_show_latency_hist(struct vf_cmd_ctx *c, int argc, char **argv)
{
	return show_latency(c, true);
}

static int cmd_set_drain(struct vf_cmd_ctx *c, int argc, char **argv)
{
	uint64_t n = num(argv[0]);

	if (n > 60000)
		return vf_cmd_error("drain-ms: expected 0..60000");
	c->ses->fwd.drain_ms = (uint32_t)n;
	return 0;
}

static int cmd_show_config_fwd(struct vf_cmd_ctx *c, int argc, char **argv)
{
	struct vf_session *a = c->ses;

	vf_out_obj_begin(c->out, NULL);
	vf_out_title(c->out, "%s packet forwarding, burst %u, %u stream(s)", a->fwd.mode->name,
		     a->fwd.burst, vf_fwd_nb_streams());
	vf_out_str(c->out, "mode", a->fwd.mode->name);
	vf_out_u64(c->out, "burst", a->fwd.burst);
	vf_out_u64(c->out, "nb_cores", a->nb_cores);
	vf_out_u64(c->out, "lcores_available", vf_fwd_lcores_available());
	vf_out_bool(c->out, "running", vf_fwd_running());
	vf_out_bool(c->out, "record_core_cycles", a->fwd.record_cycles);
	if (a->fwd.mode == vf_fwd_mode_find("impair")) {
		char spec[512];

		vf_impair_format(&a->impair, spec, sizeof(spec));
		vf_out_str(c->out, "impair", spec);
	}
	vf_out_arr_begin(c->out, "streams");
	for (unsigned int i = 0; i < vf_fwd_nb_streams(); i++) {
		const struct vf_stream *fs = vf_fwd_stream(i);

		vf_out_obj_begin(c->out, NULL);
		vf_out_title(c->out, "lcore %u: port %u/queue %u -> port %u/queue %u", fs->lcore,
			     fs->rx_port->id, fs->rx_queue, fs->tx_port->id, fs->tx_queue);
		vf_out_u64(c->out, "lcore", fs->lcore);
		vf_out_u64(c->out, "rx_port", fs->rx_port->id);
		vf_out_u64(c->out, "rx_queue", fs->rx_queue);
		vf_out_u64(c->out, "tx_port", fs->tx_port->id);
		vf_out_u64(c->out, "tx_queue", fs->tx_queue);
		vf_out_obj_end(c->out);
	}
	vf_out_arr_end(c->out);
	vf_out_obj_end(c->out);
	return 0;
}

static int cmd_show_config_rxtx(struct vf_cmd_ctx *c, int argc, char **argv)
{
	struct vf_session *a = c->ses;

	vf_out_obj_begin(c->out, NULL);
	vf_out_u64(c->out, "rxq", a->nb_rxq);
	vf_out_u64(c->out, "txq", a->nb_txq);
	vf_out_u64(c->out, "rxd", a->nb_rxd);
	vf_out_u64(c->out, "txd", a->nb_txd);
	vf_out_u64(c->out, "burst", a->fwd.burst);
	vf_out_u64(c->out, "tx_retry", a->fwd.tx_retry);
	vf_out_u64(c->out, "tx_retry_us", a->fwd.tx_retry_us);
	{
		char buf[192];

		vf_mix_fmt(buf, sizeof(buf), &a->fwd.txpkts);
		vf_out_str(c->out, "txpkts", buf);
		vf_out_dbl(c->out, "frame_mean", vf_mix_mean(&a->fwd.txpkts, vf_session_min_len(a)));
		/* the flows of the mode in use, as the next start resolves them */
		struct vf_fwd_cfg cfg = a->fwd;
		if (vf_fwd_flows_resolve(&cfg, buf, sizeof(buf)) == 0)
			vf_out_u64(c->out, "flows", cfg.flows.n);
		for (unsigned int i = 0; i < VF_NB_FIELDS; i++) {
			vf_field_fmt(buf, sizeof(buf), (enum vf_field_id)i, &cfg.flows.f[i]);
			vf_out_str(c->out, vf_field_option((enum vf_field_id)i), buf);
		}
	}
	vf_out_u64(c->out, "rate", a->fwd.rate_pps);
	vf_out_u64(c->out, "count", a->fwd.count);
	vf_out_u64(c->out, "mbufs", a->fwd.pool ? a->fwd.pool->size : 0);
	vf_out_u64(c->out, "mbufs_in_use", a->fwd.pool ? rte_mempool_in_use_count(a->fwd.pool) : 0);
	vf_out_obj_end(c->out);
	return 0;
}

static int cmd_show_config_runtime(struct vf_cmd_ctx *c, int argc, char **argv)
{
	vf_out_obj_begin(c->out, NULL);
	vf_out_str(c->out, "file_prefix", vf_runtime_prefix());
	vf_out_str(c->out, "memory", vf_runtime_hugepages() ? "hugepages" : "memfd");
	vf_out_strf(c->out, "telemetry_socket", "%s/dpdk_telemetry.v2", rte_eal_get_runtime_dir());
	vf_out_u64(c->out, "lcores", rte_lcore_count());
	vf_out_u64(c->out, "main_lcore", rte_get_main_lcore());
	vf_out_u64(c->out, "forwarding_lcores", vf_fwd_lcores_available());
	vf_out_obj_end(c->out);
	return 0;
}

static int cmd_set_fwd(struct vf_cmd_ctx *c, int argc, char **argv)
{
	if (need_stopped())
		return -1;
	c->ses->fwd.mode = vf_fwd_mode_find(argv[0]);
	return 0;
}

static int cmd_set_burst(struct vf_cmd_ctx *c, int argc, char **argv)
{
	uint64_t n = num(argv[0]);

	if (n < 1 || n > VF_MAX_BURST)
		return vf_cmd_error("burst: expected 1..%d", VF_MAX_BURST);
	if (need_stopped())
		return -1;
	c->ses->fwd.burst = (uint16_t)n;
	return 0;
}

static int cmd_set_tx_retry(struct vf_cmd_ctx *c, int argc, char **argv)
{
	uint64_t n = num(argv[0]), us = argc > 1 ? num(argv[1]) : c->ses->fwd.tx_retry_us;

	if (n > VF_FWD_TX_RETRY_MAX || us > VF_FWD_TX_RETRY_US_MAX)
		return vf_cmd_error("tx-retry: expected N in 0..%d and US in 0..%d",
				    VF_FWD_TX_RETRY_MAX, VF_FWD_TX_RETRY_US_MAX);
	if (need_stopped())
		return -1;
	c->ses->fwd.tx_retry = (uint32_t)n;
	c->ses->fwd.tx_retry_us = (uint32_t)us;
	return 0;
}

static int cmd_set_record_cycles(struct vf_cmd_ctx *c, int argc, char **argv)
{
	/* The shell has checked the word against "on|off". */
	if (need_stopped())
		return -1;
	c->ses->fwd.record_cycles = strcmp(argv[0], "on") == 0;
	return 0;
}

static int cmd_set_txpkts(struct vf_cmd_ctx *c, int argc, char **argv)
{
	struct vf_mix m;
	char err[320];

	if (vf_mix_parse(argv[0], &m, VF_MIX_MIN_LEN, VF_MIX_MAX_LEN, err, sizeof(err)))
		return vf_cmd_error("txpkts: %s", err);
	if (need_stopped())
		return -1;
	c->ses->fwd.txpkts = m;
	return 0;
}

static int cmd_set_nbcore(struct vf_cmd_ctx *c, int argc, char **argv)
{
	uint64_t n = num(argv[0]);

	if (n < 1 || n > vf_fwd_lcores_available())
		return vf_cmd_error("nbcore: expected 1..%u (forwarding lcores)", vf_fwd_lcores_available());
	if (need_stopped())
		return -1;
	c->ses->nb_cores = (unsigned int)n;
	return 0;
}

static int cmd_set_eth_peer(struct vf_cmd_ctx *c, int argc, char **argv)
{
	uint64_t port = num(argv[0]);
	unsigned int b[6];

	if (port >= VF_MAX_PORTS)
		return vf_cmd_error("eth-peer: port must be < %d", VF_MAX_PORTS);
	sscanf(argv[1], "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]);
	for (int i = 0; i < 6; i++)
		c->ses->fwd.peer[port].addr_bytes[i] = (uint8_t)b[i];
	c->ses->eth_peer_set[port] = true;
	return 0;
}

static int cmd_set_rate(struct vf_cmd_ctx *c, int argc, char **argv)
{
	uint64_t pps;
	unsigned int ns = vf_fwd_nb_streams(), senders = vf_fwd_nb_senders();

	if (vf_parse_rate(argv[0], 0, 1000000000ull, &pps))
		return vf_cmd_error("rate: expected 0 (unlimited) or " VF_RATE_FORMS " (up to 1G)");
	if (c->ses->fwd.pattern.kind == VF_PATTERN_BURST && c->ses->fwd.pattern.burst_ns)
		return vf_cmd_error("rate: --pattern burst:N/T sets the rate (N/T); restart with burst:N to pace bursts at a rate");
	c->ses->fwd.rate_pps = pps;
	/* Running generators pick the new rate up at their next burst. */
	for (unsigned int i = 0; i < ns && vf_fwd_running(); i++) {
		struct vf_stream *fs = vf_fwd_stream(i);
		uint64_t r = pps ? (pps / senders ? pps / senders : 1) : 0;
		__atomic_store_n(&fs->tb_rate, r, __ATOMIC_RELAXED);
	}
	return 0;
}

static int cmd_set_impair(struct vf_cmd_ctx *c, int argc, char **argv)
{
	struct vf_impair_spec sp;
	char err[384];

	if (vf_impair_parse(argv[0], &sp, err, sizeof(err)))
		return vf_cmd_error("%s", err);
	if (need_stopped())
		return -1;
	c->ses->impair = sp;
	return 0;
}

static const struct vf_cmd fwd_cmds[] = {
	{ "start", "", "start forwarding", cmd_start },
	{ "start tx_first", "[N]", "send N bursts (default 1) per stream, then forward", cmd_start_tx_first },
	{ "stop", "", "stop forwarding and show the forward statistics", cmd_stop },
	{ "show fwd stats", "all [json]", "per-stream forward statistics", cmd_show_fwd_stats },
	{ "clear fwd stats", "all", "zero the forward statistics", cmd_clear_fwd_stats },
	{ "show latency", "[json]", "measure: loss, reordering and latency per sending stream", cmd_show_latency },
	{ "show latency hist", "[json]", "measure: the same with each stream's latency histogram", cmd_show_latency_hist },
	{ "set drain-ms", "MS", "measure: receive up to this long after the last send at stop", cmd_set_drain },
	{ "show config fwd", "[json]", "mode, burst and the streams on each lcore", cmd_show_config_fwd },
	{ "show config rxtx", "[json]", "queues, descriptors, burst and generator settings", cmd_show_config_rxtx },
	{ "show config runtime", "[json]", "EAL file prefix, memory kind, telemetry socket, lcores", cmd_show_config_runtime },
	{ "set fwd", "MODE", "forwarding mode (while stopped)", cmd_set_fwd },
	{ "set burst", "N", "packets per burst, 1..512 (while stopped)", cmd_set_burst },
	{ "set tx-retry", "N [N]", "offer frames a full tx ring refused again up to N times (0..1024, "
	  "0: drop at once), the second N microseconds apart (0..1000) (while stopped)", cmd_set_tx_retry },
	{ "set record-core-cycles", "on|off", "time each poll: busy share, cycles per packet (while stopped)",
	  cmd_set_record_cycles },
	{ "set txpkts", "WORD", "generated frame lengths, 42..2048: 64, 64,570,1518, 64:7,570:4,1518:1 "
	  "or imix (while stopped)", cmd_set_txpkts },
	{ "set nbcore", "N", "forwarding cores to use (while stopped)", cmd_set_nbcore },
	{ "set eth-peer", "PORT MAC", "destination MAC of mac mode on PORT", cmd_set_eth_peer },
	{ "set impair", "WORD", "impair mode: none or KEY=VALUE,... (see --impair; while stopped)", cmd_set_impair },
	{ "set rate", "PPS", "generator rate in packets/s (200k, 1.5M), 0 = unlimited (applies at once)", cmd_set_rate },
	{ NULL },
};

void vf__shell_register_fwd(void)
{
	vf_shell_register(fwd_cmds);
}
