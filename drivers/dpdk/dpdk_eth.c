/* dpdk: any DPDK ethdev (real NICs, DPDK's own PMDs) inside our engine,
 * from its devargs: "dpdk:net_null0,size=64", "dpdk:0000:01:00.0". */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_vhost.h>

#include "vf_log.h"
#include "vf_out.h"
#include "vf_port.h"

struct dpdk_queue {
	uint16_t port_id, queue_id;
} __rte_cache_aligned;

struct dpdk_priv {
	uint16_t port_id;
	char devname[128];
	bool dev_started;
	bool rx_intr;		/* configured with intr_conf.rxq (rx modes) */
	/* net_vhost: its interrupt fd is an epoll fd over the front-end's
	 * kick fd, which only the kick fd's read clears; the device id to
	 * find it (rte_eth_vhost_get_vid_from_port_id, from the PMD). */
	int (*vhost_vid)(uint16_t port_id);
	struct dpdk_queue rxq[VF_MAX_QUEUES], txq[VF_MAX_QUEUES];
};

static uint16_t dpdk_rx(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct dpdk_queue *dq = q;

	return rte_eth_rx_burst(dq->port_id, dq->queue_id, pkts, n);
}

static uint16_t dpdk_tx(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct dpdk_queue *dq = q;

	return rte_eth_tx_burst(dq->port_id, dq->queue_id, pkts, n);
}

static int dpdk_check(const struct vf_devargs *da, char *err, size_t errlen)
{
	size_t n = strcspn(da->raw, ",");

	if (n == 0 || n >= sizeof(((struct dpdk_priv *)0)->devname)) {
		snprintf(err, errlen, "expected dpdk:DEVICE[,args] with a device name of 1..%zu "
			 "characters, e.g. dpdk:net_null0 or dpdk:0000:01:00.0",
			 sizeof(((struct dpdk_priv *)0)->devname) - 1);
		return -1;
	}
	return 0;
}

static int dpdk_probe(struct vf_port *port, const struct vf_devargs *da)
{
	struct dpdk_priv *p;
	struct rte_eth_dev_info info;
	size_t n = strcspn(da->raw, ",");
	int ret;

	p = rte_zmalloc("dpdk_port", sizeof(*p), RTE_CACHE_LINE_SIZE);
	if (!p)
		return -ENOMEM;
	memcpy(p->devname, da->raw, n);
	ret = rte_dev_probe(da->raw);
	if (ret < 0) {
		VF_ERR("dpdk: cannot probe '%s': %s", da->raw, strerror(-ret));
		rte_free(p);
		return ret;
	}
	if (rte_eth_dev_get_port_by_name(p->devname, &p->port_id)) {
		VF_ERR("dpdk: '%s' is not an ethdev", p->devname);
		rte_free(p);
		return -ENODEV;
	}
	if (rte_eth_dev_info_get(p->port_id, &info) == 0) {
		port->max_rxq = info.max_rx_queues < VF_MAX_QUEUES ? info.max_rx_queues : VF_MAX_QUEUES;
		port->max_txq = info.max_tx_queues < VF_MAX_QUEUES ? info.max_tx_queues : VF_MAX_QUEUES;
	}
	rte_eth_macaddr_get(p->port_id, (struct rte_ether_addr *)port->mac);
	snprintf(port->name, sizeof(port->name), "%s", p->devname);
	port->priv = p;
	return 0;
}

/* net_vhost's device id lookup, from the PMD's shared object (loaded by
 * the EAL as a plugin, so not linked here).  0, or -1 when the PMD is
 * net_vhost and the lookup is not found; other PMDs need none. */
static int need_vhost_vid(struct dpdk_priv *p)
{
	struct rte_eth_dev_info info;
	void *h;

	p->vhost_vid = NULL;
	if (rte_eth_dev_info_get(p->port_id, &info) || strcmp(info.driver_name, "net_vhost"))
		return 0;
	*(void **)&p->vhost_vid = dlsym(RTLD_DEFAULT, "rte_eth_vhost_get_vid_from_port_id");
	if (!p->vhost_vid) {
		h = dlopen("librte_net_vhost.so.23", RTLD_NOW | RTLD_NOLOAD);
		if (h) {
			*(void **)&p->vhost_vid = dlsym(h, "rte_eth_vhost_get_vid_from_port_id");
			dlclose(h);	/* still loaded: the EAL holds it */
		}
	}
	return p->vhost_vid ? 0 : -1;
}

