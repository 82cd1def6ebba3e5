/* virtio-net receive and transmit bursts over split and packed rings: the
 * entry points (the queue itself: virtio_queue.h). */
#ifndef VIRTIO_RXTX_H
#define VIRTIO_RXTX_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "virtio_queue.h"

uint16_t vio_rx_burst(void *q, struct rte_mbuf **pkts, uint16_t n);
/* With offloads: the burst, then the headers into the mbufs; tx through
 * vf_ol_tx_burst(). */
uint16_t vio_rx_burst_ol(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t vio_tx_burst_ol(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t vio_rx_burst_packed_ol(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t vio_tx_burst_packed_ol(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t vio_tx_burst(void *q, struct rte_mbuf **pkts, uint16_t n);
/* Frees the mbufs of every completed tx chain now (the burst does it when
 * the ring runs low).  Checks the used ring like a burst does. */
void vio_tx_reclaim(struct vio_queue *q);

/* Rx notifications (virtio_intr.c), on the core that polls the rx queue:
 * arm asks the back-end to signal the call fd when it next uses a buffer
 * and returns that fd (-1: the queue is not running, is broken or has no
 * buffer posted); disarm suppresses calls again and clears the fd. */
int vio_rx_intr_arm(struct vio_queue *q);
void vio_rx_intr_disarm(struct vio_queue *q);

/* Allocates the ring block (fd-backed DPDK heap) and slots for a queue of
 * `size` entries.  Returns 0 or -ENOMEM. */
int vio_queue_alloc(struct vio_queue *q, uint16_t size, bool rx, int socket);
void vio_queue_free(struct vio_queue *q);
/* Empty ring in the given mode (in-order or not); mbufs still posted are
 * freed.  The device and the forwarding cores must be off the ring. */
void vio_queue_reset(struct vio_queue *q, bool in_order, bool mrg);
/* Rx: posts buffers into every free descriptor (not kicking).  Returns the
 * number posted. */
uint16_t vio_rx_fill(struct vio_queue *q);
/* Rx buffers must hold the header plus a full frame without MRG_RXBUF. */
int vio_rx_pool_check(struct rte_mempool *mp, bool mrg);

/* Packed rings (virtio_rxtx_packed.c): the same operations; a queue is one
 * kind for its lifetime (vio_queue_alloc_packed), vio_queue_free for both. */
uint16_t vio_rx_burst_packed(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t vio_tx_burst_packed(void *q, struct rte_mbuf **pkts, uint16_t n);
void vio_tx_reclaim_packed(struct vio_queue *q);
int vio_queue_alloc_packed(struct vio_queue *q, uint16_t size, bool rx, int socket);
void vio_queue_reset_packed(struct vio_queue *q, bool in_order, bool mrg, bool event_idx);
uint16_t vio_rx_fill_packed(struct vio_queue *q);

#endif
