/* The forwarding engine: streams (rx port/queue -> tx port/queue) spread over
 * forwarding lcores, each running one mode's per-burst function. */
#ifndef VF_FWD_H
#define VF_FWD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "vf_ctr.h"
#include "vf_flow.h"
#include "vf_mix.h"
#include "vf_pace.h"
#include "vf_pcap_read.h"
#include "vf_pcap_split.h"
#include "vf_port.h"

#define VF_MAX_BURST   512
#define VF_MAX_STREAMS (VF_MAX_PORTS * VF_MAX_QUEUES)
#define VF_MAX_LCORES  RTE_MAX_LCORE

struct vf_fwd_cfg;
struct vf_impair_spec;

/* Per-stream counters are written by one forwarding core only, with
 * vf_ctr_add() (relaxed: plain movs); readers on the main thread use
 * vf_ctr_read() and may see a value one burst old. */
struct vf_stream {
	struct vf_port *rx_port, *tx_port;
	uint16_t rx_queue, tx_queue;
	uint16_t burst;
	uint16_t id;
	uint16_t nb_streams;		/* in this run */
	uint16_t nb_senders;		/* streams that generate: they share the rate */
	bool sends;			/* generates (all do, but --one-way) */
	unsigned int lcore;
	/* engine_update.c's scratch while it moves streams (its caller's
	 * thread only): the core slot this stream goes to */
	unsigned int upd_slot;
	const struct vf_fwd_cfg *cfg;
	uint64_t rx_packets, tx_packets, fwd_dropped;
	uint64_t tx_retries;		/* --tx-retry: tx calls repeated on a full ring */
	uint64_t rx_bursts[VF_MAX_BURST + 1];	/* histogram of rx burst sizes */
	/* mode state (txonly/flowgen sequence, rate limiter) */
	uint64_t seq;
	uint64_t tb_tokens, tb_last_tsc, tb_rate;	/* token bucket: packets x tsc_hz */
	struct vf_pace pace;		/* --pattern burst or poisson: credits the bucket */
	uint64_t gen_left;		/* --count: packets still to generate */
	void *mode_priv;		/* e.g. the txonly frame template */
	const struct vf_fwd_mode *priv_mode;	/* the mode mode_priv belongs to */
	/* --record-core-cycles: TSC cycles of this stream's polls, all of
	 * them and those that moved packets (busy), as testpmd's
	 * record-core-cycles; plus their values at the last clear. */
	uint64_t poll_cycles, busy_cycles;
	uint64_t cycles_base[2];
	/* Rx modes: TSC cycles its core slept, and how often it woke. */
	uint64_t sleep_cycles, wakeups;
	uint64_t sleep_base[2];
	uint64_t stats_base[4];		/* clear fwd stats: rx, tx, dropped, retries */
	uint64_t *bursts_base;		/* clear fwd stats: histogram */
} __rte_cache_aligned;

struct vf_fwd_mode {
	const char *name;
	const char *help;
	/* Per-burst work; reads at most fs->burst packets. */
	void (*fwd)(struct vf_stream *fs);
	/* Optional: called once per stream before forwarding starts. */
	void (*stream_init)(struct vf_stream *fs);
	/* Optional: releases what the stream holds (stop, and before the
	 * next stream_init); mode_priv itself is freed by the engine. */
	void (*stream_fini)(struct vf_stream *fs);
	/* Optional: clear fwd stats of the mode's own counters. */
	void (*stats_clear)(struct vf_stream *fs);
	bool generates;		/* txonly-like: no rx needed */
	bool spreads;		/* a generator whose frames go over --flows flows by default */
	bool drains;		/* at stop: stop sending, receive --drain-ms more */
	/* Optional, modes that drain: true once every frame sent has come
	 * back, so the drain need not wait out --drain-ms (main thread). */
	bool (*all_back)(void);
	/* Holds nothing between bursts, so its core may sleep while its rx
	 * queues are idle (rx modes, vf_port.h). */
	bool sleeps;
};

