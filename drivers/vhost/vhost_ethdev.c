/* The "vhost" port driver: devargs as DPDK's net_vhost (iface, queues,
 * client), ethdev-style ops over a vh_dev.  Port rx queue q dequeues from
 * vring 2q+1 (the front-end's transmitq), tx queue q enqueues into vring 2q
 * (its receiveq), as in net_vhost (protocols.md §1.8). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_random.h>

#include "vf_log.h"
#include "vf_out.h"
#include "vf_peermem.h"
#include "vf_port.h"
#include "vf_ctl.h"
#include "vhost_conn.h"
#include "vhost_dev.h"

static const struct vf_kvdef vhost_keys[] = {
	{ "iface", VF_KV_STR, 1, 107, NULL, NULL,
	  "vhost-user socket path (required)" },
	{ "queues", VF_KV_UINT, 1, VF_MAX_QUEUES, NULL, "1", "queue pairs" },
	{ "client", VF_KV_BOOL, 0, 1, NULL, "0",
	  "1: connect to a front-end in server mode, retrying every reconnect-ms" },
	{ "reconnect-ms", VF_KV_UINT, 10, 3600000, NULL, "1000",
	  "client=1: milliseconds between connection attempts" },
	VH_OL_KEYS,
	VF_ACCESS_KEYS,
	VF_RX_MODE_KEY,
	{ NULL },
};

static int vhost_check(const struct vf_devargs *da, char *err, size_t errlen)
{
	struct vf_access acc;

	if (!vf_devargs_has(da, "iface")) {
		snprintf(err, errlen, "iface=PATH is required (the vhost-user socket)");
		return -1;
	}
	if (vh_ol_from_devargs(da, err, errlen) < 0)
		return -1;
	return vf_access_from_devargs(&acc, da, err, errlen) < 0 ? -1 : 0;
}

static int vhost_probe(struct vf_port *port, const struct vf_devargs *da)
{
	const char *iface = vf_devargs_str(da, "iface", NULL);
	uint16_t nq = (uint16_t)vf_devargs_uint(da, "queues", 1);
	struct vh_dev *dev;
	char err[256];
	int64_t ol;
	int rc;

	if (!iface) {
		VF_ERR("%s: vhost: iface=PATH is required", port->name);
		return -EINVAL;
	}
	/* The SIGBUS guard's one-time fd and handler exist before any
	 * front-end does (fd counts across connections stay flat). */
	ol = vh_ol_from_devargs(da, err, sizeof(err));
	if (ol < 0) {
		VF_ERR("%s: vhost: %s", port->name, err);
		return -EINVAL;
	}
	vf_peermem_init();
	dev = aligned_alloc(RTE_CACHE_LINE_SIZE,
			    RTE_ALIGN_CEIL(sizeof(*dev), RTE_CACHE_LINE_SIZE));
	if (!dev)
		return -ENOMEM;
	vh_dev_init(dev, port->name, nq);
	dev->port_id = port->id;
	snprintf(dev->path, sizeof(dev->path), "%s", iface);
	dev->client = vf_devargs_bool(da, "client", false);
	dev->ol_offer = (uint64_t)ol;
	port->rx_offloads = (dev->ol_offer & VNET_OL_HOST_FEATURES) != 0;
	dev->retry_ms = (unsigned int)vf_devargs_uint(da, "reconnect-ms", 1000);
	if (vf_access_from_devargs(&dev->access, da, err, sizeof(err)) < 0) {
		VF_ERR("%s: vhost: %s", port->name, err);
		free(dev);
		return -EINVAL;
	}
	if (dev->client && vf_access_file_keys(&dev->access))
		VF_WARN("%s: socket-mode and socket-group apply to the socket a server creates; "
			"ignored with client=1", port->name);
	vf_sock_warn_dir(port->name, iface);
	port->priv = dev;
	port->max_rxq = port->max_txq = nq;
	/* locally administered, unicast */
	uint64_t r = rte_rand();
	memcpy(port->mac, &r, 6);
	port->mac[0] = (port->mac[0] & 0xfe) | 0x02;
	rc = vh_conn_open(dev, err, sizeof(err));
	if (rc) {
		VF_ERR("%s", err);
		free(dev);
		port->priv = NULL;
	}
	return rc;
}

