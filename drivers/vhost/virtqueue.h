/* One vring as the device side sees it.  The control thread fills the
 * configuration; the forwarding core that owns the queue touches the ring
 * only while `ready` is set (acquire), and the control thread clears it and
 * calls vf_sync_wait() before changing anything the data path uses.
 *
 * Split rings live in virtqueue_split.c, packed rings (VIRTIO_F_RING_PACKED)
 * in virtqueue_packed.c; vh_vq_*() pick one by the negotiated features. */
#ifndef VH_VIRTQUEUE_H
#define VH_VIRTQUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_ring.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_mempool.h>

#include "vf_ctr.h"
#include "vf_sync.h"
#include "vhost_mem.h"
#include "vhost_offload.h"

struct vh_log;

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
	int kickfd;
	struct vhost_vring_addr addr;	/* as received */
	struct vh_vq_stats base;	/* stats_reset snapshot */
};

/* Appends [addr, addr+len) of the front-end's memory to c, split at region
 * ends.  Returns VH_WALK_OK, VH_WALK_ADDR, or VH_WALK_TOO_MANY (segments
 * beyond VH_MAX_SEGS are not stored; the caller keeps walking then drops). */
static inline int vh_chain_add(const struct vh_mem *mem, uint64_t addr, uint64_t left,
			       struct vh_chain *c)
{
	int rc = 0;

	while (left) {
		uint64_t part = left;
		uint8_t *p = vh_gpa_part(mem, addr, &part);

		if (!p)
			return -4;	/* VH_WALK_ADDR */
		if (c->nseg == VH_MAX_SEGS)
			rc = -7;	/* VH_WALK_TOO_MANY */
		else
			c->seg[c->nseg++] = (struct vh_seg){ p, (uint32_t)part };
		addr += part;	/* cannot wrap: regions do not */
		left -= part;
	}
	return rc;
}

struct vh_cursor {
	const struct vh_chain *c;
	unsigned int s;
	uint32_t off;
};

/* The caller made sure the segments hold len more bytes. */
static inline void vh_cursor_write(struct vh_cursor *cu, const void *src, uint32_t len)
{
	const uint8_t *p = src;

	while (len) {
		const struct vh_seg *g = &cu->c->seg[cu->s];
		uint32_t l = RTE_MIN(len, g->len - cu->off);

		rte_memcpy(g->p + cu->off, p, l);
		p += l;
		len -= l;
		cu->off += l;
		if (cu->off == g->len) {
			cu->s++;
			cu->off = 0;
		}
	}
}

/* Dequeue found the ring empty after reading drain_req as dreq. */
static inline void vh_drain_ack(struct vh_vq *vq, uint32_t dreq)
{
	vf_drain_ack(&vq->drain_ack, dreq);
}

/* Shared by both ring layouts (virtqueue_common.c). */
const char *vh_walk_err_str(int rc);
void vh_vq_break(struct vh_vq *vq, const char *why);
/* Copies a dequeued chain minus the virtio-net header into m; 0 or -1
 * (m reset for reuse). */
int vh_chain_to_mbuf(struct vh_vq *vq, const struct vh_chain *c, uint32_t clen,
		     struct rte_mbuf *m);

/* Walks the chain starting at head (following one level of indirect table)
 * and appends its host segments to c (from c->nseg on); *len gets the
 * chain's byte count.  want_write selects the direction: device-writable
 * descriptors for enqueue (a readable one is an error), readable ones for
 * dequeue (writable ones after them are skipped).  Zero-length descriptors
 * add nothing and their address is not checked.  Never reads outside the
 * ring or the regions of vq->mem.  Returns VH_WALK_OK or an error; on
 * error c->nseg may have grown. */
int vh_split_walk(const struct vh_vq *vq, uint16_t head, bool want_write,
		  struct vh_chain *c, uint32_t *len);

/* The port's burst functions (rxq/txq point at a struct vh_vq). */
uint16_t vh_split_dequeue(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t vh_split_enqueue(void *q, struct rte_mbuf **pkts, uint16_t n);

/* Translates the ring addresses in vq->addr against mem (exact lengths,
 * EVENT_IDX fields included).  0 or -EINVAL; on error the pointers are
 * left NULL. */
int vh_split_map(struct vh_vq *vq, const struct vh_mem *mem, const char **why);

/* (Re)start bookkeeping from the ring in memory (protocols.md §1.9). */
void vh_split_start(struct vh_vq *vq);

/* Packed rings (virtqueue_packed.c).  The walk starts at ring slot `slot`
 * whose head the caller found available in lap `wrap` (flags acquired);
 * it follows NEXT through consecutive slots (each must be available in
 * the same lap), or one indirect table.  *id gets the buffer id (from the
 * last descriptor), *ndesc the ring slots the chain occupies.  Same
 * segment and bounds rules as vh_split_walk(). */
int vh_packed_walk(const struct vh_vq *vq, uint16_t slot, bool wrap, bool want_write,
		   struct vh_chain *c, uint32_t *len, uint16_t *id, uint16_t *ndesc);
uint16_t vh_packed_dequeue(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t vh_packed_enqueue(void *q, struct rte_mbuf **pkts, uint16_t n);
int vh_packed_map(struct vh_vq *vq, const struct vh_mem *mem, const char **why);
void vh_packed_start(struct vh_vq *vq);

/* Layout-independent entry points (the port's burst functions). */
uint16_t vh_vq_dequeue(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t vh_vq_enqueue(void *q, struct rte_mbuf **pkts, uint16_t n);
static inline int vh_vq_map(struct vh_vq *vq, const struct vh_mem *mem, const char **why)
{
	return vq->packed ? vh_packed_map(vq, mem, why) : vh_split_map(vq, mem, why);
}

static inline void vh_vq_start(struct vh_vq *vq)
{
	if (vq->packed)
		vh_packed_start(vq);
	else
		vh_split_start(vq);
}

#endif
