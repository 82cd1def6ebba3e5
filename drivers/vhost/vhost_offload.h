/* Checksum and TSO offloads of a vhost port (protocols.md §2.1, §2.5):
 * the features offered from the devargs, the headers of the guest's frames
 * taken into the mbufs on dequeue, and on enqueue what the guest did not
 * negotiate finished in software (vf_offload.h) before the header is
 * written (vnet_ol.h). */
#ifndef VH_OFFLOAD_H
#define VH_OFFLOAD_H

#include <stdint.h>

#include "common/vnet_ol.h"
#include "vf_devargs.h"
#include "vf_offload.h"

/* struct vh_ol_q, what a vring's data path knows of the offloads, is in
 * vq_types.h. */

/* Offload feature bits we can offer at all (no ECN: an mbuf cannot carry
 * it from one guest to the other). */
#define VH_OL_FEATURES ((1ull << VIRTIO_NET_F_CSUM) | (1ull << VIRTIO_NET_F_GUEST_CSUM) | \
			(1ull << VIRTIO_NET_F_HOST_TSO4) | (1ull << VIRTIO_NET_F_HOST_TSO6) | \
			(1ull << VIRTIO_NET_F_GUEST_TSO4) | (1ull << VIRTIO_NET_F_GUEST_TSO6))

/* The devargs keys (csum, guest_csum, tso, host_tso4, host_tso6,
 * guest_tso4, guest_tso6), for the driver's key table. */
#define VH_OL_KEYS							\
	{ "csum", VF_KV_BOOL, 0, 1, NULL, "1",				\
	  "offer VIRTIO_NET_F_CSUM: take the guest's partial checksums" }, \
	{ "guest_csum", VF_KV_BOOL, 0, 1, NULL, "1",			\
	  "offer VIRTIO_NET_F_GUEST_CSUM: pass partial or verified checksums to the guest" }, \
	{ "tso", VF_KV_BOOL, 0, 1, NULL, "0",				\
	  "default of host_tso4 and host_tso6 (DPDK net_vhost's key)" }, \
	{ "host_tso4", VF_KV_BOOL, 0, 1, NULL, "tso",			\
	  "offer VIRTIO_NET_F_HOST_TSO4: take the guest's IPv4 TSO frames (needs csum)" }, \
	{ "host_tso6", VF_KV_BOOL, 0, 1, NULL, "tso",			\
	  "offer VIRTIO_NET_F_HOST_TSO6: take the guest's IPv6 TSO frames (needs csum)" }, \
	{ "guest_tso4", VF_KV_BOOL, 0, 1, NULL, "1",			\
	  "offer VIRTIO_NET_F_GUEST_TSO4: pass IPv4 TSO frames to the guest (needs guest_csum)" }, \
	{ "guest_tso6", VF_KV_BOOL, 0, 1, NULL, "1",			\
	  "offer VIRTIO_NET_F_GUEST_TSO6: pass IPv6 TSO frames to the guest (needs guest_csum)" }

/* The offload features the devargs offer, or -EINVAL with err (a TSO bit
 * without its checksum bit). */
int64_t vh_ol_from_devargs(const struct vf_devargs *da, char *err, size_t len);

struct vh_vq;
/* SET_FEATURES: what the ring's data path may take and pass. */
void vh_ol_set_features(struct vh_vq *vq, uint64_t features);

/* A stashed header: hash.usr of a fresh dequeue mbuf is 0 (its hash is
 * not valid without RTE_MBUF_F_RX_RSS_HASH, which we never set), so the
 * mark is cleared before the packet leaves the driver. */
#define VH_OL_MARK 0x7668646eu

/* Dequeue, for a frame whose header has flags or gso_type set: keeps
 * the header's offload fields (g: its first 10 bytes, read once here) in
 * m's headroom, marks m for vh_ol_dequeue() and the burst as asking. */
void vh_ol_stash(struct vh_vq *vq, struct rte_mbuf *m, const uint8_t *g);

/* Burst functions with offloads (vhost_offload_burst.c, above the layout
 * dispatch they call): dequeue, then the headers into the mbufs; enqueue
 * through vf_ol_tx_burst(). */
uint16_t vh_ol_dequeue(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t vh_ol_enqueue(void *q, struct rte_mbuf **pkts, uint16_t n);

/* Counters: xstats of one queue pair (rx: its dequeue vring, tx: its
 * enqueue vring), written as name/value pairs through put(). */
typedef void (*vh_ol_put_fn)(void *arg, uint64_t v, const char *dir, unsigned int q,
			     const char *name);
void vh_ol_xstats(const struct vh_vq *rx, const struct vh_vq *tx, unsigned int q,
		  vh_ol_put_fn put, void *arg);
/* Dropped headers of rx (for ierrors). */
uint64_t vh_ol_rx_dropped(const struct vh_vq *rx);
/* Packets the software path dropped on tx (for oerrors). */
uint64_t vh_ol_tx_dropped(const struct vh_vq *tx);
void vh_ol_stats_reset(struct vh_vq *vq);

#endif