static int dpdk_configure(struct vf_port *port, const struct vf_port_conf *conf)
{
	struct dpdk_priv *p = port->priv;
	struct rte_eth_conf ec;
	int ret;

	memset(&ec, 0, sizeof(ec));
	/* Rx modes: a port that may sleep asks the PMD for rx interrupts
	 * (rte_eth_dev_rx_intr_*); a polling one is configured as before
	 * and stays polled. */
	p->rx_intr = vf_port_rx_mode(port) != VF_RX_POLL;
	ec.intr_conf.rxq = p->rx_intr;
	ret = rte_eth_dev_configure(p->port_id, conf->nb_rxq, conf->nb_txq, &ec);
	if (ret < 0)
		return ret;
	for (uint16_t q = 0; q < conf->nb_rxq; q++) {
		ret = rte_eth_rx_queue_setup(p->port_id, q, conf->nb_rxd,
					     rte_eth_dev_socket_id(p->port_id), NULL, conf->pool);
		if (ret < 0)
			return ret;
		p->rxq[q] = (struct dpdk_queue){ p->port_id, q };
	}
	/* Tried once the queue exists: the ethdev answers -ENOTSUP for a PMD
	 * without rx interrupts, and a PMD may have them and still refuse
	 * (net_memif: -1). */
	if (p->rx_intr && (ret = rte_eth_dev_rx_intr_enable(p->port_id, 0)) == 0)
		ret = rte_eth_dev_rx_intr_disable(p->port_id, 0);
	if (p->rx_intr && ret < 0) {
		struct rte_eth_dev_info info;
		const char *pmd = rte_eth_dev_info_get(p->port_id, &info) == 0 ?
			info.driver_name : "?";

		if (port->rx_mode_given) {
			VF_ERR("%s: rx-mode=%s: the PMD %s has no rx interrupts (%s); use "
			       "rx-mode=poll", port->name, vf_rx_mode_name(vf_port_rx_mode(port)),
			       pmd, strerror(-ret));
			return -ENOTSUP;
		}
		VF_INFO("%s: the PMD %s has no rx interrupts (%s): polled", port->name, pmd,
			strerror(-ret));
		p->rx_intr = false;
		ec.intr_conf.rxq = 0;
		ret = rte_eth_dev_configure(p->port_id, conf->nb_rxq, conf->nb_txq, &ec);
		if (ret < 0)
			return ret;
		for (uint16_t q = 0; q < conf->nb_rxq; q++) {
			ret = rte_eth_rx_queue_setup(p->port_id, q, conf->nb_rxd,
						     rte_eth_dev_socket_id(p->port_id), NULL,
						     conf->pool);
			if (ret < 0)
				return ret;
		}
	}
	if (p->rx_intr && need_vhost_vid(p) < 0) {
		if (port->rx_mode_given) {
			VF_ERR("%s: rx-mode=%s: cannot reach net_vhost's kick fds; use rx-mode=poll",
			       port->name, vf_rx_mode_name(vf_port_rx_mode(port)));
			return -ENOTSUP;
		}
		p->rx_intr = false;	/* configured with it: harmless, never armed */
	}
	if (!p->rx_intr)
		__atomic_store_n(&port->rx_mode, (uint8_t)VF_RX_POLL, __ATOMIC_RELAXED);
	port->no_rx_intr = !p->rx_intr;
	for (uint16_t q = 0; q < conf->nb_txq; q++) {
		ret = rte_eth_tx_queue_setup(p->port_id, q, conf->nb_txd,
					     rte_eth_dev_socket_id(p->port_id), NULL);
		if (ret < 0)
			return ret;
		p->txq[q] = (struct dpdk_queue){ p->port_id, q };
	}
	return 0;
}

static int dpdk_start(struct vf_port *port)
{
	struct dpdk_priv *p = port->priv;
	int ret = rte_eth_dev_start(p->port_id);

	if (ret < 0)
		return ret;
	p->dev_started = true;
	rte_eth_promiscuous_enable(p->port_id);
	for (uint16_t q = 0; q < port->conf.nb_rxq; q++)
		port->rxq[q] = &p->rxq[q];
	for (uint16_t q = 0; q < port->conf.nb_txq; q++)
		port->txq[q] = &p->txq[q];
	port->rx_burst = dpdk_rx;
	port->tx_burst = dpdk_tx;
	return 0;
}

static void dpdk_stop(struct vf_port *port)
{
	struct dpdk_priv *p = port->priv;

	if (p->dev_started)
		rte_eth_dev_stop(p->port_id);
	p->dev_started = false;
}

static void dpdk_close(struct vf_port *port)
{
	struct dpdk_priv *p = port->priv;
	struct rte_eth_dev_info info;
	struct rte_device *dev = NULL;

	if (!p)
		return;
	if (rte_eth_dev_info_get(p->port_id, &info) == 0)
		dev = info.device;
	rte_eth_dev_close(p->port_id);
	if (dev)
		rte_dev_remove(dev);
	rte_free(p);
	port->priv = NULL;
}

static void dpdk_link(struct vf_port *port, struct vf_link *link)
{
	struct dpdk_priv *p = port->priv;
	struct rte_eth_link l;

	if (rte_eth_link_get_nowait(p->port_id, &l) == 0) {
		link->up = l.link_status == RTE_ETH_LINK_UP;
		link->speed_mbps = l.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN ? 0 : l.link_speed;
	}
}

static void dpdk_stats(struct vf_port *port, struct vf_port_stats *st)
{
	struct dpdk_priv *p = port->priv;
	struct rte_eth_stats s;

	if (rte_eth_stats_get(p->port_id, &s))
		return;
	st->ipackets = s.ipackets;
	st->opackets = s.opackets;
	st->ibytes = s.ibytes;
	st->obytes = s.obytes;
	st->imissed = s.imissed;
	st->ierrors = s.ierrors;
	st->oerrors = s.oerrors;
	st->rx_nombuf = s.rx_nombuf;
}

