/* The shell core: command registry, exact matching, argument checking,
 * help and quit (exec.c runs lines, shell_loop.c reads them). */
#include "vf_shell.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vf_session.h"
#include "vf_fwd.h"
#include "vf_log.h"
#include "vf_parse.h"
#include "vf_prom.h"
#include "vf_shell_priv.h"

#define MAX_FAMILIES 16
#define MAX_ARGS 32

static const struct vf_cmd *families[MAX_FAMILIES];
static unsigned int nb_families;

void vf_shell_register(const struct vf_cmd *family)
{
	for (unsigned int i = 0; i < nb_families; i++)
		if (families[i] == family)
			return;
	if (nb_families < MAX_FAMILIES)
		families[nb_families++] = family;
}

const struct vf_cmd *vf__shell_cmd_at(unsigned int idx)
{
	for (unsigned int f = 0; f < nb_families; f++)
		for (const struct vf_cmd *c = families[f]; c->words; c++)
			if (idx-- == 0)
				return c;
	return NULL;
}

/* Set while vf_shell_exec_to runs on this thread; NULL: stdout, stderr. */
static __thread FILE *reply_out, *reply_err;

void vf__shell_set_streams(FILE *out, FILE *err)
{
	reply_out = out;
	reply_err = err;
}

FILE *vf__shell_out_stream(void)
{
	return reply_out ? reply_out : stdout;
}

FILE *vf__shell_err_stream(void)
{
	return reply_err ? reply_err : stderr;
}

int vf_cmd_error(const char *fmt, ...)
{
	va_list ap;

	FILE *f = vf__shell_err_stream();

	va_start(ap, fmt);
	fputs("error: ", f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	va_end(ap);
	return -1;
}

int vf_cmd_port_arg(const char *s, bool allow_all, int *port)
{
	uint64_t v;

	if (allow_all && !strcmp(s, "all")) {
		*port = -2;
		return 0;
	}
	if (vf_parse_u64(s, 0, VF_MAX_PORTS - 1, &v) || !vf_port_get((uint16_t)v))
		return vf_cmd_error("no port '%s'", s);
	*port = (int)v;
	return 0;
}

int vf__shell_split(char *line, char **argv, int max)
{
	int argc = 0;
	char *save = NULL;

	/* strtok_r: the prompt and the control socket's runner split lines
	 * on two threads */
	for (char *p = strtok_r(line, " \t\r\n", &save); p; p = strtok_r(NULL, " \t\r\n", &save)) {
		if (argc == max)
			return -1;
		argv[argc++] = p;
	}
	return argc;
}

int vf__cmd_nwords(const struct vf_cmd *c)
{
	int n = 0;

	for (const char *p = c->words; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		n++;
		while (*p && *p != ' ')
			p++;
	}
	return n;
}

/* The i-th fixed word of c into buf. */
bool vf__cmd_word(const struct vf_cmd *c, int i, char *buf, size_t len)
{
	const char *p = c->words;

	for (int k = 0; *p; k++) {
		size_t n;

		while (*p == ' ')
			p++;
		n = strcspn(p, " ");
		if (k == i) {
			snprintf(buf, len, "%.*s", (int)n, p);
			return n > 0;
		}
		p += n;
	}
	return false;
}

/* The i-th slot of c's args into buf (brackets removed); *opt says []. */
bool vf__cmd_slot(const struct vf_cmd *c, int i, char *buf, size_t len, bool *opt)
{
	const char *p = c->args ? c->args : "";

	for (int k = 0; *p; k++) {
		size_t n;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		n = strcspn(p, " ");
		if (k == i) {
			*opt = p[0] == '[';
			if (*opt)
				snprintf(buf, len, "%.*s", (int)(n - 2), p + 1);
			else
				snprintf(buf, len, "%.*s", (int)n, p);
			return true;
		}
		p += n;
	}
	return false;
}

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static bool is_mac(const char *s)
{
	unsigned int b[6];
	char t;

	return strlen(s) == 17 &&
	       sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &t) == 6;
}

/* Does arg fit one alternative of slot? */
static bool slot_accepts(const char *slot, const char *arg)
{
	char alt[64];

	for (const char *p = slot; *p;) {
		size_t n = strcspn(p, "|");
		snprintf(alt, sizeof(alt), "%.*s", (int)n, p);
		if (!strcmp(alt, "N") || !strcmp(alt, "PORT")) {
			if (is_number(arg))
				return true;
		} else if (!strcmp(alt, "MODE")) {
			if (vf_fwd_mode_find(arg))
				return true;
		} else if (!strcmp(alt, "MAC")) {
			if (is_mac(arg))
				return true;
		} else if (!strcmp(alt, "SPEC") || !strcmp(alt, "FILE") || !strcmp(alt, "WORD") ||
			   !strcmp(alt, "PPS")) {
			/* PPS: the command parses the rate and says what it takes */
			return true;
		} else if (!strcmp(alt, arg)) {
			return true;
		}
		p += n;
		if (*p)
			p++;
	}
	return false;
}

