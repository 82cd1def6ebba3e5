#include "vf_devargs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vf_devargs_keys_list(const struct vf_kvdef *defs, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; defs && defs[i].key && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
				defs[i].key);
	if (!defs || !defs[0].key)
		snprintf(buf, len, "(none)");
}

/* Keys whose values are never shown. */
static bool secret_key(const char *k, size_t n)
{
	return n == 6 && !memcmp(k, "secret", 6);
}

void vf_devargs_redact(const char *spec, char *out, size_t len)
{
	size_t o = 0;
	const char *p = spec ? spec : "";

	if (len == 0)
		return;
	/* Walk "drv,k=v,k=v" (or "dpdk:...,k=v"): each ','-separated item
	 * is copied, the value of a secret key replaced. */
	while (*p && o + 1 < len) {
		size_t n = strcspn(p, ",");
		const char *eq = memchr(p, '=', n);
		const char *key = p;

		/* the first item may be "dpdk:name" or "drv" */
		if (key == spec) {
			const char *c = memchr(p, ':', eq ? (size_t)(eq - p) : n);

			if (c != NULL)
				key = c + 1;
		}
		if (eq != NULL && secret_key(key, (size_t)(eq - key)))
			o += (size_t)snprintf(out + o, len - o, "%.*s***", (int)(eq + 1 - p), p);
		else
			o += (size_t)snprintf(out + o, len - o, "%.*s", (int)n, p);
		if (o >= len)
			o = len - 1;
		p += n;
		if (*p == ',' && o + 1 < len) {
			out[o++] = ',';
			p++;
		} else if (*p == ',') {
			break;
		}
	}
	out[o] = '\0';
}

int vf_devargs_split(const char *spec, char *driver, size_t driver_len,
		     const char **rest, char *err, size_t errlen)
{
	size_t n;

	if (!spec || !*spec) {
		snprintf(err, errlen, "empty port spec: expected DRIVER[,key=value...]");
		return -EINVAL;
	}
	/* "dpdk:" wraps a DPDK ethdev whose own devargs follow verbatim. */
	if (strncmp(spec, "dpdk:", 5) == 0) {
		snprintf(driver, driver_len, "dpdk");
		*rest = spec + 5;
		return 0;
	}
	n = strcspn(spec, ",");
	if (n == 0 || n >= driver_len) {
		char shown[VF_DEVARGS_STR_MAX];

		vf_devargs_redact(spec, shown, sizeof(shown));
		snprintf(err, errlen, "bad port spec '%s': expected DRIVER[,key=value...]", shown);
		return -EINVAL;
	}
	memcpy(driver, spec, n);
	driver[n] = '\0';
	*rest = spec[n] == ',' ? spec + n + 1 : spec + n;
	return 0;
}

static int find_def(const struct vf_kvdef *defs, const char *key, size_t keylen)
{
	for (int i = 0; defs && defs[i].key; i++)
		if (strlen(defs[i].key) == keylen && !memcmp(defs[i].key, key, keylen))
			return i;
	return -1;
}

static int parse_uint(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;

	if (strlen(s) != 17 ||
	    sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &tail) != 6)
		return -1;
	for (int i = 0; i < 6; i++) {
		if (s[i * 3 + 2] != ':' && i < 5)
			return -1;
		mac[i] = (uint8_t)b[i];
	}
	return 0;
}

/* Index of val among "a|b|c", or -1. */
static int enum_index(const char *choices, const char *val)
{
	size_t vlen = strlen(val);
	int idx = 0;

	for (const char *p = choices; *p; idx++) {
		size_t n = strcspn(p, "|");
		if (n == vlen && !memcmp(p, val, n))
			return idx;
		p += n;
		if (*p == '|')
			p++;
	}
	return -1;
}

static int parse_value(const struct vf_kvdef *d, const char *val,
		       struct vf_kvval *v, char *err, size_t errlen)
{
	switch (d->type) {
	case VF_KV_UINT:
		if (parse_uint(val, &v->u) || v->u < d->min || v->u > d->max) {
			snprintf(err, errlen, "bad value '%s' for key '%s': expected an integer in %" PRIu64 "..%" PRIu64,
				 val, d->key, d->min, d->max);
			return -EINVAL;
		}
		return 0;
	case VF_KV_BOOL:
		if (!strcmp(val, "1") || !strcmp(val, "yes"))
			v->u = 1;
		else if (!strcmp(val, "0") || !strcmp(val, "no"))
			v->u = 0;
		else {
			snprintf(err, errlen, "bad value '%s' for key '%s': expected 0, 1, yes or no",
				 val, d->key);
			return -EINVAL;
		}
		return 0;
	case VF_KV_STR: {
		size_t n = strlen(val);
		uint64_t max = d->max ? d->max : VF_DEVARGS_STR_MAX - 1;
		if (max > VF_DEVARGS_STR_MAX - 1)
			max = VF_DEVARGS_STR_MAX - 1;
		if (n == 0 || n > max) {
			snprintf(err, errlen, "bad value for key '%s': expected 1..%" PRIu64 " characters",
				 d->key, max);
			return -EINVAL;
		}
		if (d->check) {
			char expect[160];

			if (d->check(val, expect, sizeof(expect))) {
				snprintf(err, errlen, "bad value '%s' for key '%s': expected %s",
					 val, d->key, expect);
				return -EINVAL;
			}
		}
		memcpy(v->str, val, n + 1);
		return 0;
	}
	case VF_KV_MAC:
		if (parse_mac(val, v->mac)) {
			snprintf(err, errlen, "bad value '%s' for key '%s': expected a MAC address xx:xx:xx:xx:xx:xx",
				 val, d->key);
			return -EINVAL;
		}
		return 0;
	case VF_KV_ENUM: {
		int i = enum_index(d->choices, val);
		if (i < 0) {
			snprintf(err, errlen, "bad value '%s' for key '%s': expected one of %s",
				 val, d->key, d->choices);
			return -EINVAL;
		}
		v->u = (uint64_t)i;
		return 0;
	}
	}
	return -EINVAL;
}

