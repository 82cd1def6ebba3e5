/* memif driver internals shared by the control side (memif_msg.c,
 * memif_socket.c, memif_if.c), the data path (memif_rxtx.c), the port glue
 * (memif_port.c) and the unit tests.  Not a public header.
 *
 * Threads: every field below the "control" marks is touched only on the
 * control thread (lib/core/vf_ctl.h), or from the main thread through
 * vf_ctl_call().  The forwarding cores touch only struct memif_queue, and
 * only while queue->ready is set; the control thread clears ready, waits in
 * vf_sync_wait() and only then unmaps (memif_if_teardown).
 *
 * Calls go one way, top down: memif_port.c -> memif_socket.c (sockets,
 * control loop) -> memif_msg.c (messages) -> memif_if.c (regions, queues)
 * -> memif_rxtx.c, memif_inplace.c, memif_zc.c (data path).  A lower file that must close a
 * connection does it through memif_conn.drop. */
#ifndef MEMIF_H
#define MEMIF_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "memif_proto.h"
#include "vf_ctr.h"
#include "vf_peercred.h"
#include "vf_port.h"

#define MEMIF_MAX_QUEUES	VF_MAX_QUEUES
/* Regions a peer may add: index 0..MEMIF_MAX_REGION (advertised in HELLO). */
#define MEMIF_MAX_REGION	255
/* Control messages queued for lock-step sending: INIT, 1 region,
 * 2 x MEMIF_MAX_QUEUES rings, CONNECT, slack. */
#define MEMIF_TXQ_LEN		(4 + 2 * MEMIF_MAX_QUEUES)
#define MEMIF_SOCK_NAME_MAX	(sizeof(((struct sockaddr_un *)0)->sun_path) - 1)
/* A region larger than this is refused (1 TiB): keeps every offset+size
 * sum far from overflowing and refuses nonsense before mmap. */
#define MEMIF_REGION_MAX_BYTES	(1ull << 40)

enum memif_state {
	MEMIF_ST_STOPPED,
	MEMIF_ST_LISTENING,	/* server: waiting for a client */
	MEMIF_ST_CONNECTING,	/* client: no connection yet, retrying */
	MEMIF_ST_HANDSHAKE,	/* socket up, messages in progress */
	MEMIF_ST_CONNECTED,
};

const char *memif_state_name(enum memif_state st);

struct memif_region {
	void *addr;		/* NULL until mapped */
	uint64_t size;
	int fd;			/* -1: none */
	bool owned;		/* we created it (client): vf_mem_shared_free */
	bool borrowed;		/* zero-copy: DPDK's own memory, fd owned by DPDK */
	uint64_t map_off;	/* borrowed: where our mapped part starts */
	int pm;			/* peer mapping handle (vf_peermem), 0: none */
};

/* Zero-copy: one of our DPDK memory regions as the peer sees it. */
struct memif_zregion {
	uintptr_t lo, hi;	/* our mapped part [lo, hi) */
	uintptr_t base;		/* what offset 0 of the region is for us */
	uint16_t index;		/* memif region index */
};
#define MEMIF_MAX_ZREGIONS 8

struct memif_if;

/* One direction of one queue: what a forwarding core needs, nothing else. */
struct memif_queue {
	struct memif_ring *ring;
	uint8_t ready;		/* atomic: set by ctl after connect, cleared first at disconnect */
	uint8_t broken;		/* latched by the data path; ctl disconnects */
	uint16_t size, mask;
	uint16_t last;		/* consumer: next slot to read; producer: next slot to write */
	uint16_t posted;	/* client rx: head we published */
	uint16_t bsize;		/* client: our buffer size */
	uint64_t buf_base;	/* client: offset of this ring's first buffer in region 0 */
	uint8_t *region0;	/* client: base of region 0 */
	const struct memif_region *regions;	/* server: peer regions */
	uint16_t nregions;
	int intr_fd;
	struct rte_mempool *pool;
	uint16_t mbuf_room;	/* data room after headroom */
	uint16_t qid;
	uint16_t port_id;	/* for received mbufs */
	/* single writer (the core polling this queue): vf_ctr_add(), read
	 * elsewhere with vf_ctr_read() */
	uint64_t pkts, bytes, errors, nombuf, bad_desc, ring_err;
	/* control thread: rx, published by the peer but still in the ring
	 * when the connection went (dropped); tx, offered while no peer */
	uint64_t undelivered;
	uint64_t nopeer;	/* single writer (the core) */
	/* zero-copy (client only): the mbuf behind each slot, our regions */
	struct rte_mbuf **zc_mbufs;
	uint16_t zc_freed;	/* tx: slots before this are released */
	uint8_t nzr;
	struct memif_zregion zr[MEMIF_MAX_ZREGIONS];
	bool log_bad_desc, log_ring;
	struct memif_if *mif;
} __rte_cache_aligned;

