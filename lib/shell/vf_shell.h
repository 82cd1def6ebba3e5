/* The command shell: libedit prompt, scripts (--cmdline-file) and piped
 * stdin all run the same command tables.
 *
 * A command family is a NULL-terminated table of struct vf_cmd; lib/ brings
 * the core families (fwd, port) and a tool or a driver adds its own with
 * vf_shell_register() without touching the shell.  Words are matched
 * exactly: no prefix guessing; completion does the typing. */
#ifndef VF_SHELL_H
#define VF_SHELL_H

#include <stdbool.h>
#include <stdio.h>

#include "vf_out.h"

struct vf_session;

struct vf_cmd_ctx {
	struct vf_session *ses;
	struct vf_out *out;	/* text or JSON (a trailing "json" word) */
	bool json;
};

/* Argument syntax of a command, for help, completion and checking arity:
 * blank-separated slots; in a slot, '|' separates alternatives, lower case
 * is a literal word, upper case a value: N (number), PORT (port id), MODE,
 * MAC, SPEC (port spec), FILE, WORD; a slot in [] is optional.
 * "all|PORT [json]" means: "all" or a port id, then optionally "json". */
struct vf_cmd {
	const char *words;	/* fixed words: "show port stats" */
	const char *args;	/* slots, see above; "" for none */
	const char *help;	/* one line */
	/* argv: the words after the fixed ones, "json" removed when the
	 * command takes it.  Returns 0, or -1 after printing an error on
	 * stderr. */
	int (*fn)(struct vf_cmd_ctx *c, int argc, char **argv);
};

/* Adds a family; families are searched in registration order. */
void vf_shell_register(const struct vf_cmd *family);

/* Runs one command line; returns 0, or -1 (unknown command, bad
 * arguments or a failing command; the message is on stderr). */
int vf_shell_exec(struct vf_session *ses, const char *line);
/* The same with the command's output going to out and its error messages
 * to err instead of stdout and stderr (on this thread only: the control
 * socket runs client lines beside the prompt). */
int vf_shell_exec_to(struct vf_session *ses, const char *line, FILE *out, FILE *err);
/* Runs every line of path; returns 0 or -1 at the first failing line when
 * --stop-on-error is set (the message names the file and line). */
int vf_shell_run_file(struct vf_session *ses, const char *path);
/* The prompt (tty with -i) or one command per line (piped stdin), until
 * quit, EOF or a signal.  Returns the exit status. */
int vf_shell_run(struct vf_session *ses);

/* Helpers for command functions. */
int vf_cmd_port_arg(const char *s, bool allow_all, int *port);	/* -2: all */
int vf_cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
