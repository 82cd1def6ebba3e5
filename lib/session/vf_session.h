/* A session: the settings of one run and what drives it, shared by the
 * common main (lib/app), the shell (lib/shell) and the search (lib/search)
 * so that none of them calls back into another.  It holds the engine's
 * configuration, the ports' queue settings and the output settings; its
 * functions add ports, start the engine, print statistics and write a
 * finished document to stdout and the stats file.
 *
 * The main fills it from the options; everything above reads and changes
 * it from the main thread (and the shell's commands) only. */
#ifndef VF_SESSION_H
#define VF_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vf_fwd.h"
#include "vf_impair.h"
#include "vf_meas.h"
#include "vf_port.h"
#include "vf_rate.h"

struct vf_out;

/* --search: the throughput search's settings (lib/search). */
#define VF_SEARCH_MAX_GOALS 8
#define VF_SEARCH_GOAL_LEN 128
#define VF_SEARCH_MAX_SIZES 16
struct vf_search_cfg {
	bool on;
	bool bisect;		/* --search-method bisect; default MLRsearch */
	double pdr_loss;	/* default 0.005 */
	bool pdr_loss_given;
	uint64_t min_rate, max_rate;	/* pps, all streams; max 0: measured */
	double trial;		/* seconds per trial (MLRsearch: final trials) */
	double precision;	/* relative width at which the search stops */
	/* --search-goal, as given (lib/search parses them); none: NDR + PDR */
	char goals[VF_SEARCH_MAX_GOALS][VF_SEARCH_GOAL_LEN];
	unsigned int nb_goals;
	/* --search-sizes: one search per entry (a length or a named mix),
	 * in place of --txpkts; none: one search at --txpkts */
	struct vf_mix sizes[VF_SEARCH_MAX_SIZES];
	unsigned int nb_sizes;
};

struct vf_session {
	const char *tool;		/* the tool's name: prompts, JSON, Prometheus */
	/* The tool's own shell commands (registered once), NULL: none. */
	void (*shell_init)(struct vf_session *ses);
	/* engine */
	struct vf_fwd_cfg fwd;		/* fwd.impair points at impair below */
	struct vf_impair_spec impair;	/* --impair */
	uint16_t nb_rxq, nb_txq, nb_rxd, nb_txd;
	unsigned int nb_cores;		/* 0: all forwarding lcores */
	uint32_t total_num_mbufs;	/* 0: computed */
	bool tx_first, auto_start, interactive;
	bool eth_peer_set[VF_MAX_PORTS];
	/* run and output */
	double duration;		/* 0: until signal / quit */
	double stats_period;		/* 0: none */
	bool json;
	char stats_file[512];
	FILE *stats_fp;
	char prom_file[512];		/* --prom-file */
	char capture_file[512];		/* --capture PORT[:DIR]:FILE */
	uint16_t capture_port;
	unsigned int capture_dirs;
	char cmdline_file[512];
	bool stop_on_error;
	bool cmd_input;			/* commands from a piped stdin */
	int verbose;
	volatile bool quit;
	/* --rate, --min-rate, --max-rate as given (value 0: not given); bit/s
	 * and percentages become fwd.rate_pps and search.min_rate/max_rate
	 * once the ports exist (vf_session_resolve_rates) */
	struct vf_rate rate_spec, min_rate_spec, max_rate_spec;
	/* replay: --pcap, read once before the run (fwd.replay points here) */
	char pcap_file[512];
	struct vf_pcap pcap;
	enum vf_pcap_split_mode split;	/* --split */
	struct vf_pcap_split pcap_split;	/* fwd.replay_split points here, but with none */
	/* measuring */
	char hist_file[512];
	struct vf_meas_limits limits;
	struct vf_search_cfg search;
	double warmup;			/* --warmup: seconds sent and discarded first, 0: none */
	/* rates: the ports' counters at the last statistics and when */
	struct vf_port_stats prev_st[VF_MAX_PORTS];
	double prev_time;
	unsigned int period_lines;	/* text lines printed by --stats-period */
};

/* The defaults every tool starts from (the main then applies options). */
void vf_session_init(struct vf_session *ses, const char *tool);

/* SIGINT and SIGTERM end a run cleanly, SIGPIPE is ignored. */
void vf_session_signals_install(void);
/* The SIGINT/SIGTERM received, or 0. */
int vf_session_signalled(void);

/* Creates, configures and starts a port with the session's queue settings
 * and fwd.pool.  Returns its id, or -1 with a message in err. */
