/* Split rings, device side (virtqueue_split.c). */
#ifndef VH_VIRTQUEUE_SPLIT_H
#define VH_VIRTQUEUE_SPLIT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "vq_types.h"

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

#endif
