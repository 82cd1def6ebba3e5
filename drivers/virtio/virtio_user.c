/* virtio_user: a virtio-net device whose backend is a vhost-user switch
 * (DPDK net_vhost, vhostd, OVS, VPP).  We are the vhost-user front-end: we
 * own the rings and all packet memory and hand the backend the DPDK heap
 * regions (lib/core/vf_mem.h) in SET_MEM_TABLE.
 *
 * The port ops and the ops table; the connection state machine and its
 * worker thread are in virtio_user_dev.c, the rings in virtio_user_queues.c,
 * the counters and info in virtio_user_stats.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_ether.h>
#include <rte_lcore.h>

#include "vf_ctl.h"
#include "vf_devargs.h"
#include "vf_log.h"
#include "vf_mem.h"
#include "vf_peercred.h"
#include "vf_port.h"
#include "vf_sync.h"

#include "vu_socket.h"
#include "virtio_inplace.h"
#include "virtio_rxtx.h"
#include "virtio_user_priv.h"
#include "virtio_user_dev.h"
#include "virtio_user_queues.h"
#include "virtio_user_stats.h"

/* ---- driver ops ---- */

static const struct vf_kvdef vu_keys[] = {
	{ "path", VF_KV_STR, 0, sizeof(((struct sockaddr_un *)0)->sun_path) - 1, NULL, NULL,
	  "vhost-user socket of the backend" },
	{ "queues", VF_KV_UINT, 1, VU_MAX_QP, NULL, "1", "queue pairs (rx and tx queues)" },
	{ "queue_size", VF_KV_UINT, 16, 32768, NULL, "256", "descriptors per ring (power of 2)" },
	{ "mac", VF_KV_MAC, 0, 0, NULL, "random", "port MAC address" },
	{ "mrg_rxbuf", VF_KV_BOOL, 0, 1, NULL, "1", "accept mergeable rx buffers" },
	{ "in_order", VF_KV_BOOL, 0, 1, NULL, "1", "accept VIRTIO_F_IN_ORDER" },
	{ "packed_vq", VF_KV_BOOL, 0, 1, NULL, "0", "1: packed rings (VIRTIO_F_RING_PACKED; the backend must offer it)" },
	{ "server", VF_KV_BOOL, 0, 1, NULL, "0",
	  "1: listen on path and accept the backend (again after it restarts)" },
	{ "reconnect-ms", VF_KV_UINT, 10, 3600000, NULL, "1000",
	  "server=0: first wait before connecting again to a backend that went (doubling to 8 s)" },
	{ "csum", VF_KV_BOOL, 0, 1, NULL, "0",
	  "ask for VIRTIO_NET_F_CSUM: the backend fills our partial checksums" },
	{ "guest_csum", VF_KV_BOOL, 0, 1, NULL, "0",
	  "ask for VIRTIO_NET_F_GUEST_CSUM: take partial or verified checksums" },
	{ "host_tso4", VF_KV_BOOL, 0, 1, NULL, "0",
	  "ask for VIRTIO_NET_F_HOST_TSO4: the backend takes IPv4 TSO frames (needs csum)" },
	{ "host_tso6", VF_KV_BOOL, 0, 1, NULL, "0",
	  "ask for VIRTIO_NET_F_HOST_TSO6: the backend takes IPv6 TSO frames (needs csum)" },
	{ "guest_tso4", VF_KV_BOOL, 0, 1, NULL, "0",
	  "ask for VIRTIO_NET_F_GUEST_TSO4: take IPv4 TSO frames (needs guest_csum, mrg_rxbuf)" },
	{ "guest_tso6", VF_KV_BOOL, 0, 1, NULL, "0",
	  "ask for VIRTIO_NET_F_GUEST_TSO6: take IPv6 TSO frames (needs guest_csum, mrg_rxbuf)" },
	VF_ACCESS_KEYS,
	VF_RX_MODE_KEY,
	{ NULL, 0, 0, 0, NULL, NULL, NULL },
};

struct probe_arg {
	struct vu_dev *d;
	int fd;
};

static void do_attach(void *arg)
{
	struct probe_arg *a = arg;

	vu_attach_start(a->d, a->fd);
}

/* The offload keys (one row each in vu_keys too): the feature bit, the key
 * it needs (virtio's feature dependencies), and whether 64 KiB frames come
 * in (guest TSO: they need mergeable rx buffers, ours are one mbuf). */