int vf_session_port_add(struct vf_session *ses, const char *spec, char *err, size_t errlen);
/* replay: reads --pcap and splits it by --split (fwd.replay and
 * fwd.replay_split then point into ses).  0 (at once without --pcap), or
 * -1 with a message in err: --split without --pcap or with --one-way, a
 * file that does not load, a split that cannot be made. */
int vf_session_replay_load(struct vf_session *ses, char *err, size_t errlen);
/* --split over the ports that exist now: whole pairs.  0, or -1 with a
 * message in err. */
int vf_session_replay_check(const struct vf_session *ses, char *err, size_t errlen);
/* Frees the capture and its split (and clears fwd's pointers to them). */
void vf_session_replay_free(struct vf_session *ses);
/* What the generators will send, checked against the pool and the mode in
 * use: the longest --txpkts fits one mbuf, the --flow-* fields and --flows
 * resolve (fwd.flows.n), the ports make whole pairs for --split.  0, or
 * -1 with a message in err. */
int vf_session_traffic_check(struct vf_session *ses, char *err, size_t errlen);
/* (Re)builds the streams over the current ports and starts forwarding
 * (-EINVAL, said on stderr, when vf_session_traffic_check fails). */
int vf_session_fwd_start(struct vf_session *ses, unsigned int tx_first_bursts);
/* --warmup: forwards for sec seconds at rate (0: unthrottled; no --count),
 * stops with the drain and clears every figure (streams, measure, ports),
 * so what follows starts from zero.  0, -EINTR on a signal, or the error
 * of the start. */
int vf_session_warmup(struct vf_session *ses, double sec, uint64_t rate);
/* Waits up to timeout_s for every port's link; true if all are up (false
 * also on a signal). */
bool vf_session_wait_links(double timeout_s);

/* Writes one finished document (text, or one JSON line) to stdout and the
 * stats file. */
void vf_session_emit(struct vf_session *ses, struct vf_out *o);

/* Held by shell commands and by the Prometheus writer: ports and streams
 * do not change under a render. */
void vf_session_lock(void);
void vf_session_unlock(void);
/* The lock if it is free now (true), for the control thread, which must
 * not wait on a command that may wait on it. */
bool vf_session_trylock(void);

/* The Prometheus writer thread (every --stats-period, default 1 s), when
 * --prom-file is set; stop joins it and writes the file once more. */
void vf_session_prom_start(struct vf_session *ses);
void vf_session_prom_stop(struct vf_session *ses);

/* rates.c: the load of a measuring run: asked (fwd.rate_pps, or a
 * burst:N/T pattern's exact N/T; 0: unthrottled), what
 * the ports took (frames sent / effective), over how long, and whether it
 * fell short of the asked load by more than 1 % and two bursts per stream
 * (tester-limited; only judged for runs that end by time or signal, as a
 * --count run idles once its frames are out). */
struct vf_session_load {
	double intended_pps, offered_pps, effective_s;
	bool limited;
};
void vf_session_load(const struct vf_session *ses, struct vf_session_load *l);

/* rates.c: the shortest frame the mode sends (the measuring mode's stamp
 * needs its minimum frame; every other mode: 0). */
unsigned int vf_session_min_len(const struct vf_session *ses);
/* rates.c: the mean frame length the generators send (bytes without FCS:
 * of the --txpkts mix, each length at least vf_session_min_len; replay:
 * the capture's mean frame). */
double vf_session_frame_len(const struct vf_session *ses);
/* rates.c: those frames for a report: "64-byte", "imix 64:7,570:4,1518:1,
 * mean 353.8-byte". */
void vf_session_frames_describe(const struct vf_session *ses, char *buf, size_t len);

/* Turns the rates given in bit/s or percent into packets per second with
 * the frame length in use and, for a percentage, the ports' link speed:
 * the percentage is of each sending port's link (every port sends; the
 * slowest one counts, the rate is shared evenly).  A burst:N/T pattern
 * sets the rate itself.  0, or -1 with a message in err (a port that does
 * not report its speed, a rate outside 1 pps .. 1 Gpps). */
int vf_session_resolve_rates(struct vf_session *ses, char *err, size_t errlen);
/* The load of a measuring run in packets/s, L2 and L1 bit/s (asked and
 * offered), as text or JSON (one description of the fields, vf_out.h). */
void vf_session_report_load(const struct vf_session *ses, struct vf_out *o);

/* report.c: one statistics document (ports and streams; text: a period
 * line unless final), to stdout and the stats file. */
void vf_session_print_stats(struct vf_session *ses, bool final);

#endif