struct memif_cfg {
	bool server;
	uint32_t id;
	char socket[MEMIF_SOCK_NAME_MAX + 1];
	bool abstract;
	uint16_t bsize;
	uint8_t log2;
	char secret[MEMIF_SECRET_SZ + 1];
	bool zero_copy;		/* asked for */
	uint16_t queues;	/* 0: as configured by the engine */
	unsigned int reconnect_ms;	/* client retry period; 0: never */
	char if_name[MEMIF_NAME_SZ];	/* sent in CONNECT/CONNECTED */
	struct vf_access access;	/* allow-uid/gid, socket-mode/group */
};

struct memif_ringinfo {
	uint16_t region;
	uint32_t offset;
	uint8_t log2;
	int fd;			/* interrupt eventfd, -1: none */
};

struct memif_sock;
struct memif_conn;

struct memif_if {
	struct memif_cfg cfg;
	/* set by configure */
	uint16_t nb_rxq, nb_txq;
	struct rte_mempool *pool;
	struct memif_queue *rxq, *txq;	/* MEMIF_MAX_QUEUES each */

	bool zc;		/* zero-copy in use (decided at start) */

	/* control */
	enum memif_state state;
	bool enabled;		/* started: accepts/initiates connections */
	struct memif_sock *sock;	/* server: shared listener */
	struct memif_conn *conn;	/* current connection, NULL if none */
	int timer;		/* reconnect / health timer id, 0: none */

	/* negotiated */
	uint16_t run_c2s, run_s2c;	/* rings per direction */
	uint8_t run_log2;
	struct memif_region regions[MEMIF_MAX_REGION + 1];
	uint16_t nregions;
	struct memif_ringinfo c2s[MEMIF_MAX_QUEUES], s2c[MEMIF_MAX_QUEUES];
	uint16_t n_c2s, n_s2c;	/* rings received (server) / created (client) */

	/* reported */
	bool link_up;
	char reason[MEMIF_REASON_SZ + 1];	/* last disconnect reason */
	char peer_name[MEMIF_NAME_SZ + 1];	/* HELLO/INIT name */
	char peer_if[MEMIF_NAME_SZ + 1];	/* CONNECT/CONNECTED if_name */
	uint64_t nb_connects, nb_disconnects, ctl_rejects;
	uint64_t ctl_preempted;		/* server: handshakes dropped for a new INIT */
	uint64_t ctl_unread_msgs;	/* connections dropped: peer reads nothing */
	uint64_t link_changes;
	uint16_t port_id;		/* for events (vf_event.h) */
	uint64_t connect_attempts;	/* client: failed since the last connection */
	struct vf_peer peer;		/* credentials of the last peer let in */
	uint64_t peer_rejects;		/* client: servers refused (allow-uid/gid) */
	char last_refused[128];		/* client: who and why */
	uint64_t mem_faults;	/* peer truncated a region under us (SIGBUS) */
	bool mem_fault;		/* that is why the connection goes: no drain */
};

/* A control connection (one per client interface, many per listener). */
enum memif_phase {
	MEMIF_PH_HELLO,		/* client: waits for HELLO */
	MEMIF_PH_INIT,		/* server: waits for INIT */
	MEMIF_PH_SETUP,		/* regions and rings */
	MEMIF_PH_CONNECT,	/* client: CONNECT queued/sent, waits CONNECTED */
	MEMIF_PH_CONNECTED,
};

struct memif_txmsg {
	struct memif_msg msg;
	int fd;			/* not owned; -1: none */
	bool wants_ack;
};

