/* Packed rings (VIRTIO_F_RING_PACKED), device side: the walk and the
 * bursts (virtqueue_packed.c), the ring's set-up (virtqueue_packed_ring.c). */
#ifndef VH_VIRTQUEUE_PACKED_H
#define VH_VIRTQUEUE_PACKED_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "vq_types.h"

/* The walk starts at ring slot `slot` whose head the caller found
 * available in lap `wrap` (flags acquired); it follows NEXT through consecutive slots (each must be available in
 * the same lap), or one indirect table.  *id gets the buffer id (from the
 * last descriptor), *ndesc the ring slots the chain occupies.  Same
 * segment and bounds rules as vh_split_walk(). */
int vh_packed_walk(const struct vh_vq *vq, uint16_t slot, bool wrap, bool want_write,
		   struct vh_chain *c, uint32_t *len, uint16_t *id, uint16_t *ndesc);
uint16_t vh_packed_dequeue(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t vh_packed_enqueue(void *q, struct rte_mbuf **pkts, uint16_t n);
int vh_packed_map(struct vh_vq *vq, const struct vh_mem *mem, const char **why);
void vh_packed_start(struct vh_vq *vq);
/* At start: the base moved to where the ring's flags show the device
 * stood, when the front-end's is stale (virtqueue_packed_resume.c). */
void vh_packed_resume(struct vh_vq *vq);

#endif
