/* The virtio-net header's offload fields <-> an mbuf's offload request
 * (protocols.md §2.5; virtio spec "Packet Transmission/Reception"), for
 * both of our virtio drivers: the vhost back-end reads the headers of the
 * guest's transmitted frames and writes those of its received ones, the
 * virtio_user front-end the other way round.
 *
 * A received header is peer input: it is checked against the frame and
 * against what was negotiated before anything of it is used. */
#ifndef VNET_OL_H
#define VNET_OL_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_net.h>
#include <rte_mbuf.h>

#include "vf_offload.h"

/* Why a header was refused (the frame is dropped and counted). */
enum vnet_ol_err {
	VNET_OL_OK = 0,
	VNET_OL_BAD_CSUM,	/* csum_start + csum_offset + 2 beyond the frame,
				 * or GSO without NEEDS_CSUM */
	VNET_OL_BAD_GSO_SIZE,	/* gso_size 0, or more than VF_OL_TSO_MAX_SEGS segments */
	VNET_OL_BAD_GSO_TYPE,	/* not NONE, TCPV4 or TCPV6 (| ECN) */
	VNET_OL_NOT_NEGOTIATED,	/* asks for what the sender did not negotiate */
	VNET_OL_TOO_BIG,	/* TSO frame over 64 KiB (from the IP header on) */
	VNET_OL_BAD_HEADERS,	/* TSO frame whose headers are not the IP/TCP its type says */
	VNET_OL_NB_ERR
};

/* Counters of the headers one queue received (single writer). */
struct vnet_ol_rx_stats {
	uint64_t csum;			/* NEEDS_CSUM taken into the mbuf */
	uint64_t csum_sw;		/* NEEDS_CSUM finished at once (not TCP/UDP) */
	uint64_t tso;			/* TSO frames taken */
	uint64_t data_valid;		/* DATA_VALID taken (from a device) */
	uint64_t err[VNET_OL_NB_ERR];	/* err[0] unused */
	uint64_t dropped_bytes;		/* of the frames refused */
};

/* xstats name of an error ("hdr_bad_csum", ...). */
const char *vnet_ol_err_name(int e);

/* Takes the offload request of the received frame m (pkt_len set, fresh
 * mbuf, ours to write) from h, a private copy of its header: sets
 * ol_flags, l2/l3/l4_len and tso_segsz, or finishes a partial checksum
 * that no mbuf flag describes at once.  allowed: VF_OL_CAP_* the sender
 * negotiated (from a driver: CSUM, HOST_TSO4/6, HOST_ECN; from a device:
 * GUEST_*).  from_device: DATA_VALID is taken (RX_L4_CKSUM_GOOD).
 * Returns VNET_OL_OK or the reason to drop m (m unchanged then). */
int vnet_ol_hdr_to_mbuf(const struct virtio_net_hdr *h, uint32_t allowed, bool from_device,
			struct rte_mbuf *m);

/* Applies h (a private copy) to m with vnet_ol_hdr_to_mbuf() and counts
 * the outcome in st; a refused m is freed (false). */
bool vnet_ol_take(const struct virtio_net_hdr *h, uint32_t allowed, bool from_device,
		  struct rte_mbuf *m, struct vnet_ol_rx_stats *st);

/* The general case of vnet_ol_rx(). */
uint16_t vnet__ol_rx_slow(struct rte_mbuf **pkts, uint16_t n, uint16_t first,
			  uint32_t hdr_back, uint32_t allowed, bool from_device,
			  struct vnet_ol_rx_stats *st);

static inline const struct virtio_net_hdr *vnet_ol_hdr_of(const struct rte_mbuf *m,
							  uint32_t hdr_back)
{
	return (const struct virtio_net_hdr *)rte_pktmbuf_mtod_offset(m, const uint8_t *,
								      -(int)hdr_back);
}

/* After a receive burst: each packet's header sits hdr_back bytes before
 * its data (in its headroom, copied there from the ring).  Packets whose
 * header asks nothing cost one test; the others are taken, and bad ones
 * freed, counted and squeezed out.  Returns the packets left. */
static inline uint16_t vnet_ol_rx(struct rte_mbuf **pkts, uint16_t n, uint32_t hdr_back,
				  uint32_t allowed, bool from_device,
				  struct vnet_ol_rx_stats *st)
{
	for (uint16_t i = 0; i < n; i++) {
		const struct virtio_net_hdr *h = vnet_ol_hdr_of(pkts[i], hdr_back);

		if (unlikely((h->flags | h->gso_type) != 0))
			return vnet__ol_rx_slow(pkts, n, i, hdr_back, allowed, from_device, st);
	}
	return n;
}

/* ol_flags that put something in a header we write. */
#define VNET_OL_HDR_MASK (RTE_MBUF_F_TX_L4_MASK | RTE_MBUF_F_TX_TCP_SEG | \
			  RTE_MBUF_F_RX_L4_CKSUM_MASK)

/* Fills the offload fields of h (10 bytes; num_buffers untouched) from
 * m's request, which the receiver takes (vf_ol_tx_burst() finished the
 * rest): NEEDS_CSUM with csum_start/offset, GSO type/size and hdr_len for
 * TCP_SEG; DATA_VALID for a verified checksum when data_valid (the
 * receiver is a driver that negotiated GUEST_CSUM); zero otherwise. */
void vnet_ol_mbuf_to_hdr(const struct rte_mbuf *m, struct virtio_net_hdr *h, bool data_valid);

/* VF_OL_CAP_* of a feature set: what a device takes from its driver
 * (CSUM, HOST_TSO4/6, HOST_ECN) and what a driver takes from its device
 * (GUEST_CSUM, GUEST_TSO4/6, GUEST_ECN).  A TSO bit without its checksum
 * bit does not count (spec feature dependencies). */
uint32_t vnet_ol_caps_host(uint64_t features);
uint32_t vnet_ol_caps_guest(uint64_t features);

#define VNET_OL_HOST_FEATURES ((1ull << VIRTIO_NET_F_CSUM) | (1ull << VIRTIO_NET_F_HOST_TSO4) | \
			       (1ull << VIRTIO_NET_F_HOST_TSO6) | (1ull << VIRTIO_NET_F_HOST_ECN))
#define VNET_OL_GUEST_FEATURES ((1ull << VIRTIO_NET_F_GUEST_CSUM) | \
				(1ull << VIRTIO_NET_F_GUEST_TSO4) | \
				(1ull << VIRTIO_NET_F_GUEST_TSO6) | (1ull << VIRTIO_NET_F_GUEST_ECN))

#endif