struct vf_fwd_cfg {
	const struct vf_fwd_mode *mode;
	uint16_t burst;
	struct vf_mix txpkts;		/* generators: the frame lengths and their weights */
	uint32_t nb_flows;		/* --flows, 0: not given */
	/* generators: the address and port fields (--flow-*); flows.n is
	 * set by vf_fwd_flows_resolve for the mode in use */
	struct vf_flows flows;
	uint64_t rate_pps;		/* generator pacing, 0: unlimited */
	struct vf_pattern pattern;	/* --pattern: how the frames of rate_pps fall */
	/* replay: the capture (--pcap, in memory), --speed and --loop (0: forever) */
	const struct vf_pcap *replay;
	/* --split: the stream sending on a pair's first port replays side 0,
	 * the one sending on its second side 1; NULL: each the whole capture */
	const struct vf_pcap_split *replay_split;
	double replay_speed;
	uint64_t replay_loops;
	uint64_t count;			/* generators: packets per stream, 0: no limit */
	uint32_t drain_ms;		/* modes that drain: receive this long after the last send */
	/* --tx-retry, --tx-retry-us: frames a full tx ring refused are
	 * offered again up to tx_retry times, tx_retry_us apart, before they
	 * are dropped (vf_fwd_tx_retry) */
	uint32_t tx_retry, tx_retry_us;
#define VF_FWD_TX_RETRY_MAX 1024
#define VF_FWD_TX_RETRY_US_MAX 1000	/* with the above, a burst waits 1 s at most */
	bool record_cycles;		/* --record-core-cycles: time each poll */
	bool one_way;			/* --one-way: of a port pair only the first sends */
	bool check_stamp;		/* --check stamp: measure checks headers and stamp only */
	struct rte_ether_addr peer[VF_MAX_PORTS];	/* --eth-peer */
	struct rte_mempool *pool;
	unsigned int nb_cores;
	/* impair mode (--impair): the settings live with their owner (the
	 * session); fwd only carries them to the mode (lib/measure). */
	const struct vf_impair_spec *impair;
};

/* --tx-retry (txretry.c): offers pkts[0..n) again, up to cfg->tx_retry
 * times, cfg->tx_retry_us apart (a busy wait: no syscall on a forwarding
 * core); returns how many the port took.  The modes' fwd_tx calls it out
 * of line: only a full ring gets there. */
uint16_t vf_fwd_tx_retry(struct vf_stream *fs, struct rte_mbuf **pkts, uint16_t n);

/* Modes outside fwd/ (measure, impair: lib/measure) register from a
 * constructor, as drivers do; they are listed after fwd's own. */
void vf_fwd_mode_register(const struct vf_fwd_mode *mode);
const struct vf_fwd_mode *vf_fwd_mode_find(const char *name);
const struct vf_fwd_mode *vf_fwd_mode_at(unsigned int idx);	/* NULL at end */

/* Streams over the ports that exist now (port 2k <-> 2k+1, a lone last port
 * to itself), nb_q queues each, spread over the forwarding lcores. */
int vf_fwd_setup(struct vf_fwd_cfg *cfg, uint16_t nb_q);
/* While forwarding runs, in a mode that only forwards (not generating,
 * not draining): the streams again over the ports that exist now, less
 * gone (a port about to be closed; NULL: none).  Streams whose ports and
 * queue stay keep running on their core, with their counters; new ones
 * start; those of gone (and of re-paired ports) stop, and when this
 * returns 0 no core touches them, so gone may be closed.  -EOPNOTSUPP in
 * a mode that sends its own frames, -ENOMEM, -ETIMEDOUT if a core did
 * not finish its pass within seconds (nothing changed then). */
int vf_fwd_update(const struct vf_port *gone);
/* vf_fwd_update() is allowed now: forwarding runs in such a mode. */
bool vf_fwd_can_update(void);
/* Starts the lcores; tx_first sends n bursts per stream first (txonly). */
int vf_fwd_start(unsigned int tx_first_bursts);
void vf_fwd_stop(void);
bool vf_fwd_running(void);
/* Seconds of forwarding since the last start (or of the last run). */
double vf_fwd_elapsed(void);

/* The stream table changes under the session lock; a reader that does
 * not hold it (DPDK's telemetry thread) takes this one, which the engine
 * holds while it frees streams or swaps the table. */
void vf_fwd_streams_lock(void);
void vf_fwd_streams_unlock(void);
unsigned int vf_fwd_nb_streams(void);
/* The streams that generate (all but, with --one-way, those that send on
 * the second port of a pair); at least 1 once set up. */
unsigned int vf_fwd_nb_senders(void);
struct vf_stream *vf_fwd_stream(unsigned int i);
void vf_fwd_stats_clear(void);
/* Wakes every sleeping forwarding core (after an rx mode change). */
void vf_fwd_wake(void);
/* Forwarding lcores available (all EAL lcores but the main one). */
unsigned int vf_fwd_lcores_available(void);

/* The flows of cfg's mode (vf_flows_resolve): cfg->flows.n.  0, or -1
 * with a message in err. */
int vf_fwd_flows_resolve(struct vf_fwd_cfg *cfg, char *err, size_t errlen);

/* replay: every stream has sent its --loop passes over the capture. */
bool vf_fwd_replay_done(void);

/* Helpers shared by the modes. */
uint16_t vf_fwd_tx_and_free(struct vf_stream *fs, struct rte_mbuf **pkts, uint16_t n);

#endif
