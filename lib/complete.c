#include "vf_complete.h"

#include <stdio.h>
#include <string.h>

#include "vf_app.h"

static void (*emit_fn)(const char *s, void *arg);
static void *emit_arg;

static void cand(const char *cur, const char *s)
{
	if (strncmp(s, cur, strlen(cur)))
		return;
	if (emit_fn)
		emit_fn(s, emit_arg);
	else
		printf("%s\n", s);
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

static void complete_choices(const char *cur, const char *prefix, const char *choices)
{
	char buf[1024];

	for (const char *p = choices; *p;) {
		size_t n = strcspn(p, "|");
		snprintf(buf, sizeof(buf), "%s%.*s", prefix, (int)n, p);
		cand(cur, buf);
		p += n;
		if (*p)
			p++;
	}
}

/* "DRIVER,k=v,k" : driver names first, then that driver's keys, then the
 * values of an enum/bool key. */
static void complete_port(const char *cur)
{
	const char *comma = strrchr(cur, ',');
	char drv[64], prefix[512];
	const struct vf_driver *d;

	if (!comma) {
		for (unsigned int i = 0; vf_driver_at(i); i++) {
			d = vf_driver_at(i);
			snprintf(prefix, sizeof(prefix), d->keys ? "%s," : "%s:", d->name);
			cand(cur, d->name);
			cand(cur, prefix);
		}
		return;
	}
	snprintf(drv, sizeof(drv), "%.*s", (int)strcspn(cur, ",:"), cur);
	d = vf_driver_find(drv);
	if (!d || !d->keys)
		return;
	const char *eq = strchr(comma + 1, '=');
	snprintf(prefix, sizeof(prefix), "%.*s", (int)(comma + 1 - cur), cur);
	if (!eq) {
		for (const struct vf_kvdef *k = d->keys; k->key; k++) {
			char buf[600];
			snprintf(buf, sizeof(buf), "%s%s=", prefix, k->key);
			cand(cur, buf);
		}
		return;
	}
	for (const struct vf_kvdef *k = d->keys; k->key; k++) {
		if (strlen(k->key) != (size_t)(eq - comma - 1) || strncmp(k->key, comma + 1, strlen(k->key)))
			continue;
		snprintf(prefix, sizeof(prefix), "%.*s", (int)(eq + 1 - cur), cur);
		if (k->type == VF_KV_ENUM)
			complete_choices(cur, prefix, k->choices);
		else if (k->type == VF_KV_BOOL)
			complete_choices(cur, prefix, "0|1");
	}
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
			complete_port(cur);
			break;
		case VF_COMP_FILE:
			printf("__files__\n");
			break;
		case VF_COMP_CHOICES:
			complete_choices(cur, "", prev->choices);
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

void vf_complete_port_spec(const char *cur, void (*emit)(const char *s, void *arg), void *arg)
{
	emit_fn = emit;
	emit_arg = arg;
	complete_port(cur);
	emit_fn = NULL;
	emit_arg = NULL;
}