int vf_devargs_parse(const char *args, const struct vf_kvdef *defs,
		     struct vf_devargs *out, char *err, size_t errlen)
{
	char keys[512];
	const char *p = args ? args : "";

	memset(out, 0, sizeof(*out));
	out->defs = defs;
	while (defs && defs[out->ndefs].key)
		out->ndefs++;
	if (out->ndefs > VF_DEVARGS_MAX_KEYS) {
		snprintf(err, errlen, "internal: too many devargs keys");
		return -EINVAL;
	}
	if (strlen(p) >= sizeof(out->raw)) {
		snprintf(err, errlen, "devargs too long (max %zu characters)", sizeof(out->raw) - 1);
		return -EINVAL;
	}
	strcpy(out->raw, p);
	if (!defs)		/* raw pass-through (dpdk:) */
		return 0;

	while (*p) {
		size_t n = strcspn(p, ",");
		const char *eq = memchr(p, '=', n);
		char val[VF_DEVARGS_STR_MAX];
		int i;

		if (n == 0) {
			snprintf(err, errlen, "empty key in devargs '%s'", args);
			return -EINVAL;
		}
		i = find_def(defs, p, eq ? (size_t)(eq - p) : n);
		if (i < 0) {
			vf_devargs_keys_list(defs, keys, sizeof(keys));
			snprintf(err, errlen, "unknown key '%.*s': accepted keys are %s",
				 (int)(eq ? (size_t)(eq - p) : n), p, keys);
			return -EINVAL;
		}
		if (!eq) {
			snprintf(err, errlen, "key '%s' needs a value (%s=...)", defs[i].key, defs[i].key);
			return -EINVAL;
		}
		if (out->val[i].set) {
			snprintf(err, errlen, "key '%s' given twice", defs[i].key);
			return -EINVAL;
		}
		size_t vlen = n - (size_t)(eq + 1 - p);
		if (vlen >= sizeof(val)) {
			snprintf(err, errlen, "value of key '%s' too long", defs[i].key);
			return -EINVAL;
		}
		memcpy(val, eq + 1, vlen);
		val[vlen] = '\0';
		if (parse_value(&defs[i], val, &out->val[i], err, errlen))
			return -EINVAL;
		out->val[i].set = true;
		p += n;
		if (*p == ',') {
			p++;
			if (!*p) {
				snprintf(err, errlen, "trailing ',' in devargs");
				return -EINVAL;
			}
		}
	}
	return 0;
}

static const struct vf_kvval *get(const struct vf_devargs *da, const char *key,
				  enum vf_kv_type type)
{
	for (unsigned int i = 0; i < da->ndefs; i++)
		if (!strcmp(da->defs[i].key, key)) {
			if (da->defs[i].type != type)
				abort();	/* programming error */
			return da->val[i].set ? &da->val[i] : NULL;
		}
	abort();	/* asking for a key the driver did not declare */
}

bool vf_devargs_has(const struct vf_devargs *da, const char *key)
{
	for (unsigned int i = 0; i < da->ndefs; i++)
		if (!strcmp(da->defs[i].key, key))
			return da->val[i].set;
	abort();
}

uint64_t vf_devargs_uint(const struct vf_devargs *da, const char *key, uint64_t def)
{
	const struct vf_kvval *v = get(da, key, VF_KV_UINT);
	return v ? v->u : def;
}

bool vf_devargs_bool(const struct vf_devargs *da, const char *key, bool def)
{
	const struct vf_kvval *v = get(da, key, VF_KV_BOOL);
	return v ? v->u != 0 : def;
}

const char *vf_devargs_str(const struct vf_devargs *da, const char *key, const char *def)
{
	const struct vf_kvval *v = get(da, key, VF_KV_STR);
	return v ? v->str : def;
}

int vf_devargs_enum(const struct vf_devargs *da, const char *key, int def)
{
	const struct vf_kvval *v = get(da, key, VF_KV_ENUM);
	return v ? (int)v->u : def;
}

bool vf_devargs_mac(const struct vf_devargs *da, const char *key, uint8_t mac[6])
{
	const struct vf_kvval *v = get(da, key, VF_KV_MAC);
	if (v)
		memcpy(mac, v->mac, 6);
	return v != NULL;
}
