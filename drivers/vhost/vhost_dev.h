/* A vhost-user device (one port): its rings, the front-end's memory and the
 * negotiated state.  Control state is touched on the control thread only;
 * the rings' data-path fields are described in vq_types.h. */
#ifndef VH_DEV_H
#define VH_DEV_H

#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>

#include "common/vhost_user_proto.h"
#include "vf_peercred.h"
#include "vf_port.h"
#include "vhost_log.h"
#include "vhost_mem.h"
#include "virtqueue.h"

#define VH_MAX_VRINGS (2 * VF_MAX_QUEUES)

/* What we offer: protocols.md §1.6, §2.1; no bit we do not implement. */
#define VH_FEATURES ((1ull << VIRTIO_F_VERSION_1) | (1ull << VIRTIO_NET_F_MRG_RXBUF) | \
		     (1ull << VIRTIO_F_IN_ORDER) | (1ull << VIRTIO_RING_F_INDIRECT_DESC) | \
		     (1ull << VIRTIO_F_RING_PACKED) | \
		     (1ull << VIRTIO_RING_F_EVENT_IDX) | (1ull << VIRTIO_NET_F_MQ) | \
		     (1ull << VHOST_USER_F_PROTOCOL_FEATURES) | VH_MIGRATION_FEATURES)
/* Live migration (protocols.md §1.11): dirty logging; GUEST_ANNOUNCE
 * needs CTRL_VQ, which QEMU emulates itself for vhost-user (it is not ours
 * to offer), and a guest that acks it announces itself, so QEMU sends
 * SEND_RARP only to a guest without it. */
#define VH_MIGRATION_FEATURES ((1ull << VHOST_F_LOG_ALL) | \
			       (1ull << VIRTIO_NET_F_GUEST_ANNOUNCE))
#define VH_PROTOCOL_FEATURES ((1ull << VHOST_USER_PROTOCOL_F_MQ) | \
			      (1ull << VHOST_USER_PROTOCOL_F_REPLY_ACK) | \
			      (1ull << VHOST_USER_PROTOCOL_F_STATUS) | \
			      (1ull << VHOST_USER_PROTOCOL_F_LOG_SHMFD) | \
			      (1ull << VHOST_USER_PROTOCOL_F_RARP))

/* One vhost-user message as it arrives: the control thread never waits
 * for the rest of a message, it keeps what came and goes back to its loop. */
struct vh_rxmsg {
	struct vhost_user_msg msg;
	uint32_t got;			/* bytes of header + payload so far */
	int fds[VHOST_USER_MAX_FDS];
	unsigned int nfds;
	uint64_t since_ms;		/* when its first byte came (CLOCK_MONOTONIC) */
};

/* Connections that may wait on a server socket for the current
 * front-end to finish negotiating or be preempted; more are refused. */
#define VH_MAX_WAITING 16

struct vh_dev {
	struct vh_vq vq[VH_MAX_VRINGS];
	struct vh_mem mem;
	char name[VF_NAME_LEN];
	uint16_t port_id;		/* for events; VF_EVENT_NO_PORT: none */
	uint16_t nb_qp;			/* queue pairs offered */
	uint64_t features, protocol_features;
	uint64_t ol_offer;		/* offload features offered (devargs) */
	bool features_set;
	uint8_t status;
	bool link_up;			/* atomic: read by link_get */
	uint64_t link_changes;
	uint64_t connections, ctl_rejects;
	char last_error[128];		/* why the last connection was closed */
	uint64_t mem_faults;		/* front-end truncated its memory (SIGBUS) */
	bool mem_unsealed;		/* a region of the table can shrink */
	struct vh_log *log;		/* SET_LOG_BASE mapping, NULL: none */
	uint64_t log_bases;		/* SET_LOG_BASE accepted */
	uint64_t rarp_requests;		/* SEND_RARP received */
	/* Drain before a ring stops (SET_VRING_ENABLE 0, GET_VRING_BASE,
	 * close, ...): the cores take what the front-end already published,
	 * for at most this long (a front-end that goes on publishing); 0: no
	 * drain (unit tests, fuzzers). */
	unsigned int drain_max_us;
	uint64_t drain_unfinished;	/* drains given up: ring not polled, or time */
	/* Drops the connection (vhost_conn.c); NULL: vh_dev_disconnect. */
	void (*drop)(struct vh_dev *dev, const char *why);

