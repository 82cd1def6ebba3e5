#include "vf_pkt.h"

#include <string.h>
#include <arpa/inet.h>

#define ETH_HLEN 14
#define ETH_P_IPV4 0x0800
#define ETH_P_IPV6 0x86dd
#define ETH_P_ARP 0x0806
#define ETH_P_VLAN 0x8100
#define IPPROTO_ICMP_ 1
#define IPPROTO_TCP_ 6
#define IPPROTO_UDP_ 17

static inline uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline void wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }

static void swap_bytes(uint8_t *a, uint8_t *b, unsigned int n)
{
	uint8_t t[16];

	memcpy(t, a, n);
	memcpy(a, b, n);
	memcpy(b, t, n);
}

static uint32_t sum16(const uint8_t *p, uint32_t len, uint32_t sum)
{
	for (; len > 1; p += 2, len -= 2)
		sum += rd16(p);
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint16_t vf_pkt_ipv4_cksum(const uint8_t *iph)
{
	uint32_t ihl = (iph[0] & 0xf) * 4u;
	uint32_t sum = sum16(iph, 10, 0) + sum16(iph + 12, ihl - 12, 0);

	return fold(sum);
}

/* Offset of the L3 header and its ethertype, skipping one VLAN tag. */
static bool l3(const uint8_t *f, uint32_t len, uint32_t *off, uint16_t *type)
{
	if (len < ETH_HLEN)
		return false;
	*type = rd16(f + 12);
	*off = ETH_HLEN;
	if (*type == ETH_P_VLAN) {
		if (len < ETH_HLEN + 4)
			return false;
		*type = rd16(f + 16);
		*off += 4;
	}
	return true;
}

/* IPv4 header at off, validated: returns its length or 0. */
static uint32_t ipv4_hdr(const uint8_t *f, uint32_t len, uint32_t off)
{
	uint32_t ihl;

	if (len < off + 20 || (f[off] >> 4) != 4)
		return 0;
	ihl = (f[off] & 0xf) * 4u;
	if (ihl < 20 || len < off + ihl)
		return 0;
	return ihl;
}

bool vf_pkt_set_macs(uint8_t *frame, uint32_t len, const uint8_t src[6], const uint8_t dst[6])
{
	if (len < ETH_HLEN)
		return false;
	memcpy(frame, dst, 6);
	memcpy(frame + 6, src, 6);
	return true;
}

bool vf_pkt_macswap(uint8_t *frame, uint32_t len)
{
	if (len < ETH_HLEN)
		return false;
	swap_bytes(frame, frame + 6, 6);
	return true;
}

bool vf_pkt_5tswap(uint8_t *f, uint32_t len)
{
	uint32_t off, hl;
	uint16_t type;
	uint8_t proto;

	if (!l3(f, len, &off, &type))
		return false;
	swap_bytes(f, f + 6, 6);
	if (type == ETH_P_IPV4) {
		hl = ipv4_hdr(f, len, off);
		if (!hl)
			return true;
		swap_bytes(f + off + 12, f + off + 16, 4);
		proto = f[off + 9];
		/* Only the first fragment carries the L4 header. */
		if (rd16(f + off + 6) & 0x1fff)
			return true;
		off += hl;
	} else if (type == ETH_P_IPV6) {
		if (len < off + 40)
			return true;
		swap_bytes(f + off + 8, f + off + 24, 16);
		proto = f[off + 6];
		off += 40;
	} else {
		return true;
	}
	if ((proto == IPPROTO_TCP_ || proto == IPPROTO_UDP_) && len >= off + 4)
		swap_bytes(f + off, f + off + 2, 2);
	return true;
}

bool vf_pkt_icmpecho(uint8_t *f, uint32_t len, const uint8_t our_mac[6])
{
	uint32_t off, hl, tot;
	uint16_t type;

	if (!l3(f, len, &off, &type))
		return false;
	if (type == ETH_P_ARP) {
		uint8_t *a = f + off;
		uint8_t sip[4];

		/* Ethernet/IPv4 ARP request only. */
		if (len < off + 28 || rd16(a) != 1 || rd16(a + 2) != ETH_P_IPV4 ||
		    a[4] != 6 || a[5] != 4 || rd16(a + 6) != 1)
			return false;
		wr16(a + 6, 2);
		memcpy(sip, a + 14, 4);
		memcpy(a + 18, a + 8, 6);	/* target hw := requester */
		memcpy(a + 14, a + 24, 4);	/* sender ip := asked ip */
		memcpy(a + 24, sip, 4);		/* target ip := requester ip */
		memcpy(a + 8, our_mac, 6);	/* sender hw := us */
		memcpy(f, f + 6, 6);
		memcpy(f + 6, our_mac, 6);
		return true;
	}
	if (type != ETH_P_IPV4)
		return false;
	hl = ipv4_hdr(f, len, off);
	if (!hl || f[off + 9] != IPPROTO_ICMP_)
		return false;
	tot = rd16(f + off + 2);
	if (tot < hl + 8 || len < off + tot || (rd16(f + off + 6) & 0x3fff))
		return false;	/* truncated or fragmented */
	uint8_t *icmp = f + off + hl;
	if (icmp[0] != 8 || icmp[1] != 0)
		return false;
	memcpy(f, f + 6, 6);
	memcpy(f + 6, our_mac, 6);
	swap_bytes(f + off + 12, f + off + 16, 4);
	f[off + 8] = 64;	/* fresh TTL, as a host would answer */
	wr16(f + off + 10, 0);
	wr16(f + off + 10, vf_pkt_ipv4_cksum(f + off));
	icmp[0] = 0;
	wr16(icmp + 2, 0);
	wr16(icmp + 2, fold(sum16(icmp, tot - hl, 0)));
	return true;
}

bool vf_pkt_build_udp(uint8_t *f, uint32_t len, const uint8_t src[6],
		      const uint8_t dst[6], uint32_t flow)
{
	uint8_t *ip = f + ETH_HLEN, *udp = ip + 20;
	uint32_t iplen = len - ETH_HLEN;

	if (len < ETH_HLEN + 28 || len > 9000)
		return false;
	memset(f, 0, len);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	wr16(f + 12, ETH_P_IPV4);
	ip[0] = 0x45;
	wr16(ip + 2, (uint16_t)iplen);
	ip[8] = 64;
	ip[9] = IPPROTO_UDP_;
	/* 198.18.0.0/15 is the benchmarking range (RFC 2544).  Flow k is the
	 * k-th source of 198.18.0.1 .. 198.18.255.254, then the source port
	 * counts up from 9: as the generators' default walk (vf_flow.h). */
	wr16(ip + 12, 198 << 8 | 18);
	wr16(ip + 14, (uint16_t)(1 + flow % 65534));
	ip[16] = 198; ip[17] = 19; ip[18] = 0; ip[19] = 2;
	wr16(ip + 10, vf_pkt_ipv4_cksum(ip));
	wr16(udp, (uint16_t)(9 + flow / 65534));
	wr16(udp + 2, 9);
	wr16(udp + 4, (uint16_t)(iplen - 20));
	/* UDP checksum 0: "not computed", valid for IPv4. */
	return true;
}

bool vf_pkt_build_udp6(uint8_t *f, uint32_t len, const uint8_t smac[6],
		       const uint8_t dmac[6], const uint8_t src[16], const uint8_t dst[16])
{
	uint8_t *ip = f + ETH_HLEN, *udp = ip + 40;

	if (len < ETH_HLEN + 48 || len > 9000)
		return false;
	memset(f, 0, len);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	wr16(f + 12, ETH_P_IPV6);
	ip[0] = 0x60;
	wr16(ip + 4, (uint16_t)(len - ETH_HLEN - 40));
	ip[6] = IPPROTO_UDP_;
	ip[7] = 64;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	wr16(udp, 9);
	wr16(udp + 2, 9);
	wr16(udp + 4, (uint16_t)(len - ETH_HLEN - 40));
	return true;
}

/* IPv6/UDP (no extension headers): the checksum over the pseudo-header
 * and the datagram; 0 is not allowed (RFC 8200 8.1). */
static bool udp6_cksum_ok(const uint8_t *f, uint32_t len, uint32_t off)
{
	uint32_t plen;

	if (len < off + 48 || f[off + 6] != IPPROTO_UDP_)
		return false;
	plen = rd16(f + off + 4);
	if (len < off + 40 + plen || plen < 8 || rd16(f + off + 40 + 6) == 0)
		return false;
	return fold(sum16(f + off + 40, plen, sum16(f + off + 8, 32, 0) + IPPROTO_UDP_ + plen)) == 0;
}

bool vf_pkt_cksums_ok(const uint8_t *f, uint32_t len)
{
	uint32_t off, hl, tot;
	uint16_t type;

	if (l3(f, len, &off, &type) && type == ETH_P_IPV6)
		return udp6_cksum_ok(f, len, off);
	if (!l3(f, len, &off, &type) || type != ETH_P_IPV4)
		return false;
	hl = ipv4_hdr(f, len, off);
	if (!hl || fold(sum16(f + off, hl, 0)) != 0)
		return false;
	tot = rd16(f + off + 2);
	if (len < off + tot || tot < hl)
		return false;
	if (f[off + 9] == IPPROTO_ICMP_)
		return fold(sum16(f + off + hl, tot - hl, 0)) == 0;
	if (f[off + 9] == IPPROTO_UDP_ && rd16(f + off + hl + 6) != 0) {
		uint32_t s = sum16(f + off + 12, 8, 0) + IPPROTO_UDP_ + (tot - hl);
		return fold(sum16(f + off + hl, tot - hl, s)) == 0;
	}
	return true;
}
