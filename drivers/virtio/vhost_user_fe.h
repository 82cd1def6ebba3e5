/* vhost-user front-end: the messages a virtio-net driver sends to its
 * backend, and validation of the backend's replies (hardening.md D4).
 *
 * Blocking request/reply on one connected socket, run on the control thread
 * only (lib/core/vf_ctl.h).  Every reply must carry exactly the flags 0x5, the
 * request id we sent and the size of its payload; anything else, a reply
 * that carries fds, or no reply within the timeout fails the call, and the
 * caller drops the connection. */
#ifndef VHOST_USER_FE_H
#define VHOST_USER_FE_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>

#include "common/vhost_user_proto.h"

struct vf_mem_region;

struct vu_fe {
	int fd;			/* connected socket */
	int timeout_ms;		/* per reply */
	uint64_t features;	/* negotiated virtio features */
	uint64_t protocol;	/* negotiated protocol features */
	uint64_t offered;	/* what GET_FEATURES returned */
	char err[128];		/* why the last call failed */
};

/* What the driver asks for (intersected with the offer). */
struct vu_fe_want {
	bool mrg_rxbuf, in_order;
	uint16_t queue_pairs;
	bool packed;		/* RING_PACKED (+ EVENT_IDX) required */
	uint64_t offloads;	/* offload feature bits asked for (VU_FE_OL_FEATURES) */
};

struct vu_fe_ring {
	uint32_t index;		/* vring index: 2i rx, 2i+1 tx */
	uint16_t num;
	uint64_t desc, avail, used;	/* our VAs */
	int kickfd, callfd;
	uint32_t base;		/* SET_VRING_BASE: split 0; packed slot | wrap << 15 */
};

/* The virtio features we can drive at all. */
#define VU_FE_FEATURES ((1ull << VIRTIO_F_VERSION_1) | (1ull << VIRTIO_NET_F_MRG_RXBUF) | \
			(1ull << VIRTIO_F_IN_ORDER) | (1ull << VIRTIO_NET_F_MQ) | \
			(1ull << VHOST_USER_F_PROTOCOL_FEATURES) | \
			(1ull << VIRTIO_F_RING_PACKED) | (1ull << VIRTIO_RING_F_EVENT_IDX) | \
			VU_FE_OL_FEATURES)
/* Offloads we can drive (asked for by devargs only, as DPDK's virtio_user
 * asks only for those the application enables). */
#define VU_FE_OL_FEATURES ((1ull << VIRTIO_NET_F_CSUM) | (1ull << VIRTIO_NET_F_GUEST_CSUM) | \
			   (1ull << VIRTIO_NET_F_HOST_TSO4) | (1ull << VIRTIO_NET_F_HOST_TSO6) | \
			   (1ull << VIRTIO_NET_F_GUEST_TSO4) | (1ull << VIRTIO_NET_F_GUEST_TSO6))
#define VU_FE_PROTOCOL ((1ull << VHOST_USER_PROTOCOL_F_MQ) | \
			(1ull << VHOST_USER_PROTOCOL_F_REPLY_ACK) | \
			(1ull << VHOST_USER_PROTOCOL_F_STATUS))

/* Low level: one request (header+payload+fds in one sendmsg). */
int vu_fe_send(struct vu_fe *fe, uint32_t req, bool need_reply, const void *payload,
	       uint32_t size, const int *fds, int nfds);
/* Waits for the reply to req with exactly `size` payload bytes. */
int vu_fe_recv_reply(struct vu_fe *fe, uint32_t req, void *payload, uint32_t size);

/* SET_OWNER (when `owner`), GET_FEATURES, GET/SET_PROTOCOL_FEATURES and, with
 * MQ, GET_QUEUE_NUM.  Fails when the backend lacks VERSION_1 or, for more
 * than one queue pair, MQ.  Fills fe->features/protocol.  Returns 0 or
 * -errno with fe->err set. */
int vu_fe_negotiate(struct vu_fe *fe, const struct vu_fe_want *want, bool owner);

/* SET_FEATURES, SET_STATUS(FEATURES_OK) if STATUS, SET_MEM_TABLE, per ring
 * NUM/BASE(ring base)/ADDR/KICK/CALL, SET_VRING_ENABLE(1) for all, SET_STATUS
 * (DRIVER_OK) if STATUS.  Returns 0 or -errno with fe->err set. */
int vu_fe_start(struct vu_fe *fe, const struct vf_mem_region *regs, int nregs,
		const struct vu_fe_ring *rings, int nrings);

/* SET_VRING_ENABLE(0) then GET_VRING_BASE for each ring (reply index must
 * match).  Returns 0 or -errno. */
int vu_fe_stop(struct vu_fe *fe, const struct vu_fe_ring *rings, int nrings);

#endif
