/* Inside the search: the trial runner (RFC 9971's Measurer) and the run's
 * record of trials.  The methods (mlrsearch.c, bisect.c) only choose
 * loads and durations and read the trials back. */
#ifndef VF_SEARCH_TRIAL_H
#define VF_SEARCH_TRIAL_H

#include <stdbool.h>
#include <stdint.h>

#include "vf_meas.h"
#include "vf_out.h"
#include "vf_session.h"

#define VF_SEARCH_MAX_TRIALS 1024

/* One trial: what was asked, what the ports took, what came back. */
struct vf_search_trial {
	unsigned int n;		/* 1, 2, ... in the order run */
	const char *phase;	/* "limit", a goal's name, "ndr", "lat 50%"... */
	double load;		/* intended pps, all streams; 0: unthrottled */
	double duration;	/* intended seconds */
	double effective;	/* seconds the generator ran (stop minus start) */
	double offered;		/* frames sent / effective: what the ports took */
	uint64_t sent, received, lost;
	double loss;		/* lost / (sent + refused) */
	/* The ports took less than the load asked (by more than the
	 * tolerance): the trial says nothing about the device at that load
	 * and never counts as its success. */
	bool limited;
	/* The longest time a sending core was away (s).  A limited trial
	 * with a stall of VF_SEARCH_STALL_S or more is the tester's accident,
	 * not its limit: it is run again (up to VF_SEARCH_STALL_REPEATS
	 * times) and this one marked repeated, read by no method. */
	double stall;
	bool repeated;
	/* Seconds the ports kept frames waiting (a full ring: the device's
	 * back-pressure), and the frames the load owed in that time: counted
	 * in lost (and in the loss's denominator), not the tester's limit. */
	double blocked;
	uint64_t refused;
	struct vf_meas_lat lat;
};

struct vf_search {
	struct vf_session *ses;
	unsigned int n;
	struct vf_search_trial t[VF_SEARCH_MAX_TRIALS];
	double start;
	bool aborted;
	double tester_limit;	/* pps the ports took unthrottled; 0: not measured */
	const char *label;	/* --search-sizes: the entry searched at, or NULL */
};

/* Frames sent below intended load x effective duration x (1 - this), less
 * two bursts per stream: tester-limited.  The pacing is exact to a burst
 * over the trial, far inside 1 %. */
#define VF_SEARCH_LOAD_TOLERANCE 0.01

/* A sending core away this long (seen on shared vCPUs: a hypervisor takes
 * one for 100 ms) loses frames the pacing cannot catch up; a busy loop's
 * own gaps (interrupts) stay under a few ms. */
#define VF_SEARCH_STALL_S 0.01
#define VF_SEARCH_STALL_REPEATS 2

/* Runs one trial at load pps (0: unthrottled) for duration seconds,
 * prints its row (stderr table, or an NDJSON line with --json) and keeps
 * it in s->t; again when the tester stalled and so sent short (each try
 * is kept and shown, the last is returned).  NULL when interrupted, out
 * of room or unable to start. */
const struct vf_search_trial *vf_search_trial(struct vf_search *s, double load,
					      double duration, const char *phase);

/* "12.3456 Mpps" into buf (for text lines). */
const char *vf_search_fmt_rate(double pps, char *buf, size_t len);

#endif
