/* The memif port: devargs (DPDK net_memif's keys), the vf_driver ops, and
 * what "show port info" prints.  Protocol work happens on the control
 * thread; the main thread reaches it through vf_ctl_call(). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_ether.h>

#include "memif.h"
#include "vf_ctl.h"
#include "vf_log.h"
#include "vf_out.h"
#include "vf_peermem.h"
#include "vf_port.h"
#include "vf_secret.h"

static const struct vf_kvdef memif_keys[] = {
	{ "role", VF_KV_ENUM, 0, 0, "server|client|master|slave", "client",
	  "server listens, client connects and owns the shared memory" },
	{ "id", VF_KV_UINT, 0, UINT32_MAX, NULL, "0",
	  "interface id: one socket carries many interfaces" },
	{ "socket", VF_KV_STR, 0, MEMIF_SOCK_NAME_MAX - 1, NULL, "/run/memif.sock",
	  "control socket name; a leading @ means abstract" },
	{ "socket-abstract", VF_KV_BOOL, 0, 1, NULL, "yes",
	  "socket in the abstract namespace (as DPDK), no: a file (as VPP)" },
	{ "bsize", VF_KV_UINT, 1, 65535, NULL, "2048", "buffer size in bytes" },
	{ "rsize", VF_KV_UINT, 1, MEMIF_MAX_LOG2_RING, NULL, "10", "log2 of the ring size" },
	{ "secret", VF_KV_STR, 0, MEMIF_SECRET_SZ, NULL, "", "shared secret (server checks it)" },
	{ "secret-file", VF_KV_STR, 0, 0, NULL, "",
	  "file holding the secret (mode 0600, ours or root's): keeps it off the command line" },
	{ "mac", VF_KV_MAC, 0, 0, NULL, "02:76:66:00:00:<port>", "port MAC address" },
	{ "zero-copy", VF_KV_BOOL, 0, 1, NULL, "no",
	  "client: descriptors point into our mbufs, no copy on our side" },
	{ "queues", VF_KV_UINT, 1, MEMIF_MAX_QUEUES, NULL, "1",
	  "ring pairs (max queues of the port)" },
	{ "reconnect-ms", VF_KV_UINT, 0, 3600000, NULL, "1000",
	  "client: retry period after a failed connect or a disconnect; 0: once" },
	VF_ACCESS_KEYS,
	VF_RX_MODE_KEY,
	{ NULL, 0, 0, 0, NULL, NULL, NULL },
};

enum { ROLE_SERVER, ROLE_CLIENT, ROLE_MASTER, ROLE_SLAVE };

struct call {
	struct vf_port *port;
	struct memif_if *mif;
	struct vf_out *out;
	char err[160];
	int ret;
};

static void do_attach(void *arg)
{
	struct call *c = arg;
	struct memif_if *mif = c->mif;
	struct memif_sock *s;

	s = memif_sock_open(mif->cfg.socket, mif->cfg.abstract, &mif->cfg.access, c->err,
			    sizeof(c->err));
	if (s == NULL) {
		c->ret = -EIO;
		return;
	}
	c->ret = memif_sock_attach(s, mif, c->err, sizeof(c->err));
	if (c->ret < 0)
		memif_sock_put(s);
}

static int memif_check(const struct vf_devargs *da, char *err, size_t errlen)
{
	const char *sock = vf_devargs_str(da, "socket", "/run/memif.sock");
	struct vf_access acc;

	if (sock[0] == '\0' || !strcmp(sock, "@")) {
		snprintf(err, errlen, "socket: empty name: expected a path, or @NAME for an "
			 "abstract name");
		return -1;
	}
	if (vf_devargs_has(da, "secret") && vf_devargs_has(da, "secret-file")) {
		snprintf(err, errlen, "secret and secret-file: give one of them");
		return -1;
	}
	if (vf_devargs_has(da, "secret-file")) {
		/* Read once here so that a bad file stops the tool at start
		 * (exit 2) rather than at the first connection. */
		char s[MEMIF_SECRET_SZ + 1];
		int n = vf_secret_read_file(vf_devargs_str(da, "secret-file", ""), s,
					    MEMIF_SECRET_SZ, err, errlen);

		vf_secret_clear(s, sizeof(s));
		if (n < 0)
			return -1;
	}
	return vf_access_from_devargs(&acc, da, err, errlen) < 0 ? -1 : 0;
}