static int dpdk_xstats(struct vf_port *port, struct vf_xstat *xs, unsigned int n)
{
	struct dpdk_priv *p = port->priv;
	int cnt = rte_eth_xstats_get(p->port_id, NULL, 0);
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *vals;

	if (cnt <= 0)
		return 0;
	names = calloc((size_t)cnt, sizeof(*names));
	vals = calloc((size_t)cnt, sizeof(*vals));
	if (names && vals && rte_eth_xstats_get_names(p->port_id, names, (unsigned int)cnt) == cnt &&
	    rte_eth_xstats_get(p->port_id, vals, (unsigned int)cnt) == cnt) {
		for (int i = 0; i < cnt && (unsigned int)i < n; i++) {
			snprintf(xs[i].name, sizeof(xs[i].name), "%s", names[vals[i].id].name);
			xs[i].value = vals[i].value;
		}
	} else {
		cnt = 0;
	}
	free(names);
	free(vals);
	return cnt;
}

static void dpdk_xstats_reset(struct vf_port *port)
{
	struct dpdk_priv *p = port->priv;

	rte_eth_xstats_reset(p->port_id);
}

static void dpdk_info(struct vf_port *port, struct vf_out *o)
{
	struct dpdk_priv *p = port->priv;
	struct rte_eth_dev_info info;

	vf_out_u64(o, "ethdev_port", p->port_id);
	vf_out_str(o, "device", p->devname);
	if (rte_eth_dev_info_get(p->port_id, &info) == 0)
		vf_out_str(o, "pmd", info.driver_name);
	vf_out_bool(o, "rx_interrupts", p->rx_intr);
}

/* Rx modes through the ethdev's rx interrupts: the PMD arms the queue
 * (net_vhost: the used flags or avail event; virtio: the avail flags) and
 * gives its event fd; the core then looks once more and sleeps on it. */
static int dpdk_rx_intr_arm(struct vf_port *port, uint16_t q)
{
	struct dpdk_priv *p = port->priv;
	int fd;

	struct rte_eth_link l;

	if (!p || !p->rx_intr || !p->dev_started || q >= port->conf.nb_rxq)
		return -1;
	/* Link down: no peer to signal, and a PMD may reset the request when
	 * one comes (net_vhost disables notifications at new_device, before
	 * it reports the link up). */
	if (rte_eth_link_get_nowait(p->port_id, &l) != 0 || l.link_status != RTE_ETH_LINK_UP)
		return -1;
	/* Enable first: a PMD may install the queue's fd then (net_vhost:
	 * the peer's kick fd). */
	if (rte_eth_dev_rx_intr_enable(p->port_id, q) < 0)
		return -1;	/* no peer yet (net_vhost): look again soon */
	fd = rte_eth_dev_rx_intr_ctl_q_get_fd(p->port_id, q);
	if (fd < 0)
		return -1;
	/* The PMD's store (the request) before the core's last look at the
	 * ring: not every PMD has this barrier of its own. */
	rte_mb();
	return fd;
}

static void dpdk_rx_intr_disarm(struct vf_port *port, uint16_t q)
{
	struct dpdk_priv *p = port->priv;
	uint64_t v;
	int fd;

	if (!p || !p->rx_intr || !p->dev_started || q >= port->conf.nb_rxq)
		return;
	(void)rte_eth_dev_rx_intr_disable(p->port_id, q);
	if (p->vhost_vid) {
		/* net_vhost: the epoll fd stays ready until the kick fd
		 * under it is read */
		struct rte_vhost_vring vr;
		int vid = p->vhost_vid(p->port_id);

		fd = vid >= 0 && rte_vhost_get_vhost_vring(vid, (uint16_t)(2 * q + 1), &vr) == 0 ?
			vr.kickfd : -1;
	} else {
		fd = rte_eth_dev_rx_intr_ctl_q_get_fd(p->port_id, q);
	}
	/* The fd may be a peer's, maybe blocking: read it only when ready. */
	if (fd >= 0 && poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, 0) == 1 &&
	    read(fd, &v, sizeof(v)) < 0) {
	}
}

static const struct vf_driver dpdk_driver = {
	.name = "dpdk",
	.help = "any DPDK ethdev from its devargs: dpdk:net_null0, dpdk:net_pcap0,rx_pcap=in.pcap, dpdk:0000:01:00.0",
	.keys = NULL,
	.check = dpdk_check,
	.probe = dpdk_probe,
	.configure = dpdk_configure,
	.start = dpdk_start,
	.stop = dpdk_stop,
	.close = dpdk_close,
	.link_get = dpdk_link,
	.stats_get = dpdk_stats,
	.xstats_get = dpdk_xstats,
	.xstats_reset = dpdk_xstats_reset,
	.info = dpdk_info,
	.rx_intr_arm = dpdk_rx_intr_arm,
	.rx_intr_disarm = dpdk_rx_intr_disarm,
};

VF_DRIVER_REGISTER(dpdk_driver)
