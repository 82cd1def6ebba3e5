/* Internal to lib/: the shell's pieces talk through these. */
#ifndef VF_SHELL_PRIV_H
#define VF_SHELL_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "vf_shell.h"

const struct vf_cmd *vf__shell_cmd_at(unsigned int idx);
int vf__cmd_nwords(const struct vf_cmd *c);
bool vf__cmd_word(const struct vf_cmd *c, int i, char *buf, size_t len);
bool vf__cmd_slot(const struct vf_cmd *c, int i, char *buf, size_t len, bool *opt);
int vf__shell_split(char *line, char **argv, int max);
void vf__shell_output_lock(void);
void vf__shell_output_unlock(void);
struct vf_app;
void vf__shell_init(struct vf_app *app);
void vf__shell_register_fwd(void);
void vf__shell_register_port(void);

#endif
