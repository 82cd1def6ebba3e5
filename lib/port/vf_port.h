/* Ports: {driver ops, private state, queues, stats}.
 *
 * The framework validates (port state, queue ids, arguments) and the driver
 * ops only do the work.  The burst functions and queue pointers sit in the
 * first cache line of struct vf_port, the one deliberate fast-path layout;
 * everything else is reached through functions. */
#ifndef VF_PORT_H
#define VF_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <rte_branch_prediction.h>

#include "vf_devargs.h"

#define VF_MAX_PORTS   256
#define VF_MAX_QUEUES  16
#define VF_NAME_LEN    32

struct vf_port;
struct vf_out;

/* Rx modes, VPP's names.  poll: the core polls for ever (a benchmark's
 * choice); interrupt: when a pass over its queues finds nothing, the core
 * asks each queue's peer for a notification, looks once more, and sleeps
 * on the queues' event fds; adaptive: the same after VF_RX_ADAPTIVE_IDLE_US
 * of empty polls.  A core sleeps only when every queue it polls is in
 * interrupt or adaptive mode and its port can notify (driver ops
 * rx_intr_arm/rx_intr_disarm) and the forwarding mode holds nothing between
 * bursts. */
enum vf_rx_mode { VF_RX_POLL, VF_RX_INTERRUPT, VF_RX_ADAPTIVE };
#define VF_RX_ADAPTIVE_IDLE_US 250
#define VF_RX_MODE_KEY								\
	{ "rx-mode", VF_KV_ENUM, 0, 0, "poll|interrupt|adaptive", "the tool's --rx-mode (poll)", \
	  "poll: always; interrupt/adaptive: the core sleeps while the rx queues are idle" }

typedef uint16_t (*vf_rx_burst_t)(void *rxq, struct rte_mbuf **pkts, uint16_t n);
typedef uint16_t (*vf_tx_burst_t)(void *txq, struct rte_mbuf **pkts, uint16_t n);

/* Frames in the port's own buffers, for a mode that writes and reads every
 * byte itself (measure): it builds its frames straight in the ring's
 * buffers and reads received ones where they lie, with no mbuf and no copy
 * on our side.  Optional; a driver that has them points port->slots at
 * them while started (memif in copy mode).  Only the core that polls the
 * queue calls them, and the caller uses the bursts while a capture runs.
 *   tx_get: up to n free buffers of at least room bytes each, in ring
 *           order; the caller writes a frame into each of the first k and
 *           hands them over with tx_put(k, lengths in s[].len) before its
 *           next call on the queue; the others stay free.
 *   rx_get: up to n received frames, each whole in one buffer (data and
 *           len checked against the port's memory); all of them go back
 *           with rx_put before the next call.  The peer may still write
 *           into shared buffers: the reader bounds every access by len.
 * Both return 0 and set *other when the next buffer or frame cannot be
 * done in place (a chained or bad descriptor, a buffer below room): the
 * caller moves that burst with the mbuf bursts, which handle everything. */
struct vf_slot {
	uint8_t *data;
	uint32_t len;
};

struct vf_slot_ops {
	uint16_t (*tx_get)(void *txq, struct vf_slot *s, uint16_t n, uint32_t room, bool *other);
	void (*tx_put)(void *txq, const struct vf_slot *s, uint16_t k);
	uint16_t (*rx_get)(void *rxq, struct vf_slot *s, uint16_t n, bool *other);
	void (*rx_put)(void *rxq, const struct vf_slot *s, uint16_t n);
};

/* Counter names follow DPDK telemetry's /ethdev/stats. */
struct vf_port_stats {
	uint64_t ipackets, opackets, ibytes, obytes;
	uint64_t imissed, ierrors, oerrors, rx_nombuf;
};

struct vf_xstat {
	char name[64];
	uint64_t value;
};

struct vf_link {
	bool up;
	uint32_t speed_mbps;	/* 0: unknown */
};

/* What the engine asks of a port before start. */
struct vf_port_conf {
	uint16_t nb_rxq, nb_txq;
	uint16_t nb_rxd, nb_txd;
	struct rte_mempool *pool;	/* rx buffers come from here */
};

struct vf_driver {
	const char *name;
	const char *help;			/* one line for vf-ports(7) and help */
	const struct vf_kvdef *keys;		/* accepted devargs; NULL: passed raw */
	/* Optional: the refusals that need no resource (a required key, keys
	 * that exclude or need each other), on the parsed devargs.  Run before
	 * the EAL starts, so a bad spec on the command line exits with status
	 * 2 at once, and again before every probe (the shell's port attach).
	 * 0, or -1 with what is wrong and what is accepted in err. */
	int (*check)(const struct vf_devargs *da, char *err, size_t errlen);
	/* The driver finishes (or hands its peer) the transmit offload
	 * requests packets carry (vf_offload.h); for the others the framework
	 * finishes them in software before their tx burst. */
	bool tx_offloads;
	/* Optional: whether the port's queues keep mbufs between bursts (rx
	 * rings filled ahead, tx buffers the peer has not returned), on the
	 * parsed devargs.  The shared pool reserves a ring's worth per queue
	 * for those; a driver that copies into its peer's buffers keeps none,
	 * which is what lets a daemon serve hundreds of ports.  NULL: keeps. */
	bool (*keeps_mbufs)(const struct vf_devargs *da);
	/* The driver raises link events itself (vf_event_link) as the link
	 * changes; for the others the session polls the link once a second
	 * (lib/session/watch.c). */
	bool link_events;

