/* What mode_measure.c (the cores' side) and meas_read.c (the main
 * thread's readers) share: the sender's state of a stream, the receive
 * records of a forwarding core, and the run's epoch. */
#ifndef VF_MEAS_PRIV_H
#define VF_MEAS_PRIV_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_lcore.h>

#include "vf_frames.h"
#include "vf_fwd.h"
#include "vf_hist.h"
#include "vf_seq.h"

struct meas_rec {
	struct vf_seq seq;
	uint64_t jit_sum, jit_n, last_lat;
	int rx_port;
	struct vf_hist hist;
} __rte_cache_aligned;

struct meas_core {
	uint8_t epoch;
	uint32_t clear_seen;
	uint64_t foreign, corrupt, stale;
	unsigned int nrec;
	struct meas_rec rec[];
};

struct meas_tx {
	struct meas_core *core;
	uint8_t epoch;
	uint32_t clear_seen;
	uint32_t nflows;
	uint32_t sum_max;		/* of the datagram the receive check sums (--check) */
	uint64_t seq;			/* next to stamp */
	uint64_t sent;			/* accepted by the port, this run (vf_ctr) */
	uint16_t npend;			/* stamped, refused by a full ring: offered again */
	/* The longest time this core was away between two sending polls (tsc):
	 * a core the system took away for longer than the pacing's catch-up
	 * sends short, and the trial then says nothing about the device. */
	uint64_t last_poll, stall;
	/* Time the port kept frames waiting (its ring full: the device's
	 * back-pressure, as against a tester too slow to offer the load),
	 * and when the current wait began (0: none). */
	uint64_t blocked, block_start;
	struct rte_mbuf *pend[VF_MAX_BURST];
	uint64_t psum[VF_MAX_BURST];	/* pend[i]'s checksum sum, all but the TSC */
	uint64_t rearm;			/* vf_mbuf_rearm_word for our frames */
	uint16_t nspare;		/* received, accounted, kept to send again */
	struct rte_mbuf *spare[VF_MAX_BURST];
	/* frames longer than a segment (vf_chain.h); scratch NULL: none */
	uint32_t seg;			/* data room of a segment */
	uint8_t *scratch;		/* a whole frame, then copied into segments */
	struct rte_mbuf **tails;	/* a burst's tail segments */
	unsigned int tails_used;
	/* lengths, flows and the template (magic and stream in its payload) */
	struct vf_frames fr;
	uint8_t mem[] __rte_cache_aligned;	/* the frames' template and schedule */
};

/* Kept in meas_read.c, written by mode_measure.c: the receive records of
 * each forwarding core, the streams of the current run, and the epoch
 * (the run's number plus the clears asked while it runs). */
extern struct meas_core *vf__meas_cores[RTE_MAX_LCORE];
extern unsigned int vf__meas_run_streams;
extern uint32_t vf__meas_run_epoch;
extern volatile uint32_t vf__meas_clear_req;

uint8_t vf__meas_epoch(void);

#endif
