/* The data path's plain types: a vring, its counters, walk results, the
 * segments of a chain.  Definitions only; this header includes none of the
 * driver's others (virtqueue.h describes the order of the files). */
#ifndef VH_VQ_TYPES_H
#define VH_VQ_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_ring.h>
#include <rte_mempool.h>

#include "common/vhost_user_proto.h"
#include "common/vnet_ol.h"
#include "vf_offload.h"

struct vh_log;
struct vh_mem;

/* Segments one buffer (descriptor chain) may have before we drop it. */
#define VH_MAX_SEGS 64

/* Data-path counters: written by the owning forwarding core only
 * (vf_ctr_add()), read by the stats with vf_ctr_read(). */
struct vh_vq_stats {
	uint64_t packets, bytes;
	uint64_t ring_full;	/* enqueue: no frontend buffer for a packet */
	uint64_t too_big;	/* enqueue: packet larger than one buffer (no MRG_RXBUF) */
	uint64_t bad_packet;	/* dequeue: runt or oversized chain, returned unread */
	uint64_t nombuf;	/* dequeue: mempool empty */
	uint64_t broken;	/* ring marked broken (structure error) */
	uint64_t calls;		/* call eventfd writes */
	uint64_t batched;	/* packed: buffers taken four at a time (tests) */
	uint64_t log_pages;	/* dirty logging: pages marked (once per write) */
	uint64_t log_miss;	/* dirty logging: pages written the log cannot hold */
	uint64_t rarp;		/* RARP announcements put on this ring's receive side */
};
#define VH_VQ_NB_STATS (sizeof(struct vh_vq_stats) / sizeof(uint64_t))

enum vh_walk_err {
	VH_WALK_OK = 0,
	VH_WALK_HEAD_RANGE = -1,	/* head index >= ring size */
	VH_WALK_NEXT_RANGE = -2,	/* next index >= size (or table count) */
	VH_WALK_LOOP = -3,		/* more hops than the ring/table holds */
	VH_WALK_ADDR = -4,		/* buffer not inside the shared regions */
	VH_WALK_INDIRECT = -5,		/* bad indirect table (len, nesting, NEXT) */
	VH_WALK_DIRECTION = -6,		/* readable after writable, wrong direction */
	VH_WALK_TOO_MANY = -7,		/* more than VH_MAX_SEGS segments: drop only */
	VH_WALK_TOO_LONG = -8,		/* total length over 4 GiB: drop only */
	VH_WALK_ID = -9,		/* packed: buffer id >= ring size */
	VH_WALK_FLAGS = -10,		/* packed: chain element not available in this lap */
};

struct vh_seg {
	uint8_t *p;
	uint32_t len;
};

/* Segments of one packet: one chain (dequeue) or several buffers
 * (mergeable enqueue) appended one after the other. */
struct vh_chain {
	uint16_t nseg;
	struct vh_seg seg[VH_MAX_SEGS];
};

/* What a vring's data path knows of the negotiated offloads.  Set by the
 * control thread at SET_FEATURES, while the ring is stopped. */
struct vh_ol_q {
	uint32_t rx_allowed;		/* dequeue: CSUM, HOST_TSO4/6 negotiated */
	bool asked;			/* dequeue: a header of this burst asks for
					 * something (vh_ol_stash() ran) */
	struct vf_ol_txq tx;		/* enqueue: caps = GUEST_CSUM, GUEST_TSO4/6 */
	struct vnet_ol_rx_stats rx;	/* dequeue headers */
	struct vnet_ol_rx_stats rx_base;	/* stats_reset snapshots */
	struct vf_ol_stats tx_base;
};

/* One vring as the device side sees it.  The control thread fills the
 * configuration; the forwarding core that owns the queue touches the ring
 * only while `ready` is set (acquire), and the control thread clears it and
 * calls vf_sync_wait() before changing anything the data path uses. */
struct vh_vq {
	/* data path */
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	/* packed rings: descriptor ring, driver and device event areas */
	struct vring_packed_desc *pdesc;
	struct vring_packed_desc_event *drv_ev, *dev_ev;
	uint16_t size, mask;
	/* split: next avail slot we read (free-running); packed: ring slot */
	uint16_t last_avail;
	/* split: next used slot we write (free-running); packed: ring slot */
	uint16_t last_used;
	bool avail_wrap, used_wrap;	/* packed wrap counters (start at 1) */
	bool packed;		/* VIRTIO_F_RING_PACKED negotiated */
	bool ready;		/* atomic: the data path may touch the ring */
	/* Drain handshake (dequeue rings): the control thread raises
	 * drain_req once the front-end said it stopped publishing; the core
	 * copies it to drain_ack on a burst that read the request first and
	 * then found nothing available, so everything published before the
	 * request has been taken (vh_dev_drain). */
	uint32_t drain_req;	/* atomic: written by the control thread */
	uint32_t drain_ack;	/* atomic: written by the owning core */
	bool dp_broken;		/* set by the data path on a structure error */
	bool event_idx, mrg_rxbuf, in_order;
	uint8_t hdr_len;	/* 10 or 12 */
	int callfd;		/* atomic: -1 none */
	const struct vh_mem *mem;
	struct rte_mempool *pool;	/* dequeue only */
	uint16_t port_id;		/* for mbuf->port */
	struct vh_vq_stats st;
	bool log_broken;	/* VF_LOG_ONCE flag */
	const char *port_name;
	/* Live migration (vhost_log.h, vhost_announce.h): read once per
	 * burst; NULL / false cost one predictable branch. */
	const struct vh_log *dirty_log;	/* atomic: NULL when not logging */
	uint64_t log_used_gpa;		/* atomic: VHOST_VRING_F_LOG address or ~0 */
	bool rarp_pending;		/* atomic: next dequeue starts with a RARP */
	uint8_t rarp_mac[6];
	struct vh_ol_q ol;	/* checksum/TSO offloads (vhost_offload.h) */

	/* control (control thread only) */
	uint16_t idx;
	bool num_set, addr_ok, kick_set, call_set, enabled;
	bool broken;		/* sticky until reconnect; read by ctl for info */
	uint32_t resumed;	/* packed starts moved off a stale base */
	/* The base is exact (ours, paused for a takeover; or the record a
	 * takeover handed us): the next packed start does not second-guess
	 * it from the ring's flags, which with one used entry per batch need
	 * not show where the device stood.  Cleared by that start, by a
	 * front-end's SET_VRING_BASE and at disconnect. */
	bool base_exact;
	int kickfd;		/* atomic: the dequeuing core sleeps on it (rx modes) */
	struct vhost_vring_addr addr;	/* as received */
	struct vh_vq_stats base;	/* stats_reset snapshot */
};

#endif