	/* Parse devargs (already validated against keys), allocate priv,
	 * open sockets.  May fill port->mac and port->max_rxq/max_txq. */
	int (*probe)(struct vf_port *port, const struct vf_devargs *da);
	/* Queues and descriptors; called while stopped, maybe more than once. */
	int (*configure)(struct vf_port *port, const struct vf_port_conf *conf);
	/* Must set port->rx_burst/tx_burst and port->rxq[]/txq[]. */
	int (*start)(struct vf_port *port);
	void (*stop)(struct vf_port *port);
	void (*close)(struct vf_port *port);	/* frees priv; idempotent */

	void (*link_get)(struct vf_port *port, struct vf_link *link);
	void (*stats_get)(struct vf_port *port, struct vf_port_stats *st);
	void (*stats_reset)(struct vf_port *port);	/* unused: the framework keeps a baseline */
	/* Fills up to n entries, returns how many exist (may be > n). Optional. */
	int (*xstats_get)(struct vf_port *port, struct vf_xstat *xs, unsigned int n);
	void (*xstats_reset)(struct vf_port *port);
	/* Driver-specific fields for "show port info" (text and JSON). Optional. */
	void (*info)(struct vf_port *port, struct vf_out *out);
	/* Per-queue ring state for "show port ring". Optional. */
	void (*ring_info)(struct vf_port *port, struct vf_out *out);
	/* Rx notifications, for the rx modes.  arm asks the peer to signal rx
	 * queue q's event fd on its next post and returns that fd, or -1 when
	 * nothing can signal now (no peer: the core sleeps with a timeout);
	 * disarm stops asking and clears the fd.  Only the core that polls the
	 * queue calls them, between bursts.  Optional, both or neither:
	 * without them the port's queues are always polled.  A driver whose
	 * keys are raw (dpdk) gets rx-mode= taken out of them by the
	 * framework; one whose ports differ sets port->no_rx_intr. */
	int (*rx_intr_arm)(struct vf_port *port, uint16_t q);
	void (*rx_intr_disarm)(struct vf_port *port, uint16_t q);
};

struct vf_port {
	/* fast path: first cache line */
	vf_rx_burst_t rx_burst;
	vf_tx_burst_t tx_burst;
	/* VF_CAP_RX | VF_CAP_TX while a capture runs (the capture tap, below): read
	 * every burst, so next to the burst functions */
	volatile uint8_t capture;
	void *rxq[VF_MAX_QUEUES];
	void *txq[VF_MAX_QUEUES];

	/* control path */
	uint16_t id;
	char name[VF_NAME_LEN];
	char spec[VF_DEVARGS_STR_MAX];
	const struct vf_driver *drv;
	void *priv;
	const struct vf_slot_ops *slots;	/* in-place frames (above); NULL: none */
	struct vf_port_conf conf;
	uint16_t max_rxq, max_txq;	/* driver limits, default VF_MAX_QUEUES */
	uint8_t mac[6];
	bool configured, started;
	uint8_t rx_mode;	/* enum vf_rx_mode; relaxed: the cores read it when idle */
	bool rx_mode_given;	/* the spec said rx-mode= (else the tool's --rx-mode) */
	/* Set by the driver: this port cannot notify although its driver
	 * has the ops (dpdk: the PMD has no rx interrupts, or the port was
	 * configured polling); its queues are always polled. */
	bool no_rx_intr;
	struct vf_port_stats stats_base;	/* for "clear port stats" */
	uint64_t link_changes;
	/* Ports whose driver does not take offload requests, while some port
	 * may produce them (rx_offloads): the tx burst goes through
	 * vf_ol_tx_burst first (port.c). */
	bool rx_offloads;		/* set by probe: packets may ask for offloads */
	struct vf_port_olq *olq;	/* per tx queue, NULL: not wrapped */
} __rte_cache_aligned;

/* Driver registry: drivers call this from a constructor (VF_DRIVER_REGISTER). */
void vf_driver_register(const struct vf_driver *drv);
const struct vf_driver *vf_driver_find(const char *name);
/* Whether the port spec's queues keep mbufs between bursts (keeps_mbufs);
 * true for a spec that does not parse (the pool errs on the safe side). */
