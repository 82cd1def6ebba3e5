/* dpdk: any DPDK ethdev (real NICs, DPDK's own PMDs) inside our engine,
 * from its devargs: "dpdk:net_null0,size=64", "dpdk:0000:01:00.0". */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

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

static int dpdk_configure(struct vf_port *port, const struct vf_port_conf *conf)
{
	struct dpdk_priv *p = port->priv;
	struct rte_eth_conf ec;
	int ret;

	memset(&ec, 0, sizeof(ec));
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
};

VF_DRIVER_REGISTER(dpdk_driver)