struct memif_conn {
	int fd;
	bool server;
	bool watched;		/* registered with the control loop */
	enum memif_phase phase;
	struct memif_sock *sock;	/* server side: the listener it came from */
	struct memif_if *mif;		/* NULL until INIT (server) */
	struct memif_if *asked;		/* server: the interface INIT named, for events */
	struct memif_txmsg txq[MEMIF_TXQ_LEN];
	unsigned int tx_head, tx_count;
	unsigned int acks_due;		/* client: ACKs still owed by the server */
	char reason[MEMIF_REASON_SZ + 1];	/* why we drop it */
	bool log_unsealed;
	struct vf_peer peer;		/* SO_PEERCRED of the other end */
	struct memif_conn *next;	/* sock's pending list */
	uint64_t accepted_ms;		/* server: when accepted (CLOCK_MONOTONIC) */
	/* memif_conn_close, set by memif_conn_new: how memif_if.c drops the
	 * connection (peer memory truncated) without calling memif_socket.c */
	void (*drop)(struct memif_conn *c, const char *reason);
};

/* Connections on a listener that have not sent INIT yet: a new one over
 * this drops the oldest once that one had MEMIF_SILENT_GRACE_MS to speak,
 * so silent peers cannot hold the socket; until then the newcomer waits in
 * the backlog (memif_listen.c). */
#define MEMIF_MAX_PENDING	16
#define MEMIF_SILENT_GRACE_MS	500
#define MEMIF_ADMIT_POLL_MS	20
/* Room for every port of one daemon connecting at once (density). */
#define MEMIF_LISTEN_BACKLOG	256
/* Send buffer of a control connection: we send in lock-step, one message
 * per message received, so a peer that reads has at most a few unread; a
 * peer that only writes fills this and is dropped, and the memory it can
 * make us hold stays small. */
#define MEMIF_CTL_SNDBUF	8192

/* A listening socket shared by every server interface with the same name. */
struct memif_sock {
	char name[MEMIF_SOCK_NAME_MAX + 1];
	bool abstract;
	int fd;
	unsigned int refcnt;
	struct memif_if *ifs[VF_MAX_PORTS];
	struct memif_conn *pending;	/* every accepted connection */
	uint64_t refused;		/* connections dropped before INIT succeeded */
	struct vf_access access;	/* who may connect; the file's mode/group */
	uint64_t peer_rejects;		/* of those: peers not allowed */
	char last_refused[128];		/* who and why */
	uint64_t preempted;		/* silent connections dropped over the cap */
	uint64_t deferred;		/* times accepting waited for room */
	bool paused;			/* not accepting: the cap is reached */
	int admit_timer;		/* while paused: looks for room */
	uint64_t unread_msgs;		/* dropped before INIT: peer reads nothing */
	struct memif_sock *next;
};

/* "@name" for an abstract socket name, else the path (events, logs). */
static inline const char *memif_sock_str(char *buf, size_t len, const char *name, bool abstract)
{
	snprintf(buf, len, "%s%s", abstract ? "@" : "", name);
	return buf;
}

/* ---- memif_if.c: interface lifecycle (control thread) ---- */
/* Events (vf_event.h) of the interface's peer, on its socket; and of a
 * failed connect (a client's attempt, counted). */
void memif_if_peer_event(struct memif_if *mif, enum vf_event_peer state,
			 const struct vf_peer *p, const char *why);
void memif_if_connect_failed(struct memif_if *mif, int err);
/* A connection on listener c->sock turned away before INIT bound it
 * (c->asked: the interface INIT named, if it got that far). */
void memif_sock_refused(const struct memif_conn *c, const char *why);
struct memif_if *memif_if_new(const struct memif_cfg *cfg);
void memif_if_free(struct memif_if *mif);
/* Returns 0 or -errno; only while stopped. */
int memif_if_configure(struct memif_if *mif, uint16_t nb_rxq, uint16_t nb_txq,
		       struct rte_mempool *pool);
/* Client: build region 0 (rings and buffers) and eventfds for the run
 * config; 0 or -errno (everything released on error). */
int memif_if_build_regions(struct memif_if *mif);
/* Server: map the peer's regions and check the rings; 0, or -1 with a
 * reason in reason. */
int memif_if_map_peer(struct memif_if *mif, char *reason, size_t len);
/* Point the queues at the rings and mark them ready; link up. */
void memif_if_connected(struct memif_if *mif);
/* Mark queues not ready, wait for the cores, unmap, close fds, link down.
 * reason NULL keeps the last one.  Safe to call in any state. */
void memif_if_teardown(struct memif_if *mif, const char *reason);
/* Before a teardown: let the cores take what the peer already published
 * in our receive rings (bounded: until no progress for a few ms); what is
 * left is counted in undelivered. */
void memif_if_drain(struct memif_if *mif);

