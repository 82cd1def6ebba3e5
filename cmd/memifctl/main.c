/* memifctl: a memif endpoint.  Connects to (or serves) VPP, DPDK
 * net_memif, libmemif or another memifctl; by default it reflects every
 * packet back to the same port with the MAC rewritten (mode mac). */
#include <stdio.h>
#include <string.h>

#include "vf_app.h"
#include "vf_peercred.h"
#include "vf_port.h"
#include "vf_shell.h"

/* The tool's options build one memif port spec in finish(). */
static struct {
	const char *socket, *role, *secret;
	char extra[256];	/* ",bsize=..,rsize=.." */
	uint64_t id, queues;
	bool id_set, queues_set;
} mc;

static int add_kv(const char *key, const char *val, char *err, size_t errlen)
{
	size_t n = strlen(mc.extra);

	if (strchr(val, ',') != NULL || strchr(val, '=') != NULL) {
		/* A secret is never echoed. */
		snprintf(err, errlen, "--%s: '%s' must not contain ',' or '='", key,
			 strcmp(key, "secret") ? val : "***");
		return -1;
	}
	if ((size_t)snprintf(mc.extra + n, sizeof(mc.extra) - n, ",%s=%s", key, val) >=
	    sizeof(mc.extra) - n) {
		snprintf(err, errlen, "--%s: value too long", key);
		return -1;
	}
	return 0;
}

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

static int set_bsize(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	return add_kv("bsize", arg, err, errlen);
}

static int set_rsize(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	return add_kv("rsize", arg, err, errlen);
}

static int set_secret(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	return add_kv("secret", arg, err, errlen);
}

static int set_abstract(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	return add_kv("socket-abstract", arg, err, errlen);
}

static int set_reconnect(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	return add_kv("reconnect-ms", arg, err, errlen);
}

/* --socket-mode, --socket-group, --allow-uid, --allow-gid: the devargs of
 * the same names, checked here so that the error names the option. */
static int add_checked(const char *key, const char *arg, int (*chk)(const char *, char *, size_t),
		       char *err, size_t errlen)
{
	char expect[160];

	if (*arg && !strchr(arg, ',') && !strchr(arg, '=') && chk(arg, expect, sizeof(expect))) {
		snprintf(err, errlen, "--%s: '%s': expected %s", key, arg, expect);
		return -1;
	}
	return add_kv(key, arg, err, errlen);
}

static int set_mode(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	return add_checked("socket-mode", arg, vf_access_check_mode, err, errlen);
}

static int set_group(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	return add_checked("socket-group", arg, vf_access_check_group, err, errlen);
}

static int set_allow_uid(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	return add_checked("allow-uid", arg, vf_access_check_uids, err, errlen);
}

static int set_allow_gid(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	return add_checked("allow-gid", arg, vf_access_check_gids, err, errlen);
}

static int set_zc(struct vf_app *app, const char *arg, char *err, size_t errlen)
{
	return add_kv("zero-copy", "yes", err, errlen);
}

static const struct vf_opt memifctl_opts[] = {
	{ "socket", 's', "PATH", "control socket (default /run/memif.sock, abstract; @NAME: abstract)",
	  VF_COMP_FILE, NULL, set_socket },
	{ "role", 'r', "ROLE", "server or client (default client)", VF_COMP_CHOICES,
	  "server|client", set_role },
	{ "id", 0, "N", "memif interface id (default 0)", VF_COMP_NONE, NULL, set_id },
	{ "queues", 'q', "N", "queue pairs (rings per direction), also sets --rxq/--txq",
	  VF_COMP_NONE, NULL, set_queues },
	{ "bsize", 0, "BYTES", "buffer size (default 2048)", VF_COMP_NONE, NULL, set_bsize },
	{ "rsize", 0, "LOG2", "log2 of the ring size (default 10)", VF_COMP_NONE, NULL, set_rsize },
	{ "secret", 0, "STR", "shared secret, at most 24 bytes", VF_COMP_NONE, NULL, set_secret },
	{ "socket-abstract", 0, "yes|no", "abstract socket name (default yes, as DPDK)",
	  VF_COMP_CHOICES, "yes|no", set_abstract },
	{ "zero-copy", 'z', NULL, "client: no copy on our side, the server reads and writes our mbufs",
	  VF_COMP_NONE, NULL, set_zc },
	{ "reconnect-ms", 0, "MS", "client: retry period, 0: connect once (default 1000)",
	  VF_COMP_NONE, NULL, set_reconnect },
	{ "socket-mode", 0, "OCTAL", "server: mode of the socket file (default 0660)",
	  VF_COMP_NONE, NULL, set_mode },
	{ "socket-group", 0, "GROUP", "server: group (name or gid) of the socket file",
	  VF_COMP_NONE, NULL, set_group },
	{ "allow-uid", 0, "LIST", "only peers of these users (NAME|UID, ':'-separated; "
	  "default on an abstract name: our uid and root)", VF_COMP_NONE, NULL, set_allow_uid },
	{ "allow-gid", 0, "LIST", "only peers of these groups (NAME|GID, ':'-separated)",
	  VF_COMP_NONE, NULL, set_allow_gid },
	{ NULL, 0, NULL, NULL, 0, NULL, NULL },
};

static int memifctl_finish(struct vf_app *app, char *err, size_t errlen)
{
	char spec[512];

	if (mc.queues_set) {
		app->ses.nb_rxq = (uint16_t)mc.queues;
		app->ses.nb_txq = (uint16_t)mc.queues;
	}
	if (app->nb_specs > 0 && mc.socket == NULL && mc.role == NULL && !mc.id_set)
		return 0;	/* only --port given: use those */
	snprintf(spec, sizeof(spec), "memif,role=%s,id=%llu%s%s%s",
		 mc.role ? mc.role : "client", (unsigned long long)mc.id,
		 mc.socket ? ",socket=" : "", mc.socket ? mc.socket : "", mc.extra);
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
	.opts = memifctl_opts,
	.finish = memifctl_finish,
	.shell_init = memifctl_shell_init,
};

int main(int argc, char **argv)
{
	return vf_app_main(&memifctl_tool, argc, argv);
}
