#include "vf_complete.h"

#include <stdio.h>
#include <string.h>

#include "vf_app.h"
#include "vf_spec_complete.h"

static void print_cand(const char *s, void *arg)
{
	(void)arg;
	printf("%s\n", s);
}

static void cand(const char *cur, const char *s)
{
	if (!strncmp(s, cur, strlen(cur)))
		print_cand(s, NULL);
}

static const struct vf_opt *lookup(const struct vf_tool *tool, const char *w)
{
	const struct vf_opt *tables[2] = { tool->opts, vf_common_opts };

	for (int t = 0; t < 2; t++)
		for (const struct vf_opt *o = tables[t]; o && o->lname; o++) {
			if (w[0] == '-' && w[1] == '-' && !strcmp(w + 2, o->lname))
				return o;
			if (w[0] == '-' && w[1] == o->sname && !w[2] && o->sname)
				return o;
		}
	return NULL;
}

int vf_complete(const struct vf_tool *tool, int nwords, char **words)
{
	const char *cur = nwords > 0 ? words[nwords - 1] : "";
	const struct vf_opt *prev = nwords > 1 ? lookup(tool, words[nwords - 2]) : NULL;
	const struct vf_opt *tables[2] = { tool->opts, vf_common_opts };
	char buf[128];

	if (prev && prev->arg) {
		switch (prev->complete) {
		case VF_COMP_MODE:
			for (unsigned int i = 0; vf_fwd_mode_at(i); i++)
				cand(cur, vf_fwd_mode_at(i)->name);
			break;
		case VF_COMP_PORT:
			vf_spec_complete(cur, print_cand, NULL);
			break;
		case VF_COMP_FILE:
			printf("__files__\n");
			break;
		case VF_COMP_CHOICES:
			vf_spec_complete_choices(cur, "", prev->choices, print_cand, NULL);
			break;
		case VF_COMP_NONE:
			break;
		}
		return 0;
	}
	if (cur[0] == '-') {
		for (int t = 0; t < 2; t++)
			for (const struct vf_opt *o = tables[t]; o && o->lname; o++) {
				snprintf(buf, sizeof(buf), "--%s", o->lname);
				cand(cur, buf);
			}
		cand(cur, "--help");
		cand(cur, "--version");
	}
	return 0;
}