static const struct { const char *key, *needs; int bit; bool big_rx; } vu_ol[] = {
	{ "csum", NULL, VIRTIO_NET_F_CSUM, false },
	{ "guest_csum", NULL, VIRTIO_NET_F_GUEST_CSUM, false },
	{ "host_tso4", "csum", VIRTIO_NET_F_HOST_TSO4, false },
	{ "host_tso6", "csum", VIRTIO_NET_F_HOST_TSO6, false },
	{ "guest_tso4", "guest_csum", VIRTIO_NET_F_GUEST_TSO4, true },
	{ "guest_tso6", "guest_csum", VIRTIO_NET_F_GUEST_TSO6, true },
};

static int vu_check(const struct vf_devargs *da, char *err, size_t errlen)
{
	uint64_t qs = vf_devargs_uint(da, "queue_size", 256);
	struct vf_access acc;

	if (!vf_devargs_has(da, "path")) {
		snprintf(err, errlen, "virtio_user needs path=SOCKET");
		return -1;
	}
	if (qs & (qs - 1)) {
		snprintf(err, errlen, "queue_size=%" PRIu64 " is not a power of 2", qs);
		return -1;
	}
	for (size_t i = 0; i < RTE_DIM(vu_ol); i++) {
		if (!vf_devargs_bool(da, vu_ol[i].key, false))
			continue;
		if (vu_ol[i].needs && !vf_devargs_bool(da, vu_ol[i].needs, false)) {
			snprintf(err, errlen, "%s=1 needs %s=1 (virtio feature dependency)",
				 vu_ol[i].key, vu_ol[i].needs);
			return -1;
		}
		if (vu_ol[i].big_rx && !vf_devargs_bool(da, "mrg_rxbuf", true)) {
			snprintf(err, errlen, "%s=1 needs mrg_rxbuf=1", vu_ol[i].key);
			return -1;
		}
	}
	return vf_access_from_devargs(&acc, da, err, errlen) < 0 ? -1 : 0;
}

/* vu_check has passed (vf_port_create runs it first). */
static int vu_probe(struct vf_port *port, const struct vf_devargs *da)
{
	struct vu_dev *d;
	char err[160];
	int rc = -EIO;

	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return -ENOMEM;
	d->port = port;
	snprintf(d->path, sizeof(d->path), "%s", vf_devargs_str(da, "path", ""));
	d->nqp = (uint16_t)vf_devargs_uint(da, "queues", 1);
	d->qsize = (uint16_t)vf_devargs_uint(da, "queue_size", 256);
	d->want_mrg = vf_devargs_bool(da, "mrg_rxbuf", true);
	d->want_inorder = vf_devargs_bool(da, "in_order", true);
	d->server = vf_devargs_bool(da, "server", false);
	d->retry_min_ms = (unsigned int)vf_devargs_uint(da, "reconnect-ms", VU_RETRY_MIN_MS);
	d->packed = vf_devargs_bool(da, "packed_vq", false);
	for (size_t i = 0; i < RTE_DIM(vu_ol); i++)
		if (vf_devargs_bool(da, vu_ol[i].key, false))
			d->want_ol |= 1ull << vu_ol[i].bit;
	if (vf_access_from_devargs(&d->access, da, err, sizeof(err)) < 0) {
		VF_ERR("%s: virtio_user: %s", port->name, err);
		free(d);
		return -EINVAL;
	}
	if (!d->server && vf_access_file_keys(&d->access))
		VF_WARN("%s: socket-mode and socket-group apply to the socket server=1 creates; "
			"ignored", port->name);
	vf_sock_warn_dir(port->name, d->path);
	d->listenfd = -1;
	d->fe.fd = -1;
	/* Rings and tx headers go to the memory the backend gets in
	 * SET_MEM_TABLE (vf_mem_share_alloc: the sealed peer heap when there
	 * is one, else DPDK's heap on this socket). */
	d->socket_id = (int)rte_socket_id();
	port->rx_offloads = (d->want_ol & VNET_OL_GUEST_FEATURES) != 0;
	if (!vf_devargs_mac(da, "mac", port->mac))
		rte_eth_random_addr(port->mac);
	port->max_rxq = port->max_txq = d->nqp;
	port->priv = d;

	vf_ctl_start();
	if (vu_worker_start(d) < 0) {
		rc = -EAGAIN;
		goto fail;
	}
	if (d->server) {
		int fd = vu_sock_listen(d->path, &d->access, err, sizeof(err));

		if (fd < 0) {
			VF_ERR("%s: %s", port->name, err);
			rc = fd;
			goto fail;
		}
		d->listenfd = fd;
		if (vf_ctl_add_fd(fd, vu_on_listen, d) < 0)
			goto fail;
		VF_INFO("%s: waiting for a vhost-user backend on %s", port->name, d->path);
	} else {
		/* Connected and let in here; the negotiation runs on the
		 * worker like any reconnect's, so that a silent backend holds
		 * neither the start of the other ports nor the shell. */
		struct probe_arg a = { d, vu_sock_connect(d->path, true) };

		if (a.fd < 0) {
			VF_ERR("%s: cannot connect to %s: %s", port->name, d->path, strerror(-a.fd));
			rc = a.fd;
			goto fail;
		}
		if (!vu_peer_allowed(d, a.fd)) {
			close(a.fd);
			rc = -EPERM;
			goto fail;
		}
		vf_ctl_call(do_attach, &a);
	}
	d->timer = vf_ctl_add_timer(VU_CHECK_MS, vu_on_timer, d);
	if (d->timer < 0)
		goto fail;
	return 0;
fail:
	port->priv = NULL;
	if (d->listenfd >= 0) {
		vf_ctl_del_fd(d->listenfd);
		close(d->listenfd);
		unlink(d->path);
	}
	d->closing = true;
	vu_wait_jobs(d, false);
	if (d->fe.fd >= 0) {
		vf_ctl_del_fd(d->fe.fd);
		close(d->fe.fd);
	}
	vu_worker_stop(d);
	free(d);
	return rc;
}


