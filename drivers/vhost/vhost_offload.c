/* Offloads of the vhost port (vhost_offload.h): what the rings and the
 * control side call; the burst functions are in vhost_offload_burst.c. */
#include "vhost_offload.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vq_types.h"

int64_t vh_ol_from_devargs(const struct vf_devargs *da, char *err, size_t len)
{
	bool tso = vf_devargs_bool(da, "tso", false);
	struct {
		const char *key;
		bool def;
		int bit;
		const char *needs;
	} k[] = {
		{ "csum", true, VIRTIO_NET_F_CSUM, NULL },
		{ "guest_csum", true, VIRTIO_NET_F_GUEST_CSUM, NULL },
		{ "host_tso4", tso, VIRTIO_NET_F_HOST_TSO4, "csum" },
		{ "host_tso6", tso, VIRTIO_NET_F_HOST_TSO6, "csum" },
		{ "guest_tso4", true, VIRTIO_NET_F_GUEST_TSO4, "guest_csum" },
		{ "guest_tso6", true, VIRTIO_NET_F_GUEST_TSO6, "guest_csum" },
	};
	uint64_t f = 0;

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		if (!vf_devargs_bool(da, k[i].key, k[i].def))
			continue;
		if (k[i].needs && !vf_devargs_bool(da, k[i].needs, true)) {
			/* given explicitly against its dependency: say so;
			 * a default follows the dependency quietly */
			if (vf_devargs_has(da, k[i].key) ||
			    (k[i].bit == VIRTIO_NET_F_HOST_TSO4 && vf_devargs_has(da, "tso")) ||
			    (k[i].bit == VIRTIO_NET_F_HOST_TSO6 && vf_devargs_has(da, "tso"))) {
				snprintf(err, len, "%s=1 needs %s=1 (virtio feature dependency)",
					 k[i].key, k[i].needs);
				return -EINVAL;
			}
			continue;
		}
		f |= 1ull << k[i].bit;
	}
	return (int64_t)f;
}

void vh_ol_set_features(struct vh_vq *vq, uint64_t f)
{
	vq->ol.rx_allowed = vnet_ol_caps_host(f);
	vq->ol.tx.caps = vnet_ol_caps_guest(f);
}

void vh_ol_stash(struct vh_vq *vq, struct rte_mbuf *m, const uint8_t *g)
{
	memcpy(rte_pktmbuf_mtod(m, uint8_t *) - sizeof(struct virtio_net_hdr), g,
	       sizeof(struct virtio_net_hdr));
	m->hash.usr = VH_OL_MARK;
	vq->ol.asked = true;
}

#define RX_SINCE(vq, f) ((vq)->ol.rx.f - (vq)->ol.rx_base.f)
#define TX_SINCE(vq, f) ((vq)->ol.tx.st.f - (vq)->ol.tx_base.f)

void vh_ol_xstats(const struct vh_vq *rx, const struct vh_vq *tx, unsigned int q,
		  vh_ol_put_fn put, void *arg)
{
	put(arg, RX_SINCE(rx, csum), "rx", q, "ol_csum");
	put(arg, RX_SINCE(rx, csum_sw), "rx", q, "ol_csum_done");
	put(arg, RX_SINCE(rx, tso), "rx", q, "ol_tso");
	for (int e = 1; e < VNET_OL_NB_ERR; e++)
		put(arg, rx->ol.rx.err[e] - rx->ol.rx_base.err[e], "rx", q,
		    vnet_ol_err_name(e));
	put(arg, TX_SINCE(tx, sw_csum), "tx", q, "sw_csum");
	put(arg, TX_SINCE(tx, sw_tso), "tx", q, "sw_tso");
	put(arg, TX_SINCE(tx, sw_tso_segs), "tx", q, "sw_tso_segs");
	put(arg, TX_SINCE(tx, sw_nombuf), "tx", q, "sw_dropped_nombuf");
	put(arg, TX_SINCE(tx, sw_bad), "tx", q, "sw_dropped_bad");
	put(arg, TX_SINCE(tx, sw_unsent), "tx", q, "sw_dropped_ring_full");
}

uint64_t vh_ol_rx_dropped(const struct vh_vq *rx)
{
	uint64_t s = 0;

	for (int e = 1; e < VNET_OL_NB_ERR; e++)
		s += rx->ol.rx.err[e] - rx->ol.rx_base.err[e];
	return s;
}

uint64_t vh_ol_tx_dropped(const struct vh_vq *tx)
{
	return TX_SINCE(tx, sw_nombuf) + TX_SINCE(tx, sw_bad) + TX_SINCE(tx, sw_unsent);
}

void vh_ol_stats_reset(struct vh_vq *vq)
{
	memcpy(&vq->ol.rx_base, &vq->ol.rx, sizeof(vq->ol.rx));
	memcpy(&vq->ol.tx_base, &vq->ol.tx.st, sizeof(vq->ol.tx.st));
}