/* cfg->secret from secret= or secret-file=; 0 or -1 with a message. */
static int memif_secret(struct memif_cfg *cfg, const struct vf_devargs *da, char *err,
			size_t errlen)
{
	if (!vf_devargs_has(da, "secret-file")) {
		snprintf(cfg->secret, sizeof(cfg->secret), "%s", vf_devargs_str(da, "secret", ""));
		return 0;
	}
	/* The file is read again: it may have changed since the check. */
	return vf_secret_read_file(vf_devargs_str(da, "secret-file", ""), cfg->secret,
				   MEMIF_SECRET_SZ, err, errlen) < 0 ? -1 : 0;
}

static int memif_probe(struct vf_port *port, const struct vf_devargs *da)
{
	struct memif_cfg cfg = { 0 };
	const char *sock = vf_devargs_str(da, "socket", "/run/memif.sock");
	int role = vf_devargs_enum(da, "role", ROLE_CLIENT);
	struct memif_if *mif;
	struct call c = { 0 };

	/* The SIGBUS guard's one-time fd and handler exist before any peer
	 * does (fd counts across connections stay flat). */
	vf_peermem_init();
	cfg.server = role == ROLE_SERVER || role == ROLE_MASTER;
	if (role == ROLE_MASTER || role == ROLE_SLAVE)
		VF_WARN("memif: role=%s is deprecated, use %s", role == ROLE_MASTER ?
			"master" : "slave", cfg.server ? "server" : "client");
	cfg.id = vf_devargs_uint(da, "id", 0);
	cfg.abstract = vf_devargs_bool(da, "socket-abstract", true);
	if (sock[0] == '@') {
		/* libmemif's spelling of an abstract name */
		sock++;
		cfg.abstract = true;
	}
	if (sock[0] == '\0') {
		VF_ERR("memif: socket: empty name");
		return -EINVAL;
	}
	snprintf(cfg.socket, sizeof(cfg.socket), "%s", sock);
	cfg.bsize = vf_devargs_uint(da, "bsize", 2048);
	cfg.log2 = vf_devargs_uint(da, "rsize", 10);
	if (memif_secret(&cfg, da, c.err, sizeof(c.err)) < 0) {
		VF_ERR("memif %s: %s", port->name[0] ? port->name : "memif", c.err);
		return -EINVAL;
	}
	cfg.zero_copy = vf_devargs_bool(da, "zero-copy", false);
	cfg.queues = vf_devargs_uint(da, "queues", 0);
	cfg.reconnect_ms = vf_devargs_uint(da, "reconnect-ms", 1000);
	snprintf(cfg.if_name, sizeof(cfg.if_name), "%s",
		 port->name[0] ? port->name : "memif");
	if (cfg.zero_copy && cfg.server)
		VF_WARN("memif %s: zero-copy is a client feature (the client's memory is shared); "
			"ignored for role=server", cfg.if_name);
	if (vf_access_from_devargs(&cfg.access, da, c.err, sizeof(c.err)) < 0) {
		VF_ERR("memif %s: %s", cfg.if_name, c.err);
		return -EINVAL;
	}
	if (vf_access_file_keys(&cfg.access) && (!cfg.server || cfg.abstract))
		VF_WARN("memif %s: socket-mode and socket-group apply to a socket file a server "
			"creates; ignored for %s", cfg.if_name,
			cfg.server ? "an abstract name" : "role=client");
	if (!cfg.abstract)
		vf_sock_warn_dir(cfg.if_name, cfg.socket);

	mif = memif_if_new(&cfg);
	/* the interface holds its own copy */
	vf_secret_clear(cfg.secret, sizeof(cfg.secret));
	if (mif == NULL)
		return -ENOMEM;
	mif->port_id = port->id;
	if (cfg.server) {
		c.mif = mif;
		vf_ctl_start();
		vf_ctl_call(do_attach, &c);
		if (c.ret < 0) {
			VF_ERR("%s", c.err);
			memif_if_free(mif);
			return c.ret;
		}
	}
	/* Without mac= the framework's per-port local address stays. */
	vf_devargs_mac(da, "mac", port->mac);
	if (cfg.queues) {
		port->max_rxq = cfg.queues;
		port->max_txq = cfg.queues;
	} else {
		port->max_rxq = port->max_txq = MEMIF_MAX_QUEUES;
	}
	port->priv = mif;
	return 0;
}

static void do_configure(void *arg)
{
	struct call *c = arg;
	const struct vf_port_conf *conf = &c->port->conf;

	c->ret = memif_if_configure(c->mif, conf->nb_rxq, conf->nb_txq, conf->pool);
}