static int vhost_configure(struct vf_port *port, const struct vf_port_conf *conf)
{
	struct vh_dev *dev = port->priv;

	for (uint16_t q = 0; q < dev->nb_qp; q++) {
		dev->vq[2 * q + 1].pool = conf->pool;
		dev->vq[2 * q + 1].port_id = port->id;
	}
	return 0;
}

static int vhost_start(struct vf_port *port)
{
	struct vh_dev *dev = port->priv;

	for (uint16_t q = 0; q < dev->nb_qp; q++) {
		port->rxq[q] = &dev->vq[2 * q + 1];
		port->txq[q] = &dev->vq[2 * q];
	}
	/* The headers matter only with CSUM or HOST_TSO offered; the
	 * enqueue side always finishes what a packet asks and the guest
	 * does not take (one flag test per packet when none asks). */
	port->rx_burst = (dev->ol_offer & VNET_OL_HOST_FEATURES) ? vh_ol_dequeue : vh_vq_dequeue;
	port->tx_burst = vh_ol_enqueue;
	return 0;
}

static void vhost_stop(struct vf_port *port)
{
	port->rx_burst = vf_port_rx_none;
	port->tx_burst = vf_port_tx_none;
}

static void vhost_close(struct vf_port *port)
{
	struct vh_dev *dev = port->priv;

	if (!dev)
		return;
	vh_conn_close(dev);
	free(dev);
	port->priv = NULL;
}

static void vhost_link_get(struct vf_port *port, struct vf_link *link)
{
	struct vh_dev *dev = port->priv;

	link->up = __atomic_load_n(&dev->link_up, __ATOMIC_ACQUIRE);
	link->speed_mbps = 0;
}

static uint64_t since(const uint64_t *now, const uint64_t *base, size_t k)
{
	return vf_ctr_read(now[k]) - base[k];
}

/* Counter k of vring i since the last reset. */
static uint64_t vq_stat(const struct vh_vq *vq, size_t k)
{
	return since((const uint64_t *)&vq->st, (const uint64_t *)&vq->base, k);
}

#define ST(f) (offsetof(struct vh_vq_stats, f) / sizeof(uint64_t))

static void vhost_stats_get(struct vf_port *port, struct vf_port_stats *st)
{
	struct vh_dev *dev = port->priv;

	memset(st, 0, sizeof(*st));
	for (uint16_t q = 0; q < dev->nb_qp; q++) {
		const struct vh_vq *rx = &dev->vq[2 * q + 1], *tx = &dev->vq[2 * q];

		st->ipackets += vq_stat(rx, ST(packets));
		st->ibytes += vq_stat(rx, ST(bytes));
		st->ierrors += vq_stat(rx, ST(bad_packet)) + vh_ol_rx_dropped(rx);
		st->rx_nombuf += vq_stat(rx, ST(nombuf));
		st->opackets += vq_stat(tx, ST(packets));
		st->obytes += vq_stat(tx, ST(bytes));
		st->oerrors += vq_stat(tx, ST(too_big)) + vh_ol_tx_dropped(tx);
	}
}

static void vhost_stats_reset(struct vf_port *port)
{
	struct vh_dev *dev = port->priv;

	for (unsigned int i = 0; i < 2u * dev->nb_qp; i++) {
		memcpy(&dev->vq[i].base, &dev->vq[i].st, sizeof(dev->vq[i].st));
		vh_ol_stats_reset(&dev->vq[i]);
	}
}

/* xstats: per queue, from this table; rx_ names read the dequeue vring,
 * tx_ names the enqueue vring. */
static const struct {
	const char *name;
	size_t k;
} rx_xs[] = {
	{ "packets", ST(packets) }, { "bytes", ST(bytes) },
	{ "bad_packet", ST(bad_packet) }, { "nombuf", ST(nombuf) },
	{ "ring_broken", ST(broken) }, { "calls", ST(calls) },
	{ "rarp", ST(rarp) }, { "log_pages", ST(log_pages) },
	{ "log_miss_pages", ST(log_miss) },
}, tx_xs[] = {
	{ "packets", ST(packets) }, { "bytes", ST(bytes) },
	{ "dropped_ring_full", ST(ring_full) }, { "dropped_too_big", ST(too_big) },
	{ "ring_broken", ST(broken) }, { "calls", ST(calls) },
	{ "log_pages", ST(log_pages) }, { "log_miss_pages", ST(log_miss) },
};
#define NB_RX_XS (sizeof(rx_xs) / sizeof(rx_xs[0]))
#define NB_TX_XS (sizeof(tx_xs) / sizeof(tx_xs[0]))

