/* The virtio-net queue of our front-end, split or packed ring (mbufs <-> descriptors).
 *
 * One struct vio_queue per vring.  The forwarding core that owns the queue
 * is its only writer; the control thread flips `ready` and, after
 * vf_sync_wait(), resets the ring.  Counters have that single writer
 * (vf_ctr_add(), relaxed), read by the control/main thread with
 * vf_ctr_read(). */
#ifndef VIRTIO_QUEUE_H
#define VIRTIO_QUEUE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "vf_sync.h"

#include <linux/virtio_net.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "common/vnet_ol.h"
#include "vf_ctr.h"
#include "vf_offload.h"
#include "virtqueue_split.h"
#include "virtqueue_packed.h"

/* VERSION_1 is required, so the header is always the 12-byte form. */
#define VIO_HDR_LEN ((uint16_t)sizeof(struct virtio_net_hdr_mrg_rxbuf))
/* Longest mbuf chain we transmit (descriptors per packet). */
#define VIO_TX_MAX_SEGS 64
/* Tx reclaims completed chains once fewer descriptors than this are free
 * (at most a quarter of the ring), or when a packet does not fit. */
#define VIO_TX_RECLAIM_BELOW 64
/* Rx refill waits until this many descriptors are free (batching). */
#define VIO_RX_REFILL_MIN 32
/* Buffers one in-place get hands out (virtio_inplace.c): a burst's worth. */
#define VIO_HELD_MAX 512
/* A tx cookie with this bit is a raw pool object that carried a frame
 * built in place (no mbuf fields set): it goes back with
 * rte_mempool_put, not as a packet. */
#define VIO_COOKIE_RAW ((uintptr_t)1)

struct vio_qstats {
	uint64_t packets, bytes;
	uint64_t errors;	/* rx: bad packets dropped; tx: packets dropped */
	uint64_t nombuf;	/* rx: refill allocation failures (mbufs) */
	uint64_t kicks;
	uint64_t bad_len;	/* rx: used len > buffer or < header (dropped) */
	uint64_t bad_hdr;	/* rx: num_buffers 0 or > ring size (dropped) */
	uint64_t in_place;	/* frames moved in place (virtio_inplace.c) */
};

struct vio_queue {
	struct vq_split vq;
	uint32_t ready;		/* 1: the backend runs this ring (atomic) */
	/* rx: drain handshake (vf_sync_drain): request from the control
	 * thread, acknowledged by the core on a burst that found no used
	 * buffer after reading it */
	uint32_t drain_req, drain_ack;
	bool rx;
	bool mrg;		/* rx: MRG_RXBUF negotiated (num_buffers valid) */
	uint16_t tx_reclaim_below;
	uint16_t port_id;
	uint16_t vring;		/* vhost-user vring index */
	int kickfd, callfd;
	struct rte_mempool *pool;			/* rx buffers; tx: in-place ones */
	uint32_t room;		/* bytes of a pool buffer after the headroom */
	struct virtio_net_hdr_mrg_rxbuf *hdrs;		/* tx: per-descriptor header
							 * for packets without headroom */
	/* rx: mergeable packet being assembled across bursts */
	struct rte_mbuf *mrg_first, *mrg_last;
	uint16_t mrg_left;
	struct vio_qstats st;
	/* offloads (set by the control thread while the queue is stopped):
	 * rx takes what GUEST_* allow, tx leaves to the backend what CSUM
	 * and HOST_TSO* cover (vf_ol_tx_burst() does the rest) */
	uint32_t ol_rx_allowed;
	struct vf_ol_txq ol_tx;
	struct vnet_ol_rx_stats ol_rx;
	/* control: the ring block and private slots */
	void *mem;
	struct vqs_slot *slots;
	/* in place (virtio_inplace.c): the pool buffers between a get and
	 * its put, min(size, VIO_HELD_MAX) of them */
	struct rte_mbuf **held;
	uint16_t nheld, held_max;
	/* packed rings (virtio_rxtx_packed.c): used instead of vq */
	bool packed;
	struct vq_packed pq;
	struct vqp_slot *pslots;
} __rte_cache_aligned;

static inline bool vio_ready(const struct vio_queue *q)
{
	return __atomic_load_n(&q->ready, __ATOMIC_ACQUIRE) != 0;
}

static inline void vio_set_ready(struct vio_queue *q, bool on)
{
	__atomic_store_n(&q->ready, on ? 1u : 0u, __ATOMIC_RELEASE);
}

/* The header of a frame that asks for nothing: all zero.  A forwarded
 * packet's headroom, or a pool buffer, usually still holds the header the
 * device wrote on receive: all zero but num_buffers (1).  Only the 10
 * bytes of struct virtio_net_hdr are tested and written, because
 * num_buffers is unused on transmit (the device ignores it; DPDK's virtio
 * PMD leaves it as well): a store here would dirty a line the device reads
 * next and then writes again, one line more crossing between the cores
 * per packet each way. */
static inline void vio_hdr_clear(struct virtio_net_hdr_mrg_rxbuf *h)
{
	uint64_t a;
	uint16_t b;

	memcpy(&a, h, sizeof(a));
	memcpy(&b, (char *)h + sizeof(a), sizeof(b));
	if (a != 0 || b != 0)
		memset(h, 0, sizeof(struct virtio_net_hdr));
}

/* The header every transmitted packet carries: the offload request the
 * backend takes (vf_ol_tx_burst() finished the rest in software), else
 * all zero.  With vio_hdr_clear, the one place a tx header is written. */
static inline void vio_hdr_tx(const struct vio_queue *q, struct virtio_net_hdr_mrg_rxbuf *h,
			      const struct rte_mbuf *m)
{
	if (__builtin_expect(q->ol_tx.caps != 0 && (m->ol_flags & VF_OL_TX_MASK), 0)) {
		vnet_ol_mbuf_to_hdr(m, &h->hdr, false);
		h->num_buffers = 0;
		return;
	}
	vio_hdr_clear(h);
}
_Static_assert(sizeof(struct virtio_net_hdr) == 10, "10-byte header before num_buffers");
_Static_assert(sizeof(struct virtio_net_hdr_mrg_rxbuf) == 12, "12-byte header");

#endif