const struct vf_cmd *vf__shell_match(int argc, char **argv, int *nwords)
{
	const struct vf_cmd *best = NULL;
	int best_n = 0;

	for (unsigned int i = 0; vf__shell_cmd_at(i); i++) {
		const struct vf_cmd *c = vf__shell_cmd_at(i);
		int n = vf__cmd_nwords(c), k;
		char w[64];

		if (n > argc || n <= best_n)
			continue;
		for (k = 0; k < n; k++)
			if (!vf__cmd_word(c, k, w, sizeof(w)) || strcmp(w, argv[k]))
				break;
		if (k == n) {
			best = c;
			best_n = n;
		}
	}
	*nwords = best_n;
	return best;
}

static void usage_of(const struct vf_cmd *c, FILE *f)
{
	fprintf(f, "usage: %s%s%s\n", c->words, c->args && *c->args ? " " : "",
		c->args ? c->args : "");
}

int vf__shell_check_args(const struct vf_cmd *c, int argc, char **argv, bool *json)
{
	char slot[128];
	bool opt;
	int nslots = 0, nreq = 0;

	while (vf__cmd_slot(c, nslots, slot, sizeof(slot), &opt)) {
		if (!opt)
			nreq++;
		nslots++;
	}
	*json = false;
	/* a trailing "json" when the command offers it */
	if (argc > 0 && !strcmp(argv[argc - 1], "json") && c->args && strstr(c->args, "json"))
		*json = true;
	if (argc < nreq || argc > nslots) {
		fprintf(vf__shell_err_stream(), "error: wrong number of arguments for '%s'\n", c->words);
		usage_of(c, vf__shell_err_stream());
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		vf__cmd_slot(c, i, slot, sizeof(slot), &opt);
		if (!slot_accepts(slot, argv[i])) {
			fprintf(vf__shell_err_stream(), "error: bad argument '%s' for '%s': expected %s\n",
				argv[i], c->words, slot);
			usage_of(c, vf__shell_err_stream());
			return -1;
		}
	}
	return 0;
}

/* "help" and "help WORDS...": the commands whose words start with WORDS. */
static int cmd_help(struct vf_cmd_ctx *c, int argc, char **argv)
{
	int shown = 0;

	vf_out_obj_begin(c->out, NULL);
	vf_out_arr_begin(c->out, "commands");
	for (unsigned int i = 0; vf__shell_cmd_at(i); i++) {
		const struct vf_cmd *cmd = vf__shell_cmd_at(i);
		char w[64];
		int k;

		for (k = 0; k < argc; k++)
			if (!vf__cmd_word(cmd, k, w, sizeof(w)) || strcmp(w, argv[k]))
				break;
		if (k < argc)
			continue;
		shown++;
		if (c->json) {
			vf_out_obj_begin(c->out, NULL);
			vf_out_str(c->out, "command", cmd->words);
			vf_out_str(c->out, "args", cmd->args ? cmd->args : "");
			vf_out_str(c->out, "help", cmd->help);
			vf_out_obj_end(c->out);
		} else {
			char left[128];
			snprintf(left, sizeof(left), "%s%s%s", cmd->words,
				 cmd->args && *cmd->args ? " " : "", cmd->args ? cmd->args : "");
			vf_out_title(c->out, "%-40s %s", left, cmd->help);
		}
	}
	vf_out_arr_end(c->out);
	vf_out_obj_end(c->out);
	if (!shown)
		return vf_cmd_error("no command starts with '%s'", argc ? argv[0] : "");
	return 0;
}

static int cmd_quit(struct vf_cmd_ctx *c, int argc, char **argv)
{
	/* read by the main thread's loops; the control socket's runner may
	 * be the writer */
	__atomic_store_n(&c->ses->quit, true, __ATOMIC_RELAXED);
	return 0;
}

/* Only the control socket streams (ctlsock.c takes the line before it
 * gets here); at the prompt or in a script it would never return. */
static int cmd_monitor(struct vf_cmd_ctx *c, int argc, char **argv)
{
	return vf_cmd_error("monitor streams events through the control socket: "
			    "vfctl -s PATH monitor (or --event-file FILE)");
}

const struct vf_cmd vf__shell_core_cmds[] = {
	{ "help", "[WORD] [WORD] [WORD] [json]", "list commands, or those starting with the words given", cmd_help },
	{ "quit", "", "stop forwarding and exit", cmd_quit },
	{ "monitor", "", "stream events as JSON lines (control socket only: vfctl -s PATH monitor)",
	  cmd_monitor },
	{ NULL },
};