	/* socket (vhost_conn.c) */
	char path[108];
	bool client;
	int listen_fd, conn_fd;
	int timer_id;
	int stall_timer;		/* drops a connection stuck mid-message */
	struct vh_rxmsg rx;		/* the message being received */
	uint64_t stalled_msgs;		/* connections dropped: message incomplete */
	uint64_t unread_replies;	/* connections dropped: replies not read */
	/* Server: connections that came while the current front-end had
	 * not finished negotiating (link down).  They wait here, oldest
	 * first, and the first of them takes over as soon as the current
	 * one is stalled mid-message or idle (vhost_conn.c). */
	struct vh_waiter {
		int fd;
		struct vf_peer peer;
	} waiting[VH_MAX_WAITING];
	unsigned int nb_waiting;
	uint64_t last_msg_ms;		/* the current front-end's last whole message */
	uint64_t conn_since_ms;		/* when it connected */
	uint64_t preempted;		/* connections dropped for a waiting one */
	uint64_t busy_rejects;		/* refused: a negotiated front-end is on */
	uint64_t wait_rejects;		/* refused: VH_MAX_WAITING already wait */
	unsigned int retry_ms;	/* client: reconnect-ms */
	uint64_t connect_attempts;	/* client: failed since the last connection */
	bool closing;
	/* Takeover (vhost_takeover.h): the rings stay stopped while set (a
	 * daemon handing its devices over, or one taking them); handed: the
	 * sockets are another process's now, the socket file is not ours to
	 * remove. */
	bool held, handed;
	struct vf_access access;	/* allow-uid/gid, socket-mode/group */
	struct vf_peer peer;		/* the front-end let in last */
	uint64_t peer_rejects;		/* connections refused: peer not allowed */
	char last_refused[128];		/* who and why */
};

/* Closes *fd if open and marks it closed (-1). */
static inline void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Sets up an idle device with nb_qp queue pairs (1..VF_MAX_QUEUES). */
void vh_dev_init(struct vh_dev *dev, const char *name, uint16_t nb_qp);

/* Handles one received message (len bytes: header + payload as read) with
 * the fds that came with it; always takes ownership of the fds (keeps or
 * closes them).  When a reply is due, *reply_len is set to its byte count
 * (else 0).  Returns 0, or -EINVAL/-EPROTO when the connection must be
 * closed (reason in dev->last_error). */
int vh_user_handle(struct vh_dev *dev, const struct vhost_user_msg *msg, uint32_t len,
		   int *fds, unsigned int nfds, struct vhost_user_msg *reply,
		   uint32_t *reply_len);

/* Reads what a non-blocking stream socket holds of the message in rx:
 * header (with its fds), then the declared payload.  Returns 1 when it is
 * complete (rx->got: its length; the caller takes rx->fds and resets rx
 * with vh_rxmsg_reset), 0 when more is to come, -ECONNRESET at EOF between
 * messages, or -EPROTO on a message cut short by EOF, with truncated fds or
 * declaring an oversized payload (rx reset, fds closed). */
int vh_user_recv(int fd, struct vh_rxmsg *rx);
void vh_rxmsg_reset(struct vh_rxmsg *rx, bool close_fds);

/* The front-end is gone: stop the rings, wait for the forwarding cores,
 * unmap its memory, close its fds, forget what was negotiated. */
void vh_dev_disconnect(struct vh_dev *dev);

/* Drain the front-end's transmit rings (all: only < 0) before they stop. */
void vh_dev_drain(struct vh_dev *dev, int only);

/* Stops the rings (all: only < 0), with a drain first if asked, and waits
 * for the forwarding cores to leave them. */
void vh_dev_stop_rings(struct vh_dev *dev, int only, bool drain);

/* Re-evaluates which rings may run and the link state. */
void vh_dev_update(struct vh_dev *dev);

/* Control thread: points every ring at the log the device should use now
 * (NULL without LOG_ALL) and, when that changed under running rings, waits
 * until no core is inside a burst with the old one.  The caller frees a
 * replaced log after this. */
void vh_log_update(struct vh_dev *dev);

#endif
