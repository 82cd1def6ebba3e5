/* virtio-net header offload fields <-> mbuf offload request (vnet_ol.h). */
#include "common/vnet_ol.h"

#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

const char *vnet_ol_err_name(int e)
{
	switch (e) {
	case VNET_OL_BAD_CSUM: return "hdr_bad_csum";
	case VNET_OL_BAD_GSO_SIZE: return "hdr_bad_gso_size";
	case VNET_OL_BAD_GSO_TYPE: return "hdr_bad_gso_type";
	case VNET_OL_NOT_NEGOTIATED: return "hdr_not_negotiated";
	case VNET_OL_TOO_BIG: return "hdr_tso_too_big";
	case VNET_OL_BAD_HEADERS: return "hdr_bad_tso_headers";
	default: return "hdr_ok";
	}
}

/* VF_OL_CAP_* from the four feature bits of one direction. */
static uint32_t caps_of(uint64_t f, int csum, int tso4, int tso6, int ecn)
{
	uint32_t c;

	if (!(f & (1ull << csum)))
		return 0;
	c = VF_OL_CAP_CSUM;
	if (f & (1ull << tso4))
		c |= VF_OL_CAP_TSO4;
	if (f & (1ull << tso6))
		c |= VF_OL_CAP_TSO6;
	if ((c & (VF_OL_CAP_TSO4 | VF_OL_CAP_TSO6)) && (f & (1ull << ecn)))
		c |= VF_OL_CAP_ECN;
	return c;
}

uint32_t vnet_ol_caps_host(uint64_t f)
{
	return caps_of(f, VIRTIO_NET_F_CSUM, VIRTIO_NET_F_HOST_TSO4, VIRTIO_NET_F_HOST_TSO6,
		       VIRTIO_NET_F_HOST_ECN);
}

uint32_t vnet_ol_caps_guest(uint64_t f)
{
	return caps_of(f, VIRTIO_NET_F_GUEST_CSUM, VIRTIO_NET_F_GUEST_TSO4,
		       VIRTIO_NET_F_GUEST_TSO6, VIRTIO_NET_F_GUEST_ECN);
}

/* The L2/L3 layout of a frame as far as offloads need it. */
struct l23 {
	uint32_t l2, l3;
	uint8_t proto;		/* IPPROTO_*, 0: not IP */
	bool v6;
};

/* Parses Ethernet (one VLAN tag at most) and an IPv4 or plain IPv6
 * header (no extension headers) from the start of m. */
static bool parse_l23(const struct rte_mbuf *m, struct l23 *o)
{
	uint8_t buf[18 + 40];
	const uint8_t *p;
	uint32_t need = 18 + 40;
	uint16_t et;

	if (m->pkt_len < need)
		need = m->pkt_len;
	if (need < 14 + 20)
		return false;
	p = rte_pktmbuf_read(m, 0, need, buf);
	if (!p)
		return false;
	o->l2 = 14;
	et = (uint16_t)(p[12] << 8 | p[13]);
	if (et == RTE_ETHER_TYPE_VLAN) {
		o->l2 = 18;
		et = (uint16_t)(p[16] << 8 | p[17]);
	}
	if (et == RTE_ETHER_TYPE_IPV4 && need >= o->l2 + 20 && (p[o->l2] >> 4) == 4) {
		o->l3 = (uint32_t)(p[o->l2] & 0xf) * 4;
		o->proto = p[o->l2 + 9];
		o->v6 = false;
		return o->l3 >= 20;
	}
	if (et == RTE_ETHER_TYPE_IPV6 && need >= o->l2 + 40 && (p[o->l2] >> 4) == 6) {
		o->l3 = 40;
		o->proto = p[o->l2 + 6];
		o->v6 = true;
		return true;
	}
	return false;
}

int vnet_ol_hdr_to_mbuf(const struct virtio_net_hdr *h, uint32_t allowed, bool from_device,
			struct rte_mbuf *m)
{
	uint8_t flags = h->flags, gt = h->gso_type;
	uint32_t start = rte_le_to_cpu_16(h->csum_start);
	uint32_t off = rte_le_to_cpu_16(h->csum_offset);
	uint32_t mss = rte_le_to_cpu_16(h->gso_size);
	struct l23 p;

