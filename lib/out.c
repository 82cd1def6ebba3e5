#include "vf_out.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define MAX_DEPTH 16

struct vf_out {
	bool json;
	/* JSON: a stack of open containers, root at 0 */
	json_t *stack[MAX_DEPTH];
	int depth;
	/* text */
	char *buf;
	size_t len, cap;
	int indent;
};

struct vf_out *vf_out_new(bool json)
{
	struct vf_out *o = calloc(1, sizeof(*o));

	if (o)
		o->json = json;
	return o;
}

static void reset(struct vf_out *o)
{
	if (o->depth > 0)
		json_decref(o->stack[0]);
	o->depth = 0;
	o->len = 0;
	o->indent = 0;
	if (o->buf)
		o->buf[0] = '\0';
}

void vf_out_free(struct vf_out *o)
{
	if (!o)
		return;
	reset(o);
	free(o->buf);
	free(o);
}

bool vf_out_is_json(const struct vf_out *o)
{
	return o->json;
}

static void text_vadd(struct vf_out *o, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	if (o->len + (size_t)n + 1 > o->cap) {
		size_t cap = (o->cap ? o->cap * 2 : 1024) + (size_t)n;
		char *b = realloc(o->buf, cap);
		if (!b)
			return;
		o->buf = b;
		o->cap = cap;
	}
	vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	o->len += (size_t)n;
}

static void text_add(struct vf_out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	text_vadd(o, fmt, ap);
	va_end(ap);
}

/* Attach v under key to the innermost container (steals v). */
static void jset(struct vf_out *o, const char *key, json_t *v)
{
	json_t *top;

	if (!v)
		return;
	if (o->depth == 0) {
		json_decref(v);
		return;
	}
	top = o->stack[o->depth - 1];
	if (json_is_array(top))
		json_array_append_new(top, v);
	else
		json_object_set_new(top, key ? key : "", v);
}

static void open_container(struct vf_out *o, const char *key, json_t *c)
{
	if (o->depth == MAX_DEPTH) {
		json_decref(c);
		return;
	}
	if (o->depth > 0)
		jset(o, key, json_incref(c));
	o->stack[o->depth++] = c;
	if (o->depth > 1)
		json_decref(c);	/* the parent holds it now */
}

void vf_out_obj_begin(struct vf_out *o, const char *key)
{
	if (o->json) {
		open_container(o, key, json_object());
		return;
	}
	if (key)
		text_add(o, "%*s%s:\n", o->indent * 2, "", key);
	if (key || o->indent == 0)
		o->indent++;
	else
		o->indent++;
}

void vf_out_obj_end(struct vf_out *o)
{
	if (o->json) {
		if (o->depth > 1)
			o->depth--;
		return;
	}
	if (o->indent > 0)
		o->indent--;
}

void vf_out_arr_begin(struct vf_out *o, const char *key)
{
	if (o->json) {
		open_container(o, key, json_array());
		return;
	}
	/* Text: array elements carry their own titles; no label line. */
}

void vf_out_arr_end(struct vf_out *o)
{
	if (o->json) {
		if (o->depth > 1)
			o->depth--;
	}
}

static void text_kv(struct vf_out *o, const char *key, const char *fmt, ...)
{
	va_list ap;

	text_add(o, "%*s", (o->indent > 0 ? o->indent - 1 : 0) * 2 + 2, "");
	if (key)
		text_add(o, "%-18s ", key);
	va_start(ap, fmt);
	text_vadd(o, fmt, ap);
	va_end(ap);
	text_add(o, "\n");
}

void vf_out_u64(struct vf_out *o, const char *key, uint64_t v)
{
	if (!o->json) {
		text_kv(o, key, "%" PRIu64, v);
		return;
	}
	if (v > (uint64_t)INT64_MAX) {
		/* jansson integers are signed: keep the exact value as text. */
		char s[24];
		snprintf(s, sizeof(s), "%" PRIu64, v);
		jset(o, key, json_string(s));
	} else {
		jset(o, key, json_integer((json_int_t)v));
	}
}

void vf_out_i64(struct vf_out *o, const char *key, int64_t v)
{
	if (!o->json)
		text_kv(o, key, "%" PRId64, v);
	else
		jset(o, key, json_integer(v));
}

void vf_out_dbl(struct vf_out *o, const char *key, double v)
{
	if (!o->json)
		text_kv(o, key, "%.3f", v);
	else
		jset(o, key, json_real(v));
}

void vf_out_str(struct vf_out *o, const char *key, const char *v)
{
	if (!o->json)
		text_kv(o, key, "%s", v ? v : "");
	else
		jset(o, key, json_string(v ? v : ""));
}

void vf_out_bool(struct vf_out *o, const char *key, bool v)
{
	if (!o->json)
		text_kv(o, key, "%s", v ? "yes" : "no");
	else
		jset(o, key, json_boolean(v));
}

void vf_out_strf(struct vf_out *o, const char *key, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	vf_out_str(o, key, buf);
}

void vf_out_title(struct vf_out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->json)
		return;
	text_add(o, "%*s", (o->indent > 0 ? o->indent - 1 : 0) * 2, "");
	va_start(ap, fmt);
	text_vadd(o, fmt, ap);
	va_end(ap);
	text_add(o, "\n");
}

char *vf_out_take(struct vf_out *o)
{
	char *s;

	if (o->json) {
		s = o->depth > 0 ? json_dumps(o->stack[0], JSON_COMPACT | JSON_PRESERVE_ORDER |
					      JSON_REAL_PRECISION(10))
				 : strdup("{}");
	} else {
		s = strdup(o->buf ? o->buf : "");
	}
	reset(o);
	return s;
}

int vf_out_flush(struct vf_out *o, FILE *f)
{
	char *s = vf_out_take(o);
	int ret = 0;

	if (!s)
		return -ENOMEM;
	if (fputs(s, f) < 0 || (o->json && fputc('\n', f) < 0) || fflush(f))
		ret = -EIO;
	free(s);
	return ret;
}
