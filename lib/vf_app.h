/* The common main of the four tools: options, runtime, ports, engine, stats
 * output, signals.  A tool is a struct vf_tool: its name, defaults and extra
 * options; everything else is shared. */
#ifndef VF_APP_H
#define VF_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vf_fwd.h"
#include "vf_meas.h"

#define VF_MAX_SPECS VF_MAX_PORTS

struct vf_app;

enum vf_complete {
	VF_COMP_NONE,		/* free text / number */
	VF_COMP_MODE,		/* forwarding mode names */
	VF_COMP_PORT,		/* driver names, then devargs keys */
	VF_COMP_FILE,
	VF_COMP_CHOICES,	/* from .choices, '|'-separated */
};

struct vf_opt {
	const char *lname;	/* long name without "--" */
	int sname;		/* short letter or 0 */
	const char *arg;	/* argument name for help, NULL: flag */
	const char *help;
	enum vf_complete complete;
	const char *choices;
	/* Returns 0, or -1 with a message in err (exit status 2). */
	int (*set)(struct vf_app *app, const char *arg, char *err, size_t errlen);
};

struct vf_tool {
	const char *name;
	const char *summary;		/* one line for --help */
	const char *default_mode;	/* NULL: "io" */
	uint16_t default_null_ports;	/* ports created when none given */
	const struct vf_opt *opts;	/* tool-specific options, NULL-terminated */
	/* After options are parsed: add the tool's ports, adjust defaults. */
	int (*finish)(struct vf_app *app, char *err, size_t errlen);
	/* Optional: register the tool's shell commands. */
	void (*shell_init)(struct vf_app *app);
};

struct vf_app {
	const struct vf_tool *tool;
	/* ports */
	char *specs[VF_MAX_SPECS];
	unsigned int nb_specs;
	/* runtime */
	char lcores[128];
	int main_lcore;			/* -1: first of the list */
	char eal_args[1024];
	/* engine */
	struct vf_fwd_cfg fwd;
	bool mode_set;
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
	/* measuring */
	char hist_file[512];
	struct vf_meas_limits limits;
	struct vf_search_cfg {
		bool on;
		double pdr_loss;	/* default 0.005 */
		uint64_t min_rate, max_rate;	/* pps, all streams; max 0: measured */
		double trial;		/* seconds per trial */
		double precision;	/* relative width at which the search stops */
	} search;
};

int vf_app_main(const struct vf_tool *tool, int argc, char **argv);

/* For tools' option setters. */
int vf_app_add_spec(struct vf_app *app, const char *spec, char *err, size_t errlen);
int vf_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int vf_parse_double(const char *s, double min, double max, double *out);

/* The common options (NULL-terminated), for help, completion and tests. */
extern const struct vf_opt vf_common_opts[];

/* Creates, configures and starts a port with the app's queue settings.
 * Returns its id, or -1 with a message in err. */
int vf_app_port_add(struct vf_app *app, const char *spec, char *err, size_t errlen);
/* (Re)builds the streams over the current ports and starts forwarding. */
int vf_app_fwd_start(struct vf_app *app, unsigned int tx_first_bursts);

/* The SIGINT/SIGTERM received, or 0. */
int vf_app_signalled(void);

/* Prints one stats document (ports and streams) to stdout and the stats file. */
void vf_app_print_stats(struct vf_app *app, bool final);
/* Writes one finished document (text or one JSON line) to stdout and the
 * stats file. */
void vf_app_emit(struct vf_app *app, struct vf_out *o);
/* Waits up to timeout_s for every port's link; returns true if all are up. */
bool vf_app_wait_links(double timeout_s);

/* The throughput search (--search): trials of the measure mode; prints
 * progress and the result.  Returns the exit status. */
int vf_search_run(struct vf_app *app);

#endif