static int memif_configure(struct vf_port *port, const struct vf_port_conf *conf)
{
	struct call c = { .port = port, .mif = port->priv };
	struct vf_port_conf saved = port->conf;

	/* do_configure reads port->conf; the framework may store conf only
	 * after we return. */
	port->conf = *conf;
	vf_ctl_call(do_configure, &c);
	if (c.ret < 0)
		port->conf = saved;
	return c.ret;
}

static void do_enable(void *arg)
{
	struct call *c = arg;

	c->ret = memif_if_enable(c->mif);
}

static void do_disable(void *arg)
{
	struct call *c = arg;

	memif_if_disable(c->mif);
}

static int memif_start(struct vf_port *port)
{
	struct memif_if *mif = port->priv;
	struct call c = { .port = port, .mif = mif };

	snprintf(mif->cfg.if_name, sizeof(mif->cfg.if_name), "%s",
		 port->name[0] ? port->name : "memif");
	for (unsigned int i = 0; i < MEMIF_MAX_QUEUES; i++) {
		mif->rxq[i].port_id = port->id;
		port->rxq[i] = &mif->rxq[i];
		port->txq[i] = &mif->txq[i];
	}
	mif->zc = false;
	if (mif->cfg.zero_copy && !mif->cfg.server) {
		char why[160];

		if (memif_zc_check(mif->pool, why, sizeof(why)) == 0)
			mif->zc = true;
		else
			VF_WARN("memif %s: zero-copy not possible: %s; using copy mode",
				mif->cfg.if_name, why);
	}
	/* Chosen once: no per-packet branch on the role or the mode. */
	if (mif->cfg.server) {
		port->rx_burst = memif_rx_server;
		port->tx_burst = memif_tx_server;
		port->slots = &memif_slots_server;
	} else if (mif->zc) {
		port->rx_burst = memif_rx_client_zc;
		port->tx_burst = memif_tx_client_zc;
		port->slots = NULL;	/* the buffers are mbufs already */
	} else {
		port->rx_burst = memif_rx_client;
		port->tx_burst = memif_tx_client;
		port->slots = &memif_slots_client;
	}
	vf_ctl_start();
	/* No wait for the handshake: a server that accepts and never answers
	 * would hold the caller (the shell) for as long as we waited.  The
	 * link comes up when it is done; --tx-first waits for it. */
	vf_ctl_call(do_enable, &c);
	return c.ret;
}

static void memif_stop(struct vf_port *port)
{
	struct call c = { .port = port, .mif = port->priv };

	vf_ctl_call(do_disable, &c);
}

static void do_close(void *arg)
{
	struct call *c = arg;
	struct memif_if *mif = c->mif;
	struct memif_sock *s = mif->sock;

	memif_if_disable(mif);
	if (s != NULL) {
		memif_sock_detach(s, mif);
		memif_sock_put(s);
	}
	memif_if_free(mif);
}

static void memif_close(struct vf_port *port)
{
	struct call c = { .port = port, .mif = port->priv };

	if (port->priv == NULL)
		return;
	vf_ctl_call(do_close, &c);
	port->priv = NULL;
}

static void memif_link_get(struct vf_port *port, struct vf_link *link)
{
	struct memif_if *mif = port->priv;

	link->up = __atomic_load_n(&mif->link_up, __ATOMIC_ACQUIRE);
	link->speed_mbps = 0;
}

static void memif_stats_get(struct vf_port *port, struct vf_port_stats *st)
{
	struct memif_if *mif = port->priv;

	memset(st, 0, sizeof(*st));
	for (unsigned int i = 0; i < MEMIF_MAX_QUEUES; i++) {
		const struct memif_queue *rq = &mif->rxq[i], *tq = &mif->txq[i];

		st->ipackets += vf_ctr_read(rq->pkts);
		st->ibytes += vf_ctr_read(rq->bytes);
		st->ierrors += vf_ctr_read(rq->bad_desc) + vf_ctr_read(rq->ring_err);
		st->rx_nombuf += vf_ctr_read(rq->nombuf);
		st->opackets += vf_ctr_read(tq->pkts);
		st->obytes += vf_ctr_read(tq->bytes);
		st->oerrors += vf_ctr_read(tq->ring_err);
	}
}

static void memif_stats_reset(struct vf_port *port)
{
	struct memif_if *mif = port->priv;

	for (unsigned int i = 0; i < MEMIF_MAX_QUEUES; i++) {
		struct memif_queue *q[2] = { &mif->rxq[i], &mif->txq[i] };

		for (int k = 0; k < 2; k++) {
			vf_ctr_set(q[k]->pkts, 0);
			vf_ctr_set(q[k]->bytes, 0);
			vf_ctr_set(q[k]->errors, 0);
			vf_ctr_set(q[k]->nombuf, 0);
			vf_ctr_set(q[k]->bad_desc, 0);
			vf_ctr_set(q[k]->ring_err, 0);
		}
	}
}

