/* The vhost data path's entry points: the layout dispatch (virtqueue.c),
 * whose vh_vq_*() pick the split or the packed ring by the negotiated
 * features.  Including this header gives the whole data path's API.
 *
 * The files, each using only those below it:
 *   vhost_offload_burst.c     burst functions with offloads (vh_ol_*queue)
 *   virtqueue.h, virtqueue.c  this dispatch
 *   virtqueue_intr.c          kicks asked for and suppressed (rx modes)
 *   vhost_announce.c          the RARP a dequeue may start with
 *   virtqueue_split.c         split rings  } peers: neither calls the other
 *   virtqueue_packed.c,       packed rings }
 *     virtqueue_packed_ring.c
 *   vq_shared.h, vq_packed.h  inline pieces both rings' bursts share; the
 *                             packed ring's own
 *   virtqueue_common.c, vhost_offload.c, vhost_log.c, vhost_announce.c
 *                             what the rings call out of line
 *   vq_types.h, vhost_mem.h   plain types, the front-end's memory
 * The control side (vhost_dev.h) sits above all of them. */
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
#include "virtqueue_common.h"
#include "virtqueue_packed.h"
#include "virtqueue_split.h"
#include "vq_types.h"

/* Layout-independent entry points (the port's burst functions). */
uint16_t vh_vq_dequeue(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t vh_vq_enqueue(void *q, struct rte_mbuf **pkts, uint16_t n);
/* Rx notifications (virtqueue_intr.c), on the core that dequeues the
 * ring: arm asks the front-end to kick on its next post and returns the
 * kick fd (-1: the ring is not running, is broken, or has no kick fd);
 * disarm suppresses kicks again and clears the fd. */
int vh_vq_intr_arm(struct vh_vq *vq);
void vh_vq_intr_disarm(struct vh_vq *vq);
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
