/* Where command lines come from: the libedit prompt (history, completion)
 * or a piped stdin; and the periodic stats printer that runs beside them. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <editline/readline.h>

#include "vf_session.h"
#include "vf_spec_complete.h"
#include "vf_fwd.h"
#include "vf_port.h"
#include "vf_prom.h"
#include "vf_shell_priv.h"

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

void vf__shell_output_lock(void) { pthread_mutex_lock(&out_lock); }
void vf__shell_output_unlock(void) { pthread_mutex_unlock(&out_lock); }

/* ---- completion ---- */

#define MAX_CANDS 512
static char *cands[MAX_CANDS];
static int nb_cands, cand_next;
static bool want_files;

static void add_cand(const char *s, void *unused)
{
	for (int i = 0; i < nb_cands; i++)
		if (!strcmp(cands[i], s))
			return;
	if (nb_cands < MAX_CANDS)
		cands[nb_cands++] = strdup(s);
}

static void add_if_prefix(const char *cur, const char *s)
{
	if (!strncmp(s, cur, strlen(cur)))
		add_cand(s, NULL);
}

static void slot_cands(const char *slot, const char *cur)
{
	char alt[64], num[16];

	for (const char *p = slot; *p;) {
		size_t n = strcspn(p, "|");
		snprintf(alt, sizeof(alt), "%.*s", (int)n, p);
		if (!strcmp(alt, "PORT")) {
			for (uint16_t i = 0; i < vf_port_count(); i++)
				if (vf_port_get(i)) {
					snprintf(num, sizeof(num), "%u", i);
					add_if_prefix(cur, num);
				}
		} else if (!strcmp(alt, "MODE")) {
			for (unsigned int i = 0; vf_fwd_mode_at(i); i++)
				add_if_prefix(cur, vf_fwd_mode_at(i)->name);
		} else if (!strcmp(alt, "SPEC")) {
			vf_spec_complete(cur, add_cand, NULL);
		} else if (!strcmp(alt, "FILE")) {
			want_files = true;
		} else if (alt[0] && !(alt[0] >= 'A' && alt[0] <= 'Z')) {
			add_if_prefix(cur, alt);
		}
		p += n;
		if (*p)
			p++;
	}
}

/* Candidates for the word `cur` that follows the words in line[0..start). */
void vf__shell_candidates(const char *line, int start, const char *cur)
{
	char *copy = strndup(line, (size_t)start), *argv[32];
	int argc = copy ? vf__shell_split(copy, argv, 32) : -1;

	for (int i = 0; i < nb_cands; i++)
		free(cands[i]);
	nb_cands = 0;
	want_files = false;
	if (argc < 0) {
		free(copy);
		return;
	}
	for (unsigned int i = 0; vf__shell_cmd_at(i); i++) {
		const struct vf_cmd *c = vf__shell_cmd_at(i);
		int n = vf__cmd_nwords(c), k;
		char w[64], slot[128];
		bool opt;

		for (k = 0; k < argc && k < n; k++)
			if (!vf__cmd_word(c, k, w, sizeof(w)) || strcmp(w, argv[k]))
				break;
		if (k < argc && k < n)
			continue;
		if (argc < n) {
			vf__cmd_word(c, argc, w, sizeof(w));
			add_if_prefix(cur, w);
		} else if (vf__cmd_slot(c, argc - n, slot, sizeof(slot), &opt)) {
			slot_cands(slot, cur);
		}
	}
	free(copy);
}

static char *gen(const char *text, int state)
{
	if (state == 0)
		cand_next = 0;
	while (cand_next < nb_cands)
		return strdup(cands[cand_next++]);
	return NULL;
}

static char **complete(const char *text, int start, int end)
{
	vf__shell_candidates(rl_line_buffer, start, text);
	rl_attempted_completion_over = 1;
	if (want_files && nb_cands == 0) {
		rl_attempted_completion_over = 0;
		return NULL;	/* fall back to file names */
	}
	return rl_completion_matches(text, gen);
}

/* ---- history ---- */

static char hist_path[512];

/* A line that carries a secret (port attach memif,...,secret=...) stays
 * out of history: the history file outlives the session and is read back
 * by the next one.  secret-file= names a file and is kept. */
static bool history_keeps(const char *line)
{
	return strcasestr(line, "secret=") == NULL;
}

/* Drops the secret lines a history file may hold from before they were
 * kept out (rewritten through a temporary file, mode 0600). */