	if (gt != VIRTIO_NET_HDR_GSO_NONE) {
		uint8_t base = gt & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
		uint8_t thb[20];
		const uint8_t *th;
		uint32_t l4, payload;

		if (base != VIRTIO_NET_HDR_GSO_TCPV4 && base != VIRTIO_NET_HDR_GSO_TCPV6)
			return VNET_OL_BAD_GSO_TYPE;
		if (!(allowed & (base == VIRTIO_NET_HDR_GSO_TCPV4 ? VF_OL_CAP_TSO4 : VF_OL_CAP_TSO6)) ||
		    ((gt & VIRTIO_NET_HDR_GSO_ECN) && !(allowed & VF_OL_CAP_ECN)))
			return VNET_OL_NOT_NEGOTIATED;
		if (mss == 0)
			return VNET_OL_BAD_GSO_SIZE;
		if (!(flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) || start + off + 2 > m->pkt_len)
			return VNET_OL_BAD_CSUM;
		if (!parse_l23(m, &p) || p.proto != IPPROTO_TCP ||
		    p.v6 != (base == VIRTIO_NET_HDR_GSO_TCPV6) || start != p.l2 + p.l3 ||
		    off != offsetof(struct rte_tcp_hdr, cksum) ||
		    start + sizeof(thb) > m->pkt_len)
			return VNET_OL_BAD_HEADERS;
		if (m->pkt_len - p.l2 > VF_OL_TSO_MAX)
			return VNET_OL_TOO_BIG;
		th = rte_pktmbuf_read(m, start, sizeof(thb), thb);
		l4 = th ? (uint32_t)(th[12] >> 4) * 4 : 0;
		if (l4 < 20 || start + l4 > m->pkt_len || start + l4 > VF_OL_HDR_MAX)
			return VNET_OL_BAD_HEADERS;
		payload = m->pkt_len - start - l4;
		if ((payload + mss - 1) / mss > VF_OL_TSO_MAX_SEGS)
			return VNET_OL_BAD_GSO_SIZE;
		m->l2_len = p.l2;
		m->l3_len = p.l3;
		m->l4_len = l4;
		m->ol_flags |= RTE_MBUF_F_TX_TCP_CKSUM |
			       (p.v6 ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4);
		if (payload > mss) {
			m->tso_segsz = mss;
			m->ol_flags |= RTE_MBUF_F_TX_TCP_SEG;
		}
		return VNET_OL_OK;
	}
	if (flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		if (!(allowed & VF_OL_CAP_CSUM))
			return VNET_OL_NOT_NEGOTIATED;
		if (start + off + 2 > m->pkt_len)
			return VNET_OL_BAD_CSUM;
		if (parse_l23(m, &p) && start == p.l2 + p.l3 &&
		    ((p.proto == IPPROTO_TCP && off == offsetof(struct rte_tcp_hdr, cksum)) ||
		     (p.proto == IPPROTO_UDP && off == offsetof(struct rte_udp_hdr, dgram_cksum)))) {
			m->l2_len = p.l2;
			m->l3_len = p.l3;
			m->ol_flags |= (p.proto == IPPROTO_TCP ? RTE_MBUF_F_TX_TCP_CKSUM
							     : RTE_MBUF_F_TX_UDP_CKSUM) |
				       (p.v6 ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4);
			return VNET_OL_OK;
		}
		/* No mbuf flag says "sum from here, store there": finish it
		 * now, while the frame is ours alone. */
		return vf_ol_csum_fill(m, start, off) == 0 ? VNET_OL_OK : VNET_OL_BAD_CSUM;
	}
	if (from_device && (flags & VIRTIO_NET_HDR_F_DATA_VALID) && (allowed & VF_OL_CAP_CSUM))
		m->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	/* Other flag bits (DATA_VALID from a driver, RSC_INFO) ask for no
	 * work and are ignored. */
	return VNET_OL_OK;
}

uint16_t vnet__ol_rx_slow(struct rte_mbuf **pkts, uint16_t n, uint16_t first,
			  uint32_t hdr_back, uint32_t allowed, bool from_device,
			  struct vnet_ol_rx_stats *st)
{
	uint16_t k = first;

	for (uint16_t i = first; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct virtio_net_hdr h;

		/* a private copy: the header is never read twice */
		memcpy(&h, vnet_ol_hdr_of(m, hdr_back), sizeof(h));
		if ((h.flags | h.gso_type) != 0 && !vnet_ol_take(&h, allowed, from_device, m, st))
			continue;
		pkts[k++] = m;
	}
	return k;
}

bool vnet_ol_take(const struct virtio_net_hdr *h, uint32_t allowed, bool from_device,
		  struct rte_mbuf *m, struct vnet_ol_rx_stats *st)
{
	uint64_t before = m->ol_flags;
	int e = vnet_ol_hdr_to_mbuf(h, allowed, from_device, m);

	if (e != VNET_OL_OK) {
		st->err[e]++;
		st->dropped_bytes += m->pkt_len;
		rte_pktmbuf_free(m);
		return false;
	}
	if (m->ol_flags & RTE_MBUF_F_TX_TCP_SEG)
		st->tso++;
	else if (m->ol_flags & RTE_MBUF_F_TX_L4_MASK)
		st->csum++;
	else if (m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_GOOD)
		st->data_valid++;
	else if (m->ol_flags == before && (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		st->csum_sw++;
	return true;
}

void vnet_ol_mbuf_to_hdr(const struct rte_mbuf *m, struct virtio_net_hdr *h, bool data_valid)
{
	uint64_t f = m->ol_flags;
	uint16_t start = (uint16_t)(m->l2_len + m->l3_len);

	memset(h, 0, sizeof(*h));
	if (f & RTE_MBUF_F_TX_TCP_SEG) {
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->gso_type = (f & RTE_MBUF_F_TX_IPV6) ? VIRTIO_NET_HDR_GSO_TCPV6
						       : VIRTIO_NET_HDR_GSO_TCPV4;
		h->gso_size = rte_cpu_to_le_16(m->tso_segsz);
		h->hdr_len = rte_cpu_to_le_16((uint16_t)(start + m->l4_len));
		h->csum_start = rte_cpu_to_le_16(start);
		h->csum_offset = rte_cpu_to_le_16(offsetof(struct rte_tcp_hdr, cksum));
		return;
	}
	switch (f & RTE_MBUF_F_TX_L4_MASK) {
	case RTE_MBUF_F_TX_TCP_CKSUM:
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = rte_cpu_to_le_16(start);
		h->csum_offset = rte_cpu_to_le_16(offsetof(struct rte_tcp_hdr, cksum));
		return;
	case RTE_MBUF_F_TX_UDP_CKSUM:
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = rte_cpu_to_le_16(start);
		h->csum_offset = rte_cpu_to_le_16(offsetof(struct rte_udp_hdr, dgram_cksum));
		return;
	default:
		break;
	}
	if (data_valid && (f & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_GOOD)
		h->flags = VIRTIO_NET_HDR_F_DATA_VALID;
}