static int memif_xstats_get(struct vf_port *port, struct vf_xstat *xs, unsigned int n)
{
	struct memif_if *mif = port->priv;
	uint64_t bad_desc = 0, ring_err = 0, undelivered = 0, nopeer = 0;
	unsigned int k = 0;

	for (unsigned int i = 0; i < MEMIF_MAX_QUEUES; i++) {
		bad_desc += vf_ctr_read(mif->rxq[i].bad_desc) + vf_ctr_read(mif->txq[i].bad_desc);
		ring_err += vf_ctr_read(mif->rxq[i].ring_err) + vf_ctr_read(mif->txq[i].ring_err);
		undelivered += vf_ctr_read(mif->rxq[i].undelivered);
		nopeer += vf_ctr_read(mif->txq[i].nopeer);
	}
#define XS(nm, v) do {							\
		if (k < n) {						\
			snprintf(xs[k].name, sizeof(xs[k].name), "%s", nm); \
			xs[k].value = (v);				\
		}							\
		k++;							\
	} while (0)
	XS("memif_connects", mif->nb_connects);
	XS("memif_disconnects", mif->nb_disconnects);
	XS("memif_ctl_rejects", mif->ctl_rejects);
	XS("memif_ctl_preempted", mif->ctl_preempted);
	XS("memif_ctl_unread_msgs", mif->ctl_unread_msgs);
	XS("memif_bad_desc", bad_desc);
	XS("memif_ring_errors", ring_err);
	XS("memif_peer_rejects", mif->cfg.server && mif->sock ? mif->sock->peer_rejects
							       : mif->peer_rejects);
	XS("memif_mem_faults", mif->mem_faults);
	XS("memif_rx_dropped_disconnect", undelivered);
	XS("memif_tx_dropped_no_peer", nopeer);
#undef XS
	return k;
}

static void memif_xstats_reset(struct vf_port *port)
{
	struct memif_if *mif = port->priv;

	mif->nb_connects = mif->nb_disconnects = mif->ctl_rejects = 0;
	mif->ctl_preempted = mif->ctl_unread_msgs = 0;
	mif->mem_faults = 0;
	for (unsigned int i = 0; i < MEMIF_MAX_QUEUES; i++) {
		vf_ctr_set(mif->rxq[i].bad_desc, 0);
		vf_ctr_set(mif->txq[i].bad_desc, 0);
		vf_ctr_set(mif->rxq[i].ring_err, 0);
		vf_ctr_set(mif->txq[i].ring_err, 0);
		vf_ctr_set(mif->rxq[i].undelivered, 0);
		vf_ctr_set(mif->txq[i].nopeer, 0);
	}
}

/* Runs on the control thread so that strings and counts are consistent. */
static void do_info(void *arg)
{
	struct call *c = arg;
	struct memif_if *mif = c->mif;
	struct vf_out *o = c->out;

	vf_out_str(o, "role", mif->cfg.server ? "server" : "client");
	vf_out_u64(o, "id", mif->cfg.id);
	vf_out_strf(o, "socket", "%s%s", mif->cfg.abstract ? "@" : "", mif->cfg.socket);
	vf_out_bool(o, "socket_abstract", mif->cfg.abstract);
	vf_out_str(o, "state", memif_state_name(__atomic_load_n(&mif->state, __ATOMIC_ACQUIRE)));
	vf_out_bool(o, "link", __atomic_load_n(&mif->link_up, __ATOMIC_RELAXED));
	vf_out_str(o, "disconnect_reason", mif->reason);
	vf_out_str(o, "peer_name", mif->peer_name);
	vf_out_str(o, "peer_if", mif->peer_if);
	vf_peer_info(o, &mif->peer);
	vf_access_info(o, &mif->cfg.access, mif->cfg.abstract,
		       mif->cfg.server && mif->sock != NULL ? mif->cfg.socket : NULL);
	if (mif->cfg.server && mif->sock != NULL) {
		vf_out_u64(o, "peer_rejects", mif->sock->peer_rejects);
		vf_out_str(o, "last_refused", mif->sock->last_refused);
	} else {
		vf_out_u64(o, "peer_rejects", mif->peer_rejects);
		vf_out_str(o, "last_refused", mif->last_refused);
	}
	vf_out_u64(o, "bsize", mif->cfg.bsize);
	vf_out_u64(o, "rsize", mif->run_log2 ? mif->run_log2 : mif->cfg.log2);
	vf_out_bool(o, "zero_copy", mif->zc);
	vf_out_u64(o, "regions", mif->nregions);
	vf_out_u64(o, "rings_c2s", __atomic_load_n(&mif->state, __ATOMIC_ACQUIRE) == MEMIF_ST_CONNECTED ? mif->run_c2s : 0);
	vf_out_u64(o, "rings_s2c", __atomic_load_n(&mif->state, __ATOMIC_ACQUIRE) == MEMIF_ST_CONNECTED ? mif->run_s2c : 0);
	vf_out_u64(o, "connects", mif->nb_connects);
	vf_out_u64(o, "disconnects", mif->nb_disconnects);
	vf_out_u64(o, "ctl_rejects", mif->ctl_rejects);
	vf_out_u64(o, "ctl_preempted", mif->ctl_preempted);
	vf_out_u64(o, "ctl_unread_msgs", mif->ctl_unread_msgs);
	if (mif->cfg.server && mif->sock != NULL) {
		/* the listener's, shared by the interfaces on it: before INIT */
		vf_out_u64(o, "socket_preempted", mif->sock->preempted);
		vf_out_u64(o, "socket_deferred", mif->sock->deferred);
		vf_out_u64(o, "socket_unread_msgs", mif->sock->unread_msgs);
	}
	vf_out_u64(o, "mem_faults", mif->mem_faults);
	/* For leak checks across reconnects (copy mode holds no mbuf). */
	if (mif->pool != NULL)
		vf_out_u64(o, "pool_in_use", rte_mempool_in_use_count(mif->pool));
}