/* ---- memif_msg.c: message handler (no socket calls) ---- */
/* Handles one received message of len bytes with fd (-1: none), which it
 * takes ownership of (kept or closed).  Queues replies in c->txq.
 * Returns 0; -1 with c->reason set: the caller must drop the connection
 * and tell the peer why (memif_conn_close); -2: the peer sent DISCONNECT,
 * drop the connection without answering (c->reason says why). */
int memif_msg_handle(struct memif_conn *c, const void *buf, size_t len, int fd);
/* Queue HELLO (server, right after accept). */
void memif_msg_queue_hello(struct memif_conn *c);
void memif_msg_init_disconnect(struct memif_msg *m, const char *reason);
/* ours (NUL-terminated, <= MEMIF_SECRET_SZ) equals the INIT field theirs
 * read as a string; time independent of where they differ. */
bool memif_secret_equal(const char *ours, const uint8_t theirs[MEMIF_SECRET_SZ]);

/* ---- memif_socket.c: sockets and the control loop ---- */
/* New connection over fd (taken over).  mif: client interface, or NULL for
 * a server connection accepted on sock. */
struct memif_conn *memif_conn_new(int fd, struct memif_sock *sock, struct memif_if *mif);
/* Reads one message, handles it, sends the next queued one.  Returns 0, or
 * -1 when the connection was closed (c is freed then). */
int memif_conn_input(struct memif_conn *c);
/* Sends the next queued message if any; 0 or -1 (send failed). */
int memif_conn_send_next(struct memif_conn *c);
/* Watch a connection on the control thread; 0 or -errno. */
int memif_conn_watch(struct memif_conn *c);
/* Sends DISCONNECT(reason) when reason != NULL, tears the interface down,
 * closes and frees c. */
void memif_conn_close(struct memif_conn *c, const char *reason);
/* As memif_conn_close, but send_reason goes to the peer (NULL: nothing
 * sent) and why is recorded and logged. */
void memif_conn_close_ex(struct memif_conn *c, const char *send_reason, const char *why);

/* Listener registry (control thread). */
struct memif_sock *memif_sock_get(const char *name, bool abstract, char *err, size_t len);
/* As memif_sock_get with the access settings of the port (acc; a socket
 * shared by several ports needs the same settings on each). */
struct memif_sock *memif_sock_open(const char *name, bool abstract, const struct vf_access *acc,
				   char *err, size_t len);
void memif_sock_put(struct memif_sock *s);
int memif_sock_attach(struct memif_sock *s, struct memif_if *mif, char *err, size_t len);
void memif_sock_detach(struct memif_sock *s, struct memif_if *mif);

/* Enable (start) / disable (stop) an interface: servers accept INIT for its
 * id, clients connect now and then every reconnect_ms. */
int memif_if_enable(struct memif_if *mif);
void memif_if_disable(struct memif_if *mif);
/* Client: one connection attempt now; 0 or -errno. */
int memif_client_connect(struct memif_if *mif);
/* Fills a sockaddr_un for name (abstract: leading NUL, no trailing NUL). */
socklen_t memif_sockaddr(struct sockaddr_un *sa, const char *name, bool abstract);

/* ---- memif_rxtx.c: data path ---- */
uint16_t memif_rx_client(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t memif_tx_client(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t memif_rx_server(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t memif_tx_server(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t memif_rx_client_zc(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t memif_tx_client_zc(void *q, struct rte_mbuf **pkts, uint16_t n);
/* Zero-copy client rx: post fresh mbufs into every free S2C slot. */
void memif_client_refill_zc(struct memif_queue *q);
/* Frees every mbuf a zero-copy queue still holds (after vf_sync_wait). */
void memif_queue_reclaim(struct memif_queue *q);
/* Client: can zero-copy work with this pool?  0, or -errno with a reason. */
int memif_zc_check(struct rte_mempool *pool, char *why, size_t len);
/* Re-initialises a queue's private indices for a new connection. */
void memif_queue_reset(struct memif_queue *q);

/* memif_inplace.c: frames in place (vf_port.h), copy mode, per role. */
extern const struct vf_slot_ops memif_slots_client, memif_slots_server;

/* memif_intr.c: the port's rx notifications (vf_driver.rx_intr_arm). */
struct vf_port;
int memif_rx_intr_arm(struct vf_port *port, uint16_t q);
void memif_rx_intr_disarm(struct vf_port *port, uint16_t q);
/* Client rx: post every free S2C slot (our buffers, capacity bsize). */
void memif_client_refill(struct memif_queue *q);

#endif