static void history_scrub(const char *path)
{
	char tmp[sizeof(hist_path) + 8], *line = NULL;
	size_t cap = 0;
	bool dropped = false;
	FILE *in = fopen(path, "r"), *out;
	int fd;

	if (in == NULL)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (out == NULL) {
		if (fd >= 0)
			close(fd);
		fclose(in);
		return;
	}
	/* whole lines, however long: a secret= is never split */
	while (getline(&line, &cap, in) > 0) {
		if (history_keeps(line))
			fputs(line, out);
		else
			dropped = true;
	}
	free(line);
	fclose(in);
	if (fclose(out) == 0 && dropped)
		rename(tmp, path);
	else
		unlink(tmp);
}

static void history_open(const char *tool)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char dir[400];

	if (xdg && *xdg)
		snprintf(dir, sizeof(dir), "%s/vfwd", xdg);
	else if (home && *home)
		snprintf(dir, sizeof(dir), "%s/.local/state/vfwd", home);
	else
		return;
	/* mkdir -p, one level at a time */
	for (char *p = dir + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0700);
			*p = '/';
		}
	mkdir(dir, 0700);
	snprintf(hist_path, sizeof(hist_path), "%s/%s_history", dir, tool);
	history_scrub(hist_path);
	using_history();
	stifle_history(1000);
	read_history(hist_path);
}


/* ---- periodic stats beside the prompt ---- */

static pthread_t stats_thread;
static volatile bool stats_stop;

static void *stats_main(void *arg)
{
	struct vf_session *ses = arg;
	struct timespec ts = { (time_t)ses->stats_period,
			       (long)((ses->stats_period - (double)(time_t)ses->stats_period) * 1e9) };

	while (!stats_stop) {
		nanosleep(&ts, NULL);
		if (stats_stop)
			break;
		if (vf_fwd_running()) {
			vf__shell_output_lock();
			vf_session_print_stats(ses, false);
			vf__shell_output_unlock();
		}
	}
	return NULL;
}

/* ---- the loops ---- */

static int run_prompt(struct vf_session *ses)
{
	char prompt[64];

	snprintf(prompt, sizeof(prompt), "%s> ", ses->tool);
	history_open(ses->tool);
	rl_readline_name = ses->tool;
	rl_attempted_completion_function = complete;
	rl_basic_word_break_characters = " \t";
	while (!__atomic_load_n(&ses->quit, __ATOMIC_RELAXED) && !vf_session_signalled()) {
		char *line = readline(prompt);

		if (!line) {		/* EOF (Ctrl-D) */
			printf("\n");
			break;
		}
		if (*line && history_keeps(line)) {
			add_history(line);
			if (hist_path[0])
				write_history(hist_path);
		}
		if (*line)
			vf_shell_exec(ses, line);
		free(line);
	}
	return 0;
}

static int run_piped(struct vf_session *ses)
{
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, status = 0;

	while (!__atomic_load_n(&ses->quit, __ATOMIC_RELAXED) && !vf_session_signalled()) {
		errno = 0;
		if (getline(&line, &cap, stdin) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		lineno++;
		if (vf_shell_exec(ses, line) && ses->stop_on_error) {
			fprintf(stderr, "stdin:%d: command failed: %s", lineno, line);
			status = 1;
			break;
		}
	}
	free(line);
	return status;
}

int vf_shell_run(struct vf_session *ses)
{
	int status = 0;

	vf__shell_init(ses);
	if (ses->cmdline_file[0] && vf_shell_run_file(ses, ses->cmdline_file) && ses->stop_on_error)
		return 1;
	if (ses->auto_start && !vf_fwd_running() && !__atomic_load_n(&ses->quit, __ATOMIC_RELAXED)) {
		int ret;

		vf_session_lock();	/* a control socket client may be starting too */
		ret = vf_session_fwd_start(ses, ses->tx_first ? 1 : 0);
		vf_session_unlock();
		if (ret)
			vf_cmd_error("cannot start forwarding: %s", strerror(-ret));
	}
	vf_session_prom_start(ses);
	if (ses->stats_period > 0) {
		stats_stop = false;
		pthread_create(&stats_thread, NULL, stats_main, ses);
	}
	if (!__atomic_load_n(&ses->quit, __ATOMIC_RELAXED))
		status = ses->cmd_input ? run_piped(ses) : run_prompt(ses);
	if (ses->stats_period > 0) {
		stats_stop = true;
		pthread_join(stats_thread, NULL);
	}
	vf_session_lock();
	vf_fwd_stop();
	vf_session_unlock();
	vf_session_prom_stop(ses);
	for (int i = 0; i < nb_cands; i++)
		free(cands[i]);
	nb_cands = 0;
	return status;
}
