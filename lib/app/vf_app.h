/* The common main of the four tools: options, runtime, ports, engine, stats
 * output, signals.  A tool is a struct vf_tool: its name, defaults and extra
 * options; everything else is shared. */
#ifndef VF_APP_H
#define VF_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vf_parse.h"
#include "vf_peercred.h"
#include "vf_session.h"

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
	/* Instead of set: the option is the devarg of this name on the port(s)
	 * the tool builds; ",KEY=VALUE" goes once into app->port_kv (a flag
	 * gives "yes").  check, if any, says what a bad value should be. */
	const char *devarg;
	int (*check)(const char *arg, char *expect, size_t len);
};

/* Rows of a tool's option table for the socket access devargs of its ports
 * (vf_peercred.h); the four help texts say which socket each applies to. */
#define VF_OPTS_ACCESS(mode_help, group_help, uid_help, gid_help)			\
	{ "socket-mode", 0, "OCTAL", mode_help, VF_COMP_NONE, NULL, NULL,		\
	  "socket-mode", vf_access_check_mode },					\
	{ "socket-group", 0, "GROUP", group_help, VF_COMP_NONE, NULL, NULL,		\
	  "socket-group", vf_access_check_group },					\
	{ "allow-uid", 0, "LIST", uid_help, VF_COMP_NONE, NULL, NULL,			\
	  "allow-uid", vf_access_check_uids },						\
	{ "allow-gid", 0, "LIST", gid_help, VF_COMP_NONE, NULL, NULL,			\
	  "allow-gid", vf_access_check_gids }

struct vf_tool {
	const char *name;
	const char *summary;		/* one line for --help */
	const char *default_mode;	/* NULL: "io" */
	/* --rx-mode when not given (NULL: poll): the daemons sleep while
	 * idle, the tools that measure poll */
	const char *default_rx_mode;
	uint16_t default_null_ports;	/* ports created when none given */
	const struct vf_opt *opts;	/* tool-specific options, NULL-terminated */
	/* After options are parsed: add the tool's ports, adjust defaults. */
	int (*finish)(struct vf_app *app, char *err, size_t errlen);
	/* Optional: register the tool's shell commands. */
	void (*shell_init)(struct vf_session *ses);
	/* Control socket served without --ctl (NULL: none); when it cannot
	 * be had, the tool warns and runs without. */
	const char *default_ctl;
	/* Optional: once the ports are open, before the control socket is
	 * served (vhostd --takeover).  Non-zero: the run ends with status 1. */
	int (*before_service)(struct vf_app *app);
};

/* The main's own state: the tool, what only the command line sets (the
 * port specs, the runtime's lcores and EAL arguments), and the session it
 * fills and runs (lib/session). */
struct vf_app {
	struct vf_session ses;
	const struct vf_tool *tool;
	/* ports */
	char *specs[VF_MAX_SPECS];
	unsigned int nb_specs;
	/* runtime */
	char lcores[128];
	int main_lcore;			/* -1: first of the list */
	char eal_args[1024];
	bool mode_set;			/* --fwd given */
	const char *search_opt;		/* the first search-only option given, or NULL */
	bool check_given;		/* --check given: what measure's receiver checks */
	/* ",KEY=VALUE..." of the devarg options (vf_opt.devarg), for finish() */
	char port_kv[1024];
	/* control socket (--ctl, --ctl-mode, --ctl-group; service.c) */
	char ctl_path[108];		/* "" and ctl_given: --ctl none */
	bool ctl_given;
	/* The control socket's path may be in use until before_service
	 * (vhostd --takeover: the running daemon's); not checked at start. */
	bool ctl_later;
	struct vf_access ctl_access;	/* mode and group given, if any */
	char event_file[512];		/* --event-file, "": none */
};

int vf_app_main(const struct vf_tool *tool, int argc, char **argv);

/* For tools' option setters. */
int vf_app_add_spec(struct vf_app *app, const char *spec, char *err, size_t errlen);

/* Appends ",KEY=VALUE" of a devarg option to app->port_kv: a value without
 * ',' or '=', that passes o->check, each key once.  0, or -1 with a message
 * (a secret is never echoed). */
int vf_app_port_kv(struct vf_app *app, const struct vf_opt *o, const char *arg, char *err,
		   size_t errlen);

/* The common options (NULL-terminated), for help, completion and tests. */
extern const struct vf_opt vf_common_opts[];

#endif
