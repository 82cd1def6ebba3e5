/* RARP announcement of a migrated guest (VHOST_USER_SEND_RARP). */
#ifndef VH_ANNOUNCE_H
#define VH_ANNOUNCE_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "vq_types.h"

/* Control thread: the next dequeue burst of vq (the guest's transmit
 * ring of queue pair 0) starts with a RARP broadcast from mac. */
void vh_rarp_request(struct vh_vq *vq, const uint8_t mac[6]);

/* Data path, while vq->rarp_pending: the RARP frame in pkts[0] (counted
 * in rarp, packets and bytes), then what dequeue() takes into the rest. */
uint16_t vh_rarp_dequeue(struct vh_vq *vq, struct rte_mbuf **pkts, uint16_t n,
			 uint16_t (*dequeue)(void *q, struct rte_mbuf **pkts, uint16_t n));

#endif