bool vf_port_spec_keeps_mbufs(const char *spec);
/* Iterate: idx from 0 until NULL. */
const struct vf_driver *vf_driver_at(unsigned int idx);

#define VF_DRIVER_REGISTER(drv) \
	static void __attribute__((constructor)) vf_register_##drv(void) \
	{ vf_driver_register(&(drv)); }

/* Creates a port from "DRIVER[,k=v...]".  Returns NULL with a one-line
 * message in err (naming the bad key and listing the accepted ones). */
struct vf_port *vf_port_create(const char *spec, char *err, size_t errlen);
/* What vf_port_create refuses before it touches anything: the driver, the
 * keys and values, the driver's own check.  0, or -1 with the one-line
 * message in err.  Needs no EAL. */
int vf_port_spec_check(const char *spec, char *err, size_t errlen);
int vf_port_configure(struct vf_port *port, const struct vf_port_conf *conf);
int vf_port_start(struct vf_port *port);
void vf_port_stop(struct vf_port *port);
void vf_port_close(struct vf_port *port);	/* also frees the id */

/* Held around lookups from threads other than the main one (telemetry). */
void vf_port_registry_lock(void);
void vf_port_registry_unlock(void);

uint16_t vf_port_count(void);		/* highest id + 1 */
struct vf_port *vf_port_get(uint16_t id);	/* NULL if none */

void vf_port_link(struct vf_port *port, struct vf_link *link);
/* Stats since the last vf_port_stats_reset(). */
void vf_port_stats(struct vf_port *port, struct vf_port_stats *st);
void vf_port_stats_reset(struct vf_port *port);
int vf_port_xstats(struct vf_port *port, struct vf_xstat *xs, unsigned int n);
void vf_port_xstats_reset(struct vf_port *port);

/* Rx modes: the name of one, a name's mode (-1: none), the mode a port
 * gets when its spec has no rx-mode= (the tool's --rx-mode), and a port's
 * change at run time (-ENOTSUP: the port cannot notify). */
const char *vf_rx_mode_name(enum vf_rx_mode m);
int vf_rx_mode_parse(const char *name);
void vf_port_default_rx_mode(enum vf_rx_mode m);
int vf_port_set_rx_mode(struct vf_port *port, enum vf_rx_mode m);

/* Whether the port's queues may sleep at all (rx_intr_arm/disarm). */
static inline bool vf_port_can_notify(const struct vf_port *port)
{
	return port->drv->rx_intr_arm && !port->no_rx_intr;
}

static inline enum vf_rx_mode vf_port_rx_mode(const struct vf_port *port)
{
	return (enum vf_rx_mode)__atomic_load_n(&port->rx_mode, __ATOMIC_RELAXED);
}

/* Moves after every vf_port_set_rx_mode(): a forwarding core keeps what it
 * derived from its ports' modes until this moves (one load, where a look
 * at every port was hundreds of cache lines on a core with many). */
extern uint32_t vf__port_rx_modes_gen;
static inline uint32_t vf_port_rx_modes_gen(void)
{
	return __atomic_load_n(&vf__port_rx_modes_gen, __ATOMIC_ACQUIRE);
}

/* Burst functions a driver installs while it cannot move packets. */
uint16_t vf_port_rx_none(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t vf_port_tx_none(void *q, struct rte_mbuf **pkts, uint16_t n);

/* The capture tap: while a port's capture flag has VF_CAP_RX or VF_CAP_TX,
 * the forwarding cores copy what it receives or sends into mbufs of the
 * tap's pool, stamped (struct vf_port_tap_meta in the private area), onto
 * the tap's ring; what does not fit counts in drops.  capture.c creates the
 * ring and pool, sets the flag and writes the file (vf_capture.h). */
#define VF_CAP_RX 1
#define VF_CAP_TX 2
#define VF_PORT_TAP_SNAPLEN 65535u	/* bytes copied of a packet */

struct vf_port_tap_meta {
	uint64_t tsc;
	uint8_t dir;
};

struct vf_port_tap {
	struct rte_ring *ring;
	struct rte_mempool *pool;
	uint64_t drops;		/* atomics: the cores share it */
};
extern struct vf_port_tap vf_port_tap;

void vf_port_tap_rx(struct vf_port *p, struct rte_mbuf **pkts, uint16_t n);
uint16_t vf_port_tap_tx(struct vf_port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n);

static inline uint16_t
vf_port_rx(struct vf_port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t nb = p->rx_burst(p->rxq[q], pkts, n);

	if (unlikely(p->capture & VF_CAP_RX) && nb)
		vf_port_tap_rx(p, pkts, nb);
	return nb;
}

static inline uint16_t
vf_port_tx(struct vf_port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n)
{
	if (likely(!(p->capture & VF_CAP_TX)))
		return p->tx_burst(p->txq[q], pkts, n);
	return vf_port_tap_tx(p, q, pkts, n);
}

#endif