static void memif_info(struct vf_port *port, struct vf_out *out)
{
	struct call c = { .port = port, .mif = port->priv, .out = out };

	vf_ctl_call(do_info, &c);
}

static void do_ring_info(void *arg)
{
	struct call *c = arg;
	struct memif_if *mif = c->mif;
	struct vf_out *o = c->out;

	vf_out_arr_begin(o, "rings");
	for (int dir = 0; dir < 2; dir++) {
		struct memif_queue *qs = dir ? mif->txq : mif->rxq;

		for (unsigned int i = 0; i < MEMIF_MAX_QUEUES; i++) {
			struct memif_queue *q = &qs[i];

			if (!q->ready || q->ring == NULL)
				continue;
			vf_out_obj_begin(o, NULL);
			vf_out_str(o, "dir", dir ? "tx" : "rx");
			vf_out_u64(o, "queue", i);
			vf_out_str(o, "ring", (mif->cfg.server ^ (dir == 1)) ? "C2S" : "S2C");
			vf_out_u64(o, "size", q->size);
			vf_out_u64(o, "head", __atomic_load_n(&q->ring->head, __ATOMIC_RELAXED));
			vf_out_u64(o, "tail", __atomic_load_n(&q->ring->tail, __ATOMIC_RELAXED));
			vf_out_u64(o, "flags", __atomic_load_n(&q->ring->flags, __ATOMIC_RELAXED));
			vf_out_u64(o, "last", q->last);
			vf_out_obj_end(o);
		}
	}
	vf_out_arr_end(o);
}

static void memif_ring_info(struct vf_port *port, struct vf_out *out)
{
	struct call c = { .port = port, .mif = port->priv, .out = out };

	vf_ctl_call(do_ring_info, &c);
}

/* Copy mode copies into and out of the ring's buffers; a zero-copy client's
 * rings are our mbufs. */
static bool memif_keeps_mbufs(const struct vf_devargs *da)
{
	int role = vf_devargs_enum(da, "role", ROLE_CLIENT);

	return vf_devargs_bool(da, "zero-copy", false) &&
	       !(role == ROLE_SERVER || role == ROLE_MASTER);
}

static const struct vf_driver memif_driver = {
	.name = "memif",
	.help = "shared-memory packet interface (VPP, libmemif, DPDK net_memif), both roles",
	.keys = memif_keys,
	.check = memif_check,
	.keeps_mbufs = memif_keeps_mbufs,
	.probe = memif_probe,
	.configure = memif_configure,
	.start = memif_start,
	.stop = memif_stop,
	.close = memif_close,
	.link_get = memif_link_get,
	.link_events = true,
	.stats_get = memif_stats_get,
	.stats_reset = memif_stats_reset,
	.xstats_get = memif_xstats_get,
	.xstats_reset = memif_xstats_reset,
	.info = memif_info,
	.ring_info = memif_ring_info,
	.rx_intr_arm = memif_rx_intr_arm,
	.rx_intr_disarm = memif_rx_intr_disarm,
};

VF_DRIVER_REGISTER(memif_driver)
