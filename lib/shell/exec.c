/* Running command lines: one line (the prompt, piped stdin, the control
 * socket), or a script file; the first line registers the command
 * families (the shell's own, fwd, port, then the tool's). */
#include "vf_shell.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vf_session.h"
#include "vf_shell_priv.h"

#define MAX_ARGS 32

void vf__shell_init(struct vf_session *ses)
{
	static bool done;

	if (done)
		return;
	done = true;
	vf_shell_register(vf__shell_core_cmds);
	vf__shell_register_fwd();
	vf__shell_register_port();
	if (ses->shell_init)
		ses->shell_init(ses);
}

int vf_shell_exec(struct vf_session *ses, const char *line)
{
	char *copy = strndup(line, strcspn(line, "\r\n")), *argv[MAX_ARGS];
	const struct vf_cmd *c;
	struct vf_cmd_ctx ctx = { .ses = ses };
	int argc, nw, ret;
	bool json;
	FILE *out;

	if (!copy)
		return -1;
	vf__shell_init(ses);
	argc = vf__shell_split(copy, argv, MAX_ARGS);
	if (argc <= 0 || argv[0][0] == '#') {
		free(copy);
		return argc < 0 ? vf_cmd_error("too many words") : 0;
	}
	c = vf__shell_match(argc, argv, &nw);
	if (!c) {
		ret = vf_cmd_error("unknown command '%.*s' (try 'help')",
				   (int)strcspn(line, "\r\n"), line);
		free(copy);
		return ret;
	}
	if (vf__shell_check_args(c, argc - nw, argv + nw, &json)) {
		free(copy);
		return -1;
	}
	ctx.json = json;
	ctx.out = vf_out_new(json);
	if (!ctx.out) {
		free(copy);
		return -1;
	}
	vf_session_lock();		/* ports and streams stay put under a metrics render */
	ret = c->fn(&ctx, argc - nw - (json ? 1 : 0), argv + nw);
	vf_session_unlock();
	out = vf__shell_out_stream();
	vf__shell_output_lock();
	if (ret == 0) {
		char *s = vf_out_take(ctx.out);
		if (s && *s) {
			fputs(s, out);
			if (json)
				fputc('\n', out);
		}
		free(s);
	}
	fflush(out);
	vf__shell_output_unlock();
	vf_out_free(ctx.out);
	free(copy);
	return ret;
}

int vf_shell_exec_to(struct vf_session *ses, const char *line, FILE *out, FILE *err)
{
	int ret;

	vf__shell_set_streams(out, err);
	ret = vf_shell_exec(ses, line);
	vf__shell_set_streams(NULL, NULL);
	return ret;
}

int vf_shell_run_file(struct vf_session *ses, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, ret = 0;

	if (!f)
		return vf_cmd_error("cannot open command file '%s': %s", path, strerror(errno));
	while (!__atomic_load_n(&ses->quit, __ATOMIC_RELAXED) && getline(&line, &cap, f) > 0) {
		lineno++;
		if (vf_shell_exec(ses, line)) {
			fprintf(stderr, "%s:%d: command failed: %s", path, lineno, line);
			if (!strchr(line, '\n'))
				fputc('\n', stderr);
			ret = -1;
			if (ses->stop_on_error)
				break;
		}
	}
	free(line);
	fclose(f);
	return ret;
}
