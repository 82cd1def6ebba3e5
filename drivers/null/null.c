/* null: rx returns freshly allocated packets (bulk allocation), tx frees
 * them in bulk; keys as DPDK's net_null. */
#include <errno.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "vf_ctr.h"
#include "vf_mbuf.h"
#include "vf_out.h"
#include "vf_port.h"

struct null_queue {
	struct rte_mempool *pool;
	uint8_t *dummy;		/* copy=1: source/sink of the copied bytes */
	uint32_t size;
	uint16_t port;
	uint64_t packets, bytes, nombuf;
} __rte_cache_aligned;

struct null_priv {
	uint32_t size;
	bool copy, no_rx;
	uint8_t *dummy;
	struct null_queue rxq[VF_MAX_QUEUES], txq[VF_MAX_QUEUES];
};

static const struct vf_kvdef null_keys[] = {
	{ "size", VF_KV_UINT, 14, 9000, NULL, "64", "length of received packets (and of the copy)" },
	{ "copy", VF_KV_BOOL, 0, 1, NULL, "0", "copy packet data on rx and tx" },
	{ "no-rx", VF_KV_BOOL, 0, 1, NULL, "0", "rx returns nothing" },
	{ NULL },
};

static uint16_t null_rx(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct null_queue *nq = q;

	if (unlikely(vf_mbuf_alloc_bulk_len(nq->pool, pkts, n, nq->port, nq->size))) {
		vf_ctr_add(nq->nombuf, n);
		return 0;
	}
	vf_ctr_add(nq->packets, n);
	vf_ctr_add(nq->bytes, (uint64_t)n * nq->size);
	return n;
}

static uint16_t null_rx_copy(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct null_queue *nq = q;

	if (unlikely(vf_mbuf_alloc_bulk_len(nq->pool, pkts, n, nq->port, nq->size))) {
		vf_ctr_add(nq->nombuf, n);
		return 0;
	}
	for (uint16_t i = 0; i < n; i++)
		rte_memcpy(rte_pktmbuf_mtod(pkts[i], void *), nq->dummy, nq->size);
	vf_ctr_add(nq->packets, n);
	vf_ctr_add(nq->bytes, (uint64_t)n * nq->size);
	return n;
}

static uint16_t null_tx(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct null_queue *nq = q;
	uint64_t bytes = 0;

	for (uint16_t i = 0; i < n; i++)
		bytes += pkts[i]->pkt_len;
	vf_mbuf_free_bulk(pkts, n);
	vf_ctr_add(nq->packets, n);
	vf_ctr_add(nq->bytes, bytes);
	return n;
}

static uint16_t null_tx_copy(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct null_queue *nq = q;
	uint64_t bytes = 0;

	for (uint16_t i = 0; i < n; i++) {
		uint32_t len = rte_pktmbuf_data_len(pkts[i]);
		rte_memcpy(nq->dummy, rte_pktmbuf_mtod(pkts[i], void *),
			   len < nq->size ? len : nq->size);
		bytes += pkts[i]->pkt_len;
	}
	vf_mbuf_free_bulk(pkts, n);
	vf_ctr_add(nq->packets, n);
	vf_ctr_add(nq->bytes, bytes);
	return n;
}

static int null_check(const struct vf_devargs *da, char *err, size_t errlen)
{
	if (vf_devargs_bool(da, "copy", false) && vf_devargs_bool(da, "no-rx", false)) {
		snprintf(err, errlen, "copy=1 and no-rx=1 exclude each other: give one of them");
		return -1;
	}
	return 0;
}

static int null_probe(struct vf_port *port, const struct vf_devargs *da)
{
	struct null_priv *p = rte_zmalloc("null", sizeof(*p), RTE_CACHE_LINE_SIZE);

	if (!p)
		return -ENOMEM;
	p->size = (uint32_t)vf_devargs_uint(da, "size", 64);
	p->copy = vf_devargs_bool(da, "copy", false);
	p->no_rx = vf_devargs_bool(da, "no-rx", false);
	p->dummy = rte_zmalloc("null_dummy", 9000, RTE_CACHE_LINE_SIZE);
	if (!p->dummy) {
		rte_free(p);
		return -ENOMEM;
	}
	port->priv = p;
	return 0;
}

