/* Per-packet transforms of the forwarding modes, on raw frame bytes so that
 * they can be unit-tested without DPDK memory.  Each returns false when the
 * frame is too short or not of the kind the transform handles (the caller
 * then drops it or passes it unchanged, as the mode says). */
#ifndef VF_PKT_H
#define VF_PKT_H

#include <stdbool.h>
#include <stdint.h>

/* Ethernet source := src, destination := dst. */
bool vf_pkt_set_macs(uint8_t *frame, uint32_t len, const uint8_t src[6], const uint8_t dst[6]);
bool vf_pkt_macswap(uint8_t *frame, uint32_t len);
/* Swap MACs, IPv4/IPv6 addresses and TCP/UDP ports (untouched layers stay).
 * Checksums stay valid: every swapped pair is summed commutatively. */
bool vf_pkt_5tswap(uint8_t *frame, uint32_t len);

/* icmpecho: turns an ARP request into the reply from our_mac (for any
 * target address, as testpmd does) or an ICMP echo request into the echo
 * reply, with correct IP and ICMP checksums.  Returns false for anything
 * else (dropped). */
bool vf_pkt_icmpecho(uint8_t *frame, uint32_t len, const uint8_t our_mac[6]);

/* Builds an Ethernet/IPv4/UDP frame of len bytes (>= 42, <= 9000):
 * 198.18.0.1:9 -> 198.19.0.2:9, payload zero; flow k > 0 takes the k-th
 * source address and port of the generators' default walk (vf_flow.h).
 * Returns false if len is out of range. */
bool vf_pkt_build_udp(uint8_t *frame, uint32_t len, const uint8_t src[6],
		      const uint8_t dst[6], uint32_t flow);

/* Builds an Ethernet/IPv6/UDP frame of len bytes (>= 62, <= 9000) from
 * address src to dst, ports 9, hop limit 64, payload zero and the UDP
 * checksum left 0 for the caller (IPv6 requires one: vf_frames.h sums it).
 * Returns false if len is out of range. */
bool vf_pkt_build_udp6(uint8_t *frame, uint32_t len, const uint8_t smac[6],
		       const uint8_t dmac[6], const uint8_t src[16], const uint8_t dst[16]);

/* The Internet checksum of an IPv4 header (ihl words), ready to store. */
uint16_t vf_pkt_ipv4_cksum(const uint8_t *iph);
/* Verifies a frame's IPv4 header and ICMP/UDP checksums, or an IPv6
 * frame's UDP checksum (for tests). */
bool vf_pkt_cksums_ok(const uint8_t *frame, uint32_t len);

#endif
