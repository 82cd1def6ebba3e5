/* Internal to lib/: the shell's pieces talk through these. */
#ifndef VF_SHELL_PRIV_H
#define VF_SHELL_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "vf_shell.h"

const struct vf_cmd *vf__shell_cmd_at(unsigned int idx);
int vf__cmd_nwords(const struct vf_cmd *c);
bool vf__cmd_word(const struct vf_cmd *c, int i, char *buf, size_t len);
bool vf__cmd_slot(const struct vf_cmd *c, int i, char *buf, size_t len, bool *opt);
int vf__shell_split(char *line, char **argv, int max);
void vf__shell_output_lock(void);
void vf__shell_output_unlock(void);
/* shell.c: the command a line's first words name (nwords: how many), and
 * the check of the rest against its argument slots (json: a trailing
 * "json" asked for JSON); the shell's own commands (help, quit). */
const struct vf_cmd *vf__shell_match(int argc, char **argv, int *nwords);
int vf__shell_check_args(const struct vf_cmd *c, int argc, char **argv, bool *json);
extern const struct vf_cmd vf__shell_core_cmds[];
/* shell.c: where this thread's command output and errors go: stdout and
 * stderr, or a control socket client's reply while vf_shell_exec_to runs
 * (NULL, NULL: back to stdout and stderr). */
void vf__shell_set_streams(FILE *out, FILE *err);
FILE *vf__shell_out_stream(void);
FILE *vf__shell_err_stream(void);
/* exec.c: registers the families once. */
struct vf_session;
void vf__shell_init(struct vf_session *ses);
/* cmds_fwd.c, cmds_port.c */
void vf__shell_register_fwd(void);
void vf__shell_register_port(void);

#endif