static int null_configure(struct vf_port *port, const struct vf_port_conf *conf)
{
	struct null_priv *p = port->priv;

	if (conf->pool && p->size > (uint32_t)(rte_pktmbuf_data_room_size(conf->pool) - RTE_PKTMBUF_HEADROOM))
		return -EINVAL;
	for (uint16_t q = 0; q < VF_MAX_QUEUES; q++) {
		p->rxq[q].pool = conf->pool;
		p->rxq[q].port = port->id;
		p->rxq[q].size = p->txq[q].size = p->size;
		p->rxq[q].dummy = p->txq[q].dummy = p->dummy;
	}
	return 0;
}

static int null_start(struct vf_port *port)
{
	struct null_priv *p = port->priv;

	for (uint16_t q = 0; q < port->conf.nb_rxq; q++)
		port->rxq[q] = &p->rxq[q];
	for (uint16_t q = 0; q < port->conf.nb_txq; q++)
		port->txq[q] = &p->txq[q];
	port->rx_burst = p->no_rx ? vf_port_rx_none : p->copy ? null_rx_copy : null_rx;
	port->tx_burst = p->copy ? null_tx_copy : null_tx;
	return 0;
}

static void null_stop(struct vf_port *port)
{
}

static void null_close(struct vf_port *port)
{
	struct null_priv *p = port->priv;

	if (!p)
		return;
	rte_free(p->dummy);
	rte_free(p);
	port->priv = NULL;
}

static void null_link(struct vf_port *port, struct vf_link *link)
{
	link->up = port->started;
	link->speed_mbps = 10000;
}

static void null_stats(struct vf_port *port, struct vf_port_stats *st)
{
	struct null_priv *p = port->priv;

	for (uint16_t q = 0; q < VF_MAX_QUEUES; q++) {
		st->ipackets += vf_ctr_read(p->rxq[q].packets);
		st->ibytes += vf_ctr_read(p->rxq[q].bytes);
		st->rx_nombuf += vf_ctr_read(p->rxq[q].nombuf);
		st->opackets += vf_ctr_read(p->txq[q].packets);
		st->obytes += vf_ctr_read(p->txq[q].bytes);
	}
}

static int null_xstats(struct vf_port *port, struct vf_xstat *xs, unsigned int n)
{
	struct null_priv *p = port->priv;
	unsigned int k = 0;

	for (uint16_t q = 0; q < port->conf.nb_rxq; q++, k += 2)
		if (k + 1 < n) {
			snprintf(xs[k].name, sizeof(xs[k].name), "rx_q%u_packets", q);
			xs[k].value = vf_ctr_read(p->rxq[q].packets);
			snprintf(xs[k + 1].name, sizeof(xs[k + 1].name), "rx_q%u_bytes", q);
			xs[k + 1].value = vf_ctr_read(p->rxq[q].bytes);
		}
	for (uint16_t q = 0; q < port->conf.nb_txq; q++, k += 2)
		if (k + 1 < n) {
			snprintf(xs[k].name, sizeof(xs[k].name), "tx_q%u_packets", q);
			xs[k].value = vf_ctr_read(p->txq[q].packets);
			snprintf(xs[k + 1].name, sizeof(xs[k + 1].name), "tx_q%u_bytes", q);
			xs[k + 1].value = vf_ctr_read(p->txq[q].bytes);
		}
	return (int)k;
}

static void null_info(struct vf_port *port, struct vf_out *o)
{
	struct null_priv *p = port->priv;

	vf_out_u64(o, "size", p->size);
	vf_out_bool(o, "copy", p->copy);
	vf_out_bool(o, "no_rx", p->no_rx);
}

static bool null_keeps_mbufs(const struct vf_devargs *da)
{
	(void)da;
	return false;
}

static const struct vf_driver null_driver = {
	.name = "null",
	.help = "packet source and sink in memory, as DPDK's net_null",
	.keys = null_keys,
	.check = null_check,
	.keeps_mbufs = null_keeps_mbufs,
	.probe = null_probe,
	.configure = null_configure,
	.start = null_start,
	.stop = null_stop,
	.close = null_close,
	.link_get = null_link,
	.stats_get = null_stats,
	.xstats_get = null_xstats,
	.info = null_info,
};

VF_DRIVER_REGISTER(null_driver)
