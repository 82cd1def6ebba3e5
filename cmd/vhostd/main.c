/* vhostd: the vhost-user back-end daemon.  Each --iface is one vhost-user
 * port ("vhost,iface=PATH"); one port forwards in mac mode back to itself,
 * two or more in io mode between pairs.  Everything else is the common
 * vf_app. */
#include <stdio.h>
#include <string.h>

#include "vf_app.h"
#include "vf_devargs.h"
#include "vf_ctlhandoff.h"
#include "vf_log.h"
#include "vf_port.h"
#include "vhost/vhost_takeover.h"

static const char *ifaces[VF_MAX_PORTS];
static unsigned int nb_ifaces;
static uint64_t queues;
static bool client;
static int o_iface(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	if (nb_ifaces == VF_MAX_PORTS) {
		snprintf(err, errlen, "too many --iface (max %d)", VF_MAX_PORTS);
		return -1;
	}
	/* the devargs parser splits on ',', so a path cannot hold one */
	if (!*arg || strchr(arg, ',') || strlen(arg) > 107) {
		snprintf(err, errlen, "bad --iface '%s': a socket path of 1..107 characters "
			 "without ','", arg);
		return -1;
	}
	ifaces[nb_ifaces++] = arg;
	return 0;
}

static int o_queues(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	if (vf_parse_u64(arg, 1, VF_MAX_QUEUES, &queues)) {
		snprintf(err, errlen, "bad --queues '%s': expected 1..%d", arg, VF_MAX_QUEUES);
		return -1;
	}
	return 0;
}

static int o_client(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	client = true;
	return 0;
}

/* --takeover CTL: the sockets and rings of the vhostd at CTL become ours
 * (drivers/vhost/vhost_takeover.h). */
static int o_takeover(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	if (!*arg || strlen(arg) > 107) {
		snprintf(err, errlen, "bad --takeover '%s': a control socket path of 1..107 "
			 "characters", arg);
		return -1;
	}
	vf_vhost_takeover_expect(arg);
	app->ctl_later = true;	/* its path is the old daemon's until it exits */
	return 0;
}

static int vhostd_before_service(struct vf_app *app)
{
	char err[512];

	(void)app;
	if (vf_vhost_takeover_run(err, sizeof(err)) == 0)
		return 0;
	VF_ERR("%s", err);
	return -1;
}

static const struct vf_opt vhostd_opts[] = {
	{ "iface", 0, "PATH", "vhost-user socket of one port (repeatable)",
	  VF_COMP_FILE, NULL, o_iface },
	{ "queues", 0, "N", "queue pairs per --iface port (default 1)",
	  VF_COMP_NONE, NULL, o_queues },
	{ "client", 0, NULL, "connect to front-ends in server mode (retry every second) "
	  "instead of listening", VF_COMP_NONE, NULL, o_client },
	{ "takeover", 0, "CTL", "take the ports over from the vhostd serving control socket "
	  "CTL, without the front-ends noticing (same --iface list; see vhostd(8))",
	  VF_COMP_FILE, NULL, o_takeover },
	VF_OPTS_ACCESS("mode of the --iface socket files (default 0660)",
		       "group (name or gid) of the --iface socket files",
		       "only front-ends of these users (NAME|UID, ':'-separated)",
		       "only front-ends of these groups (NAME|GID, ':'-separated)"),
	{ NULL },
};

static int vhostd_finish(struct vf_app *app, char *err, size_t errlen)
{
	char spec[VF_DEVARGS_STR_MAX];

	if (nb_ifaces == 0 && app->nb_specs == 0) {
		snprintf(err, errlen, "no port: give at least one --iface PATH");
		return -1;
	}
	/* --iface ports come first, in order, then any --port */
	for (unsigned int i = 0; i < nb_ifaces; i++) {
		if ((size_t)snprintf(spec, sizeof(spec), "vhost,iface=%s,queues=%u%s%s", ifaces[i],
				     (unsigned int)(queues ? queues : 1), client ? ",client=1" : "",
				     app->port_kv) >= sizeof(spec)) {
			snprintf(err, errlen, "--iface %s: port spec too long with the access options",
				 ifaces[i]);
			return -1;
		}
		if (app->nb_specs == VF_MAX_SPECS) {
			snprintf(err, errlen, "too many ports (max %d)", VF_MAX_SPECS);
			return -1;
		}
		memmove(&app->specs[i + 1], &app->specs[i],
			(app->nb_specs - i) * sizeof(app->specs[0]));
		app->nb_specs++;
		app->specs[i] = strdup(spec);
		if (!app->specs[i]) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	if (queues)
		app->ses.nb_rxq = app->ses.nb_txq = (uint16_t)queues;
	if (!app->mode_set && app->nb_specs > 1)
		app->ses.fwd.mode = vf_fwd_mode_find("io");
	return 0;
}

static const struct vf_tool vhostd_tool = {
	.name = "vhostd",
	.summary = "vhost-user back-end for VMs and containers: one --iface forwards "
		   "back to itself (mac mode), two or more forward between pairs (io).",
	.default_mode = "mac",
	.default_rx_mode = "adaptive",
	.opts = vhostd_opts,
	.finish = vhostd_finish,
	.default_ctl = "/run/vhostd.ctl",
	.before_service = vhostd_before_service,
};

int main(int argc, char **argv)
{
	/* Any running vhostd may be taken over through its control socket. */
	vf_ctlsock_set_handoff(VF_TAKEOVER_WORD, vf_vhost_takeover_serve, NULL);
	return vf_app_main(&vhostd_tool, argc, argv);
}
