/* memifctl: a memif endpoint.  Connects to (or serves) VPP, DPDK
 * net_memif, libmemif or another memifctl; by default it reflects every
 * packet back to the same port with the MAC rewritten (mode mac). */
#include <stdio.h>
#include <string.h>

#include "vf_app.h"
#include "vf_port.h"
#include "vf_shell.h"

/* The tool's options build one memif port spec in finish(). */
static struct {
	const char *socket, *role, *secret;
	uint64_t id, queues;
	bool id_set, queues_set;
} mc;

static int set_socket(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	if (strchr(arg, ',') != NULL) {
		snprintf(err, errlen, "--socket: '%s' must not contain ','", arg);
		return -1;
	}
	mc.socket = arg;
	return 0;
}

static int set_role(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	if (strcmp(arg, "server") != 0 && strcmp(arg, "client") != 0) {
		snprintf(err, errlen, "--role: '%s': accepted: server, client", arg);
		return -1;
	}
	mc.role = arg;
	return 0;
}

static int set_id(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	if (vf_parse_u64(arg, 0, UINT32_MAX, &mc.id)) {
		snprintf(err, errlen, "--id: '%s': expected 0..%u", arg, UINT32_MAX);
		return -1;
	}
	mc.id_set = true;
	return 0;
}

static int set_queues(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	if (vf_parse_u64(arg, 1, VF_MAX_QUEUES, &mc.queues)) {
		snprintf(err, errlen, "--queues: '%s': expected 1..%d", arg, VF_MAX_QUEUES);
		return -1;
	}
	mc.queues_set = true;
	return 0;
}

static const struct vf_opt memifctl_opts[] = {
	{ "socket", 's', "PATH", "control socket (default /run/memif.sock, abstract; @NAME: abstract)",
	  VF_COMP_FILE, NULL, set_socket },
	{ "role", 'r', "ROLE", "server or client (default client)", VF_COMP_CHOICES,
	  "server|client", set_role },
	{ "id", 0, "N", "memif interface id (default 0)", VF_COMP_NONE, NULL, set_id },
	{ "queues", 'q', "N", "queue pairs (rings per direction), also sets --rxq/--txq",
	  VF_COMP_NONE, NULL, set_queues },
	/* the rest are the memif devargs of the same names */
	{ "bsize", 0, "BYTES", "buffer size (default 2048)", VF_COMP_NONE, NULL, NULL, "bsize" },
	{ "rsize", 0, "LOG2", "log2 of the ring size (default 10)", VF_COMP_NONE, NULL, NULL, "rsize" },
	{ "secret", 0, "STR", "shared secret, at most 24 bytes (seen by all in ps: prefer --secret-file)",
	  VF_COMP_NONE, NULL, NULL, "secret" },
	{ "secret-file", 0, "PATH", "read the secret from PATH (mode 0600, ours or root's)",
	  VF_COMP_FILE, NULL, NULL, "secret-file" },
	{ "socket-abstract", 0, "yes|no", "abstract socket name (default yes, as DPDK)",
	  VF_COMP_CHOICES, "yes|no", NULL, "socket-abstract" },
	{ "zero-copy", 'z', NULL, "client: no copy on our side, the server reads and writes our mbufs",
	  VF_COMP_NONE, NULL, NULL, "zero-copy" },
	{ "reconnect-ms", 0, "MS", "client: retry period, 0: connect once (default 1000)",
	  VF_COMP_NONE, NULL, NULL, "reconnect-ms" },
	VF_OPTS_ACCESS("server: mode of the socket file (default 0660)",
		       "server: group (name or gid) of the socket file",
		       "only peers of these users (NAME|UID, ':'-separated; "
		       "default on an abstract name: our uid and root)",
		       "only peers of these groups (NAME|GID, ':'-separated)"),
	{ NULL },
};

static int memifctl_finish(struct vf_app *app, char *err, size_t errlen)
{
	char spec[VF_DEVARGS_STR_MAX];

	if (mc.queues_set) {
		app->ses.nb_rxq = (uint16_t)mc.queues;
		app->ses.nb_txq = (uint16_t)mc.queues;
	}
	if (app->nb_specs > 0 && mc.socket == NULL && mc.role == NULL && !mc.id_set)
		return 0;	/* only --port given: use those */
	if ((size_t)snprintf(spec, sizeof(spec), "memif,role=%s,id=%llu%s%s%s",
			     mc.role ? mc.role : "client", (unsigned long long)mc.id,
			     mc.socket ? ",socket=" : "", mc.socket ? mc.socket : "",
			     app->port_kv) >= sizeof(spec)) {
		snprintf(err, errlen, "the memif port spec is too long (max %d characters)",
			 VF_DEVARGS_STR_MAX - 1);
		return -1;
	}
	return vf_app_add_spec(app, spec, err, errlen);
}

/* show memif all|PORT [json]: state, disconnect reason, peer, regions and
 * every ring's head/tail, for each memif port (or one). */
static int cmd_show_memif(struct vf_cmd_ctx *c, int argc, char **argv)
{
	int id;
	unsigned int n = 0;

	if (vf_cmd_port_arg(argv[0], true, &id))
		return -1;
	vf_out_obj_begin(c->out, NULL);
	vf_out_arr_begin(c->out, "memif");
	for (uint16_t i = 0; i < vf_port_count(); i++) {
		struct vf_port *p = vf_port_get(i);

		if (p == NULL || (id != -2 && id != i) || strcmp(p->drv->name, "memif") != 0)
			continue;
		vf_out_obj_begin(c->out, NULL);
		vf_out_title(c->out, "Port %u (%s)", p->id, p->name);
		vf_out_u64(c->out, "port", p->id);
		p->drv->info(p, c->out);
		p->drv->ring_info(p, c->out);
		vf_out_obj_end(c->out);
		n++;
	}
	vf_out_arr_end(c->out);
	vf_out_obj_end(c->out);
	if (n == 0 && id != -2)
		return vf_cmd_error("port %d is not a memif port", id);
	return 0;
}

static const struct vf_cmd memifctl_cmds[] = {
	{ "show memif", "all|PORT [json]",
	  "memif state, disconnect reason, peer, regions, rings with head and tail", cmd_show_memif },
	{ NULL, NULL, NULL, NULL },
};

static void memifctl_shell_init(struct vf_session *ses)
{
	vf_shell_register(memifctl_cmds);
}

static const struct vf_tool memifctl_tool = {
	.name = "memifctl",
	.summary = "A memif endpoint (server or client) for VPP, DPDK net_memif, libmemif "
		   "or another memifctl; reflects packets back (mode mac) by default.",
	.default_mode = "mac",
	.default_rx_mode = "adaptive",
	.opts = memifctl_opts,
	.finish = memifctl_finish,
	.shell_init = memifctl_shell_init,
	.default_ctl = "/run/memifctl.ctl",
};

int main(int argc, char **argv)
{
	return vf_app_main(&memifctl_tool, argc, argv);
}