struct xs_put {
	struct vf_xstat *xs;
	unsigned int n, *k;
};

static void xs_put(void *arg, uint64_t v, const char *dir, unsigned int q, const char *name)
{
	struct xs_put *a = arg;

	if (*a->k < a->n) {
		snprintf(a->xs[*a->k].name, sizeof(a->xs[*a->k].name), "%s_q%u_%s", dir, q, name);
		a->xs[*a->k].value = v;
	}
	(*a->k)++;
}

static int xstats_locked(struct vf_port *port, struct vf_xstat *xs, unsigned int n)
{
	struct vh_dev *dev = port->priv;
	unsigned int k = 0;

#define PUT(v, ...) do {						\
		if (k < n) {						\
			snprintf(xs[k].name, sizeof(xs[k].name), __VA_ARGS__); \
			xs[k].value = (v);				\
		}							\
		k++;							\
	} while (0)
	for (uint16_t q = 0; q < dev->nb_qp; q++)
		for (size_t i = 0; i < NB_RX_XS; i++)
			PUT(vq_stat(&dev->vq[2 * q + 1], rx_xs[i].k), "rx_q%u_%s", q, rx_xs[i].name);
	for (uint16_t q = 0; q < dev->nb_qp; q++)
		for (size_t i = 0; i < NB_TX_XS; i++)
			PUT(vq_stat(&dev->vq[2 * q], tx_xs[i].k), "tx_q%u_%s", q, tx_xs[i].name);
	{
		struct xs_put a = { xs, n, &k };

		for (uint16_t q = 0; q < dev->nb_qp; q++)
			vh_ol_xstats(&dev->vq[2 * q + 1], &dev->vq[2 * q], q, xs_put, &a);
	}
	PUT(dev->connections, "connections");
	PUT(dev->ctl_rejects, "ctl_rejects");
	PUT(dev->link_changes, "link_changes");
	PUT(dev->peer_rejects, "peer_rejects");
	PUT(dev->mem_faults, "mem_faults");
	PUT(dev->log_bases, "log_bases");
	PUT(dev->rarp_requests, "rarp_requests");
	PUT(dev->drain_unfinished, "drains_unfinished");
	PUT(dev->stalled_msgs, "ctl_stalled_msgs");
	PUT(dev->unread_replies, "ctl_unread_replies");
	PUT(dev->preempted, "ctl_preempted");
	PUT(dev->busy_rejects, "ctl_busy_rejects");
	PUT(dev->wait_rejects, "ctl_wait_rejects");
#undef PUT
	return (int)k;
}

static void info_locked(struct vf_port *port, struct vf_out *o)
{
	struct vh_dev *dev = port->priv;

	vf_out_str(o, "iface", dev->path);
	vf_out_str(o, "mode", dev->client ? "client" : "server");
	vf_out_bool(o, "connected", dev->conn_fd >= 0);
	vf_out_u64(o, "queue_pairs", dev->nb_qp);
	vf_out_strf(o, "features", "0x%llx", (unsigned long long)dev->features);
	vf_out_strf(o, "offloads_offered", "0x%llx", (unsigned long long)dev->ol_offer);
	vf_out_strf(o, "protocol_features", "0x%llx",
		    (unsigned long long)dev->protocol_features);
	vf_out_strf(o, "status", "0x%x", dev->status);
	vf_out_u64(o, "mem_regions", dev->mem.nregions);
	vf_out_bool(o, "mem_sealed", dev->mem.nregions > 0 && !dev->mem_unsealed);
	vf_out_u64(o, "mem_faults", dev->mem_faults);
	vf_out_bool(o, "dirty_logging", dev->features & (1ull << VHOST_F_LOG_ALL));
	vf_out_u64(o, "log_bytes", dev->log ? dev->log->size : 0);
	vf_out_u64(o, "connections", dev->connections);
	vf_out_u64(o, "waiting", dev->nb_waiting);
	vf_out_u64(o, "preempted", dev->preempted);
	vf_out_str(o, "last_error", dev->last_error);
	vf_peer_info(o, &dev->peer);
	vf_access_info(o, &dev->access, false, dev->client ? NULL : dev->path);
	vf_out_u64(o, "peer_rejects", dev->peer_rejects);
	vf_out_str(o, "last_refused", dev->last_refused);
}