struct cfg_arg {
	struct vu_dev *d;
	const struct vf_port_conf *conf;
	int rc;
};

static void do_configure(void *arg)
{
	struct cfg_arg *a = arg;
	struct vu_dev *d = a->d;
	uint16_t np = a->conf->nb_rxq > a->conf->nb_txq ? a->conf->nb_rxq : a->conf->nb_txq;
	uint16_t i;

	if (d->running) {
		VF_ERR("%s: configure while the rings are in use", d->port->name);
		a->rc = -EBUSY;
		return;
	}
	if (np == 0 || np > d->nqp) {
		VF_ERR("%s: %u queues asked, queues=%u", d->port->name, np, d->nqp);
		a->rc = -EINVAL;
		return;
	}
	if (vio_rx_pool_check(a->conf->pool, d->want_mrg) < 0) {
		VF_ERR("%s: mbufs too small for a frame (mrg_rxbuf=0 needs 1514 bytes per buffer)",
		       d->port->name);
		a->rc = -EINVAL;
		return;
	}
	vu_free(d);
	d->active_qp = 0;
	for (i = 0; i < np; i++) {
		if (vu_q_new(d, &d->rxq[i], true, 2 * i) < 0 || vu_q_new(d, &d->txq[i], false, 2 * i + 1) < 0) {
			vu_free(d);
			a->rc = -ENOMEM;
			return;
		}
		d->rxq[i]->pool = d->txq[i]->pool = a->conf->pool;
		d->rxq[i]->room = d->txq[i]->room =
			rte_pktmbuf_data_room_size(a->conf->pool) - RTE_PKTMBUF_HEADROOM;
	}
	d->active_qp = np;
	a->rc = 0;
}

static int vu_configure(struct vf_port *port, const struct vf_port_conf *conf)
{
	struct cfg_arg a = { port->priv, conf, 0 };

	vu_wait_jobs(a.d, true);	/* a stop still in flight holds the rings */
	vf_ctl_call(do_configure, &a);
	return a.rc;
}

static void do_start(void *arg)
{
	struct vu_dev *d = arg;

	d->started = true;
	vu_dev_run(d);
}

