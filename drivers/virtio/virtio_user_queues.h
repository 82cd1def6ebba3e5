/* virtio_user's rings (virtio_user_queues.c): what the state machine and
 * the port ops do to every queue of a device. */
#ifndef VIRTIO_USER_QUEUES_H
#define VIRTIO_USER_QUEUES_H

#include <stdbool.h>
#include <stdint.h>

#include "vf_mem.h"

#include "vhost_user_fe.h"
#include "virtio_user_priv.h"

/* fn on every rx and tx queue of the active pairs. */
void vu_q_all(struct vu_dev *d, void (*fn)(struct vu_dev *, struct vio_queue *, void *),
	      void *arg);
/* For vu_q_all: not ready, ready, reset to the negotiated features. */
void vu_q_unready(struct vu_dev *d, struct vio_queue *q, void *arg);
void vu_q_ready(struct vu_dev *d, struct vio_queue *q, void *arg);
void vu_q_reset(struct vu_dev *d, struct vio_queue *q, void *arg);
bool vu_q_broken(const struct vio_queue *q);
/* The rings of the active pairs, as the start and stop sequences send
 * them; returns how many. */
int vu_rings_of(struct vu_dev *d, struct vu_fe_ring *r);
/* 0, or -EFAULT when a ring or the mbuf pool lies outside regs. */
int vu_mem_check(struct vu_dev *d, const struct vf_mem_region *regs, int n);
/* One queue (ring block, slots, eventfds) on the device's socket. */
int vu_q_new(struct vu_dev *d, struct vio_queue **qp, bool rx, uint16_t vring);
/* Every queue of the device. */
void vu_free(struct vu_dev *d);

#endif
