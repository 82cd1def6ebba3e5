/* Shell family: ports (show port info/stats/xstats/ring, clear, start,
 * stop, attach, detach). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vf_session.h"
#include "vf_runtime.h"
#include "vf_capture.h"
#include "vf_shell_priv.h"
#include "vf_stats.h"

typedef void (*port_fn)(struct vf_cmd_ctx *c, struct vf_port *p);

/* Runs fn on one port or all, inside an array "ports" so that "all" and a
 * single port have the same JSON shape. */
static int each_port(struct vf_cmd_ctx *c, const char *arg, port_fn fn)
{
	int id;

	if (vf_cmd_port_arg(arg, true, &id))
		return -1;
	vf_out_obj_begin(c->out, NULL);
	vf_out_arr_begin(c->out, "ports");
	for (uint16_t i = 0; i < vf_port_count(); i++)
		if (vf_port_get(i) && (id == -2 || id == i))
			fn(c, vf_port_get(i));
	vf_out_arr_end(c->out);
	vf_out_obj_end(c->out);
	return 0;
}

static void port_info(struct vf_cmd_ctx *c, struct vf_port *p)
{
	struct vf_link link;
	const uint8_t *m = p->mac;

	vf_port_link(p, &link);
	vf_out_obj_begin(c->out, NULL);
	vf_out_title(c->out, "Port %u (%s)", p->id, p->name);
	vf_out_u64(c->out, "id", p->id);
	vf_out_str(c->out, "name", p->name);
	vf_out_str(c->out, "driver", p->drv->name);
	vf_out_str(c->out, "spec", p->spec);
	vf_out_strf(c->out, "mac", "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
	vf_out_str(c->out, "link", link.up ? "up" : "down");
	vf_out_u64(c->out, "speed_mbps", link.speed_mbps);
	vf_out_str(c->out, "state", p->started ? "started" : "stopped");
	vf_out_u64(c->out, "rxq", p->conf.nb_rxq);
	vf_out_u64(c->out, "txq", p->conf.nb_txq);
	vf_out_u64(c->out, "rxd", p->conf.nb_rxd);
	vf_out_u64(c->out, "txd", p->conf.nb_txd);
	vf_out_str(c->out, "rx_mode", vf_rx_mode_name(vf_port_rx_mode(p)));
	if (p->drv->info) {
		vf_out_obj_begin(c->out, "driver_info");
		p->drv->info(p, c->out);
		vf_out_obj_end(c->out);
	}
	vf_out_obj_end(c->out);
}

/* Rates since the previous "show port stats" of the same port. */
static struct vf_port_stats last_st[VF_MAX_PORTS];
static double last_t[VF_MAX_PORTS];

static void port_stats(struct vf_cmd_ctx *c, struct vf_port *p)
{
	struct vf_port_stats st;
	struct vf_rates r;
	double t = vf_now_s();

	vf_port_stats(p, &st);
	/* The first show of a port: rates since forwarding started. */
	if (last_t[p->id])
		vf_stats_rates(&last_st[p->id], &st, t - last_t[p->id], &r);
	else
		vf_stats_rates(&last_st[p->id], &st, vf_fwd_elapsed(), &r);
	last_st[p->id] = st;
	last_t[p->id] = t;
	vf_stats_port(c->out, p, &st, &r);
}

static void port_xstats(struct vf_cmd_ctx *c, struct vf_port *p)
{
	int n = vf_port_xstats(p, NULL, 0), got;
	struct vf_xstat *xs = n > 0 ? calloc((size_t)n, sizeof(*xs)) : NULL;

	vf_out_obj_begin(c->out, NULL);
	vf_out_title(c->out, "Port %u (%s) extended statistics", p->id, p->name);
	vf_out_u64(c->out, "id", p->id);
	vf_out_obj_begin(c->out, "xstats");
	got = xs ? vf_port_xstats(p, xs, (unsigned int)n) : 0;
	for (int i = 0; i < got && i < n; i++)
		vf_out_u64(c->out, xs[i].name, xs[i].value);
	vf_out_obj_end(c->out);
	vf_out_obj_end(c->out);
	free(xs);
}

static int cmd_show_info(struct vf_cmd_ctx *c, int argc, char **argv)
{
	return each_port(c, argv[0], port_info);
}

static int cmd_show_stats(struct vf_cmd_ctx *c, int argc, char **argv)
{
	int id;

	if (vf_cmd_port_arg(argv[0], true, &id))
		return -1;
	vf_out_obj_begin(c->out, NULL);
	vf_stats_port_table_begin(c->out);
	for (uint16_t i = 0; i < vf_port_count(); i++)
		if (vf_port_get(i) && (id == -2 || id == i))
			port_stats(c, vf_port_get(i));
	vf_stats_port_table_end(c->out);
	vf_out_obj_end(c->out);
	return 0;
}

static int cmd_show_xstats(struct vf_cmd_ctx *c, int argc, char **argv)
{
	return each_port(c, argv[0], port_xstats);
}

static int cmd_show_ring(struct vf_cmd_ctx *c, int argc, char **argv)
{
	int id;
	struct vf_port *p;

	if (vf_cmd_port_arg(argv[0], false, &id))
		return -1;
	p = vf_port_get((uint16_t)id);
	if (!p->drv->ring_info)
		return vf_cmd_error("driver %s has no ring state to show", p->drv->name);
	vf_out_obj_begin(c->out, NULL);
	vf_out_title(c->out, "Port %u (%s) rings", p->id, p->name);
	vf_out_u64(c->out, "id", p->id);
	p->drv->ring_info(p, c->out);
	vf_out_obj_end(c->out);
	return 0;
}

static int cmd_clear_stats(struct vf_cmd_ctx *c, int argc, char **argv)
{
	int id;

	if (vf_cmd_port_arg(argv[0], true, &id))
		return -1;
	for (uint16_t i = 0; i < vf_port_count(); i++)
		if (vf_port_get(i) && (id == -2 || id == i)) {
			vf_port_stats_reset(vf_port_get(i));
			vf_port_xstats_reset(vf_port_get(i));
			memset(&last_st[i], 0, sizeof(last_st[i]));
			last_t[i] = vf_now_s();
		}
	return 0;
}

static int port_start_stop(struct vf_cmd_ctx *c, const char *arg, bool start)
{
	int id, ret = 0;

	if (vf_cmd_port_arg(arg, true, &id))
		return -1;
	if (vf_fwd_running())
		return vf_cmd_error("forwarding is running: stop it first");
	for (uint16_t i = 0; i < vf_port_count(); i++) {
		struct vf_port *p = vf_port_get(i);

		if (!p || (id != -2 && id != i))
			continue;
		if (start) {
			int r = vf_port_start(p);
			if (r)
				ret = vf_cmd_error("port %u: cannot start: %s", i, strerror(-r));
		} else {
			vf_port_stop(p);
		}
	}
	return ret;
}

static int cmd_port_start(struct vf_cmd_ctx *c, int argc, char **argv)
{
	return port_start_stop(c, argv[0], true);
}

static int cmd_port_stop(struct vf_cmd_ctx *c, int argc, char **argv)
{
	return port_start_stop(c, argv[0], false);
}

static int cmd_port_attach(struct vf_cmd_ctx *c, int argc, char **argv)
{
	char err[512];
	int id;

	if (vf_fwd_running() && !vf_fwd_can_update())
		return vf_cmd_error("forwarding is running in %s mode, which sends its own frames: "
				    "stop it first", c->ses->fwd.mode->name);
	id = vf_session_port_add(c->ses, argv[0], err, sizeof(err));
	if (id < 0)
		return vf_cmd_error("%s", err);
	if (vf_fwd_running()) {
		/* Its streams join the running cores; the others go on. */
		int ret = vf_fwd_update(NULL);

		if (ret) {
			vf_port_close(vf_port_get((uint16_t)id));
			return vf_cmd_error("port %d not attached: %s", id, strerror(-ret));
		}
	} else {
		vf_fwd_setup(&c->ses->fwd, c->ses->nb_rxq > c->ses->nb_txq ? c->ses->nb_rxq : c->ses->nb_txq);
	}
	vf_out_obj_begin(c->out, NULL);
	vf_out_title(c->out, "Port %d attached: %s", id, vf_port_get((uint16_t)id)->name);
	vf_out_u64(c->out, "id", (uint64_t)id);
	vf_out_str(c->out, "name", vf_port_get((uint16_t)id)->name);
	vf_out_obj_end(c->out);
	return 0;
}

static int cmd_port_detach(struct vf_cmd_ctx *c, int argc, char **argv)
{
	int id;

	if (vf_cmd_port_arg(argv[0], false, &id))
		return -1;
	if (vf_fwd_running()) {
		int ret;

		if (!vf_fwd_can_update())
			return vf_cmd_error("forwarding is running in %s mode, which sends its own "
					    "frames: stop it first", c->ses->fwd.mode->name);
		/* Its streams leave the running cores first; the others go on. */
		ret = vf_fwd_update(vf_port_get((uint16_t)id));
		if (ret)
			return vf_cmd_error("port %d not detached: %s", id, strerror(-ret));
		vf_capture_port_closed((uint16_t)id);
		vf_port_close(vf_port_get((uint16_t)id));
		return 0;
	}
	vf_capture_port_closed((uint16_t)id);
	/* Streams point at ports: rebuild them without this one. */
	vf_port_close(vf_port_get((uint16_t)id));
	vf_fwd_setup(&c->ses->fwd, c->ses->nb_rxq > c->ses->nb_txq ? c->ses->nb_rxq : c->ses->nb_txq);
	return 0;
}

/* capture start PORT [rx|tx|both] FILE [count N] */
static int cmd_capture_start(struct vf_cmd_ctx *c, int argc, char **argv)
{
	unsigned int dirs = VF_CAP_RX | VF_CAP_TX;
	const char *file;
	uint64_t count = 0;
	char err[600], *end;
	int id, k = 1;

	if (vf_cmd_port_arg(argv[0], false, &id))
		return -1;
	if (argc > 2 && (!strcmp(argv[1], "rx") || !strcmp(argv[1], "tx") || !strcmp(argv[1], "both"))) {
		dirs = argv[1][0] == 'r' ? VF_CAP_RX : argv[1][0] == 't' ? VF_CAP_TX : dirs;
		k = 2;
	}
	file = argv[k++];
	if (k < argc) {
		if (strcmp(argv[k], "count") || k + 2 != argc)
			return vf_cmd_error("capture start: expected PORT [rx|tx|both] FILE [count N]");
		count = strtoull(argv[k + 1], &end, 10);
		if (*end || !count)
			return vf_cmd_error("capture start: count: expected a number >= 1");
	}
	if (vf_capture_start((uint16_t)id, dirs, file, count, err, sizeof(err)))
		return vf_cmd_error("%s", err);
	return 0;
}

static void capture_out(struct vf_cmd_ctx *c, const struct vf_capture_stats *cs)
{
	char w[32], d[32];

	vf_out_obj_begin(c->out, NULL);
	vf_out_fmt_count(w, sizeof(w), cs->written);
	vf_out_fmt_count(d, sizeof(d), cs->dropped);
	vf_out_title(c->out, "capture of port %u (%s) %s: %s packets in %s, %s dropped", cs->port,
		     cs->dirs == VF_CAP_RX ? "rx" : cs->dirs == VF_CAP_TX ? "tx" : "rx and tx",
		     cs->running ? "running" : "stopped", w, cs->path, d);
	if (vf_out_is_json(c->out)) {
		vf_out_u64(c->out, "port", cs->port);
		vf_out_str(c->out, "direction", cs->dirs == VF_CAP_RX ? "rx" : cs->dirs == VF_CAP_TX ? "tx" : "both");
		vf_out_str(c->out, "file", cs->path);
		vf_out_bool(c->out, "running", cs->running);
		vf_out_u64(c->out, "packets", cs->written);
		vf_out_u64(c->out, "dropped", cs->dropped);
		vf_out_u64(c->out, "count", cs->count);
	}
	vf_out_obj_end(c->out);
}

static int cmd_capture_stop(struct vf_cmd_ctx *c, int argc, char **argv)
{
	struct vf_capture_stats cs;

	if (vf_capture_stop(&cs))
		return vf_cmd_error("no capture is running");
	capture_out(c, &cs);
	return 0;
}

static int cmd_show_capture(struct vf_cmd_ctx *c, int argc, char **argv)
{
	struct vf_capture_stats cs;

	if (!vf_capture_stats(&cs))
		return vf_cmd_error("no capture: capture start PORT [rx|tx|both] FILE [count N]");
	capture_out(c, &cs);
	return 0;
}

static int cmd_set_rx_mode(struct vf_cmd_ctx *c, int argc, char **argv)
{
	int id, m = vf_rx_mode_parse(argv[1]);
	unsigned int done = 0;

	if (vf_cmd_port_arg(argv[0], true, &id))
		return -1;
	if (m < 0)
		return vf_cmd_error("bad rx mode '%s': poll, interrupt or adaptive", argv[1]);
	for (uint16_t i = 0; i < vf_port_count(); i++) {
		struct vf_port *p = vf_port_get(i);

		if (!p || (id != -2 && id != i))
			continue;
		if (vf_port_set_rx_mode(p, (enum vf_rx_mode)m)) {
			if (id != -2)
				return p->drv->rx_intr_arm ?
					vf_cmd_error("port %u (%s): cannot notify: no rx interrupts (the "
						     "PMD has none, or its spec had no rx-mode= at start): "
						     "always polled", p->id, p->name) :
					vf_cmd_error("port %u (%s): the %s driver cannot notify: always polled",
						     p->id, p->name, p->drv->name);
			continue;
		}
		done++;
	}
	/* A sleeping core takes the new mode now, not at its next timeout. */
	vf_fwd_wake();
	vf_out_title(c->out, "rx mode %s on %u port(s)", vf_rx_mode_name((enum vf_rx_mode)m), done);
	return 0;
}

static const struct vf_cmd port_cmds[] = {
	{ "show port info", "all|PORT [json]", "driver, MAC, link, queues and driver details", cmd_show_info },
	{ "show port stats", "all|PORT [json]", "counters, and rates since the last show", cmd_show_stats },
	{ "show port xstats", "all|PORT [json]", "the driver's extended counters", cmd_show_xstats },
	{ "show port ring", "PORT [json]", "per-queue ring state (indices, free entries)", cmd_show_ring },
	{ "clear port stats", "all|PORT", "zero the counters", cmd_clear_stats },
	{ "set rx-mode", "all|PORT poll|interrupt|adaptive",
	  "poll, or sleep while the rx queues are idle (ports that can notify: memif, vhost, virtio_user)", cmd_set_rx_mode },
	{ "port start", "all|PORT", "start a stopped port", cmd_port_start },
	{ "port stop", "all|PORT", "stop a port (forwarding stopped)", cmd_port_stop },
	{ "port attach", "SPEC", "add a port of any driver (while forwarding too, but in a generating mode)", cmd_port_attach },
	{ "port detach", "PORT", "close and remove a port (while forwarding too, but in a generating mode)", cmd_port_detach },
	{ "capture start", "PORT WORD [WORD] [WORD] [WORD]",
	  "PORT [rx|tx|both] FILE [count N]: write the port's packets to a pcapng file", cmd_capture_start },
	{ "capture stop", "[json]", "stop the capture, close the file, print its counts", cmd_capture_stop },
	{ "show capture", "[json]", "the capture's file, packets written and dropped", cmd_show_capture },
	{ NULL },
};

void vf__shell_register_port(void)
{
	vf_shell_register(port_cmds);
}
