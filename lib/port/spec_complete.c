/* Completion of a port spec being typed (vf_spec_complete.h). */
#include "vf_spec_complete.h"

#include <stdio.h>
#include <string.h>

#include "vf_port.h"

static void cand(const char *cur, void (*emit)(const char *s, void *arg), void *arg,
		 const char *s)
{
	if (!strncmp(s, cur, strlen(cur)))
		emit(s, arg);
}

void vf_spec_complete_choices(const char *cur, const char *prefix, const char *choices,
			      void (*emit)(const char *s, void *arg), void *arg)
{
	char buf[1024];

	for (const char *p = choices; *p;) {
		size_t n = strcspn(p, "|");
		snprintf(buf, sizeof(buf), "%s%.*s", prefix, (int)n, p);
		cand(cur, emit, arg, buf);
		p += n;
		if (*p)
			p++;
	}
}

/* "DRIVER,k=v,k" : driver names first, then that driver's keys, then the
 * values of an enum/bool key. */
void vf_spec_complete(const char *cur, void (*emit)(const char *s, void *arg), void *arg)
{
	const char *comma = strrchr(cur, ',');
	char drv[64], prefix[512];
	const struct vf_driver *d;

	if (!comma) {
		for (unsigned int i = 0; vf_driver_at(i); i++) {
			d = vf_driver_at(i);
			snprintf(prefix, sizeof(prefix), d->keys ? "%s," : "%s:", d->name);
			cand(cur, emit, arg, d->name);
			cand(cur, emit, arg, prefix);
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
			cand(cur, emit, arg, buf);
		}
		return;
	}
	for (const struct vf_kvdef *k = d->keys; k->key; k++) {
		if (strlen(k->key) != (size_t)(eq - comma - 1) || strncmp(k->key, comma + 1, strlen(k->key)))
			continue;
		snprintf(prefix, sizeof(prefix), "%.*s", (int)(eq + 1 - cur), cur);
		if (k->type == VF_KV_ENUM)
			vf_spec_complete_choices(cur, prefix, k->choices, emit, arg);
		else if (k->type == VF_KV_BOOL)
			vf_spec_complete_choices(cur, prefix, "0|1", emit, arg);
	}
}