static void vhost_ring_info(struct vf_port *port, struct vf_out *o)
{
	struct vh_dev *dev = port->priv;

	vf_out_arr_begin(o, "vrings");
	for (unsigned int i = 0; i < 2u * dev->nb_qp; i++) {
		const struct vh_vq *vq = &dev->vq[i];

		vf_out_obj_begin(o, NULL);
		vf_out_u64(o, "vring", i);
		vf_out_u64(o, "size", vq->size);
		vf_out_u64(o, "last_avail", vq->last_avail);
		vf_out_u64(o, "last_used", vq->last_used);
		if (vq->packed) {
			vf_out_bool(o, "avail_wrap", vq->avail_wrap);
			vf_out_bool(o, "used_wrap", vq->used_wrap);
			vf_out_u64(o, "resumed_from_ring", vq->resumed);
		}
		vf_out_bool(o, "ready", vq->ready);
		vf_out_bool(o, "enabled", vq->enabled);
		vf_out_bool(o, "broken", vq->dp_broken);
		vf_out_bool(o, "call_fd", vq->callfd >= 0);
		vf_out_bool(o, "kick_fd", __atomic_load_n(&vq->kickfd, __ATOMIC_RELAXED) >= 0);
		vf_out_obj_end(o);
	}
	vf_out_arr_end(o);
}

/* The connection state and its counters (last_error, connections, the
 * ctl_* counts, the peer) are the control thread's: read them under its
 * dispatch lock (vf_ctl_call), never halfway through a callback. */
struct read_args {
	struct vf_port *port;
	struct vf_xstat *xs;
	unsigned int n;
	struct vf_out *o;
	int ret;
};

static void xstats_fn(void *arg)
{
	struct read_args *a = arg;

	a->ret = xstats_locked(a->port, a->xs, a->n);
}

static int vhost_xstats_get(struct vf_port *port, struct vf_xstat *xs, unsigned int n)
{
	struct read_args a = { .port = port, .xs = xs, .n = n };

	vf_ctl_call(xstats_fn, &a);
	return a.ret;
}

static void info_fn(void *arg)
{
	struct read_args *a = arg;

	info_locked(a->port, a->o);
}

static void vhost_info(struct vf_port *port, struct vf_out *o)
{
	struct read_args a = { .port = port, .o = o };

	vf_ctl_call(info_fn, &a);
}

/* Dequeue copies into mbufs of the burst, enqueue copies out of them. */
static bool vhost_keeps_mbufs(const struct vf_devargs *da)
{
	(void)da;
	return false;
}

/* Rx modes: port rx queue q dequeues vring 2q+1, whose kicks it asks for
 * (virtqueue_intr.c). */
static int vhost_rx_intr_arm(struct vf_port *port, uint16_t q)
{
	struct vh_dev *dev = port->priv;

	return dev && q < dev->nb_qp ? vh_vq_intr_arm(&dev->vq[2 * q + 1]) : -1;
}

static void vhost_rx_intr_disarm(struct vf_port *port, uint16_t q)
{
	struct vh_dev *dev = port->priv;

	if (dev && q < dev->nb_qp)
		vh_vq_intr_disarm(&dev->vq[2 * q + 1]);
}

static const struct vf_driver vhost_driver = {
	.name = "vhost",
	.tx_offloads = true,
	.keeps_mbufs = vhost_keeps_mbufs,
	.help = "vhost-user back-end (device side) for a VM's or container's virtio-net",
	.keys = vhost_keys,
	.check = vhost_check,
	.probe = vhost_probe,
	.configure = vhost_configure,
	.start = vhost_start,
	.stop = vhost_stop,
	.close = vhost_close,
	.link_get = vhost_link_get,
	.link_events = true,
	.stats_get = vhost_stats_get,
	.stats_reset = vhost_stats_reset,
	.xstats_get = vhost_xstats_get,
	.xstats_reset = vhost_stats_reset,
	.info = vhost_info,
	.ring_info = vhost_ring_info,
	.rx_intr_arm = vhost_rx_intr_arm,
	.rx_intr_disarm = vhost_rx_intr_disarm,
};

VF_DRIVER_REGISTER(vhost_driver)