static int vu_start(struct vf_port *port)
{
	struct vu_dev *d = port->priv;
	uint16_t i;

	for (i = 0; i < VF_MAX_QUEUES; i++) {
		port->rxq[i] = i < d->active_qp ? d->rxq[i] : NULL;
		port->txq[i] = i < d->active_qp ? d->txq[i] : NULL;
	}
	/* The ring kind is fixed by packed_vq (negotiation fails without
	 * it), so the bursts are chosen once here. */
	if (d->want_ol & VNET_OL_GUEST_FEATURES)
		port->rx_burst = d->packed ? vio_rx_burst_packed_ol : vio_rx_burst_ol;
	else
		port->rx_burst = d->packed ? vio_rx_burst_packed : vio_rx_burst;
	/* Offloads or not, a request in a packet is finished (in software
	 * where the backend does not take it) before it goes out. */
	port->tx_burst = d->packed ? vio_tx_burst_packed_ol : vio_tx_burst_ol;
	/* Frames in place for measure: split rings (virtio_inplace.c). */
	port->slots = d->packed ? NULL : &vio_slots_split;
	/* Without a backend yet the queues are simply not ready (bursts
	 * move nothing) until one connects. */
	vf_ctl_call(do_start, d);
	return 0;
}

static void do_stop(void *arg)
{
	struct vu_dev *d = arg;

	/* Returns at once: the GET_VRING_BASE exchange is a job. */
	d->started = false;
	vu_dev_halt(d, true);
}

static void vu_stop(struct vf_port *port)
{
	struct vu_dev *d = port->priv;

	vf_ctl_call(do_stop, d);
	port->rx_burst = vf_port_rx_none;
	port->tx_burst = vf_port_tx_none;
	port->slots = NULL;
}

static void do_close(void *arg)
{
	struct vu_dev *d = arg;

	d->started = false;
	d->closing = true;
	vu_dev_halt(d, true);	/* a stop job, or nothing */
	if (busy(d) == VU_JOB_NEGOTIATE)
		shutdown(d->fe.fd, SHUT_RDWR);	/* nothing to wait for */
	if (d->listenfd >= 0) {
		vf_ctl_del_fd(d->listenfd);
		close(d->listenfd);
		unlink(d->path);
		d->listenfd = -1;
	}
	if (d->timer > 0)
		vf_ctl_del_timer(d->timer);
	d->timer = 0;
}

static void do_close_end(void *arg)
{
	struct vu_dev *d = arg;

	set_link(d, false);
	if (d->running) {
		vu_q_all(d, vu_q_unready, NULL);
		vf_sync_wait();
		vu_q_all(d, vu_q_reset, NULL);
		d->running = false;
	}
	if (d->fe.fd >= 0) {
		vu_unwatch(d);
		close(d->fe.fd);
		d->fe.fd = -1;
	}
}

static void vu_close(struct vf_port *port)
{
	struct vu_dev *d = port->priv;

	if (d == NULL)
		return;
	vf_ctl_call(do_close, d);
	/* A healthy backend answers the stop at once; a silent one is hung
	 * up on after VU_CLOSE_WAIT_MS. */
	vu_wait_jobs(d, false);
	vf_ctl_call(do_close_end, d);
	vu_worker_stop(d);
	vu_free(d);
	free(d);
	port->priv = NULL;
}

static void vu_link_get(struct vf_port *port, struct vf_link *link)
{
	struct vu_dev *d = port->priv;

	link->up = __atomic_load_n(&d->link_up, __ATOMIC_ACQUIRE);
	link->speed_mbps = 0;
}

/* Rx modes (virtio_intr.c).  The queues change only at configure, while
 * no core forwards. */
static int vu_rx_intr_arm(struct vf_port *port, uint16_t q)
{
	struct vu_dev *d = port->priv;

	return d && q < d->active_qp && d->rxq[q] ? vio_rx_intr_arm(d->rxq[q]) : -1;
}

static void vu_rx_intr_disarm(struct vf_port *port, uint16_t q)
{
	struct vu_dev *d = port->priv;

	if (d && q < d->active_qp && d->rxq[q])
		vio_rx_intr_disarm(d->rxq[q]);
}

static const struct vf_driver vu_driver = {
	.name = "virtio_user",
	.tx_offloads = true,
	.help = "virtio-net device over vhost-user (front-end; split or packed rings)",
	.keys = vu_keys,
	.check = vu_check,
	.probe = vu_probe,
	.configure = vu_configure,
	.start = vu_start,
	.stop = vu_stop,
	.close = vu_close,
	.link_get = vu_link_get,
	.link_events = true,
	.stats_get = vu_stats_get,
	.stats_reset = vu_stats_reset,
	.xstats_get = vu_xstats_get,
	.info = vu_info,
	.ring_info = vu_ring_info,
	.rx_intr_arm = vu_rx_intr_arm,
	.rx_intr_disarm = vu_rx_intr_disarm,
};

VF_DRIVER_REGISTER(vu_driver);
