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

/* ---- tables ---- */

void vf_out_fmt_count(char *buf, size_t len, uint64_t v)
{
	char d[24];
	int n = snprintf(d, sizeof(d), "%" PRIu64, v);
	size_t k = 0;

	for (int i = 0; i < n && k + 1 < len; i++) {
		if (i && (n - i) % 3 == 0 && k + 2 < len)
			buf[k++] = ',';
		buf[k++] = d[i];
	}
	if (len)
		buf[k < len ? k : len - 1] = '\0';
}

void vf_out_fmt_si(char *buf, size_t len, double v, const char *unit)
{
	static const char *const pfx[] = { "", "k", "M", "G", "T", "P" };
	unsigned int i = 0;

	while (v >= 999.95 && i < 5) {
		v /= 1000.0;
		i++;
	}
	if (i == 0 && v == (double)(uint64_t)v)
		snprintf(buf, len, "%.0f %s", v, unit);
	else
		snprintf(buf, len, "%.1f %s%s", v, pfx[i], unit);
}

void vf_out_fmt_pps(char *buf, size_t len, double pps)
{
	if (pps >= 999950.0)
		snprintf(buf, len, "%.1f Mpps", pps / 1e6);
	else if (pps >= 999.95)
		snprintf(buf, len, "%.1f kpps", pps / 1e3);
	else
		snprintf(buf, len, "%.0f pps", pps);
}

void vf_out_cell(char *buf, size_t len, const struct vf_col *c, const void *row)
{
	const void *p = (const char *)row + c->off;

	switch (c->kind) {
	case VF_COL_U64:
		vf_out_fmt_count(buf, len, *(const uint64_t *)p);
		break;
	case VF_COL_I64:
		snprintf(buf, len, "%" PRId64, *(const int64_t *)p);
		break;
	case VF_COL_STR:
		snprintf(buf, len, "%s", *(const char *const *)p ? *(const char *const *)p : "");
		break;
	case VF_COL_BYTES:
		vf_out_fmt_si(buf, len, (double)*(const uint64_t *)p, "B");
		break;
	case VF_COL_PPS:
		vf_out_fmt_pps(buf, len, *(const double *)p);
		break;
	case VF_COL_BPS:
		snprintf(buf, len, "%.2f", *(const double *)p / 1e9);
		break;
	case VF_COL_BITS: {
		double v = *(const double *)p;

		if (v >= 999.9995e6)
			snprintf(buf, len, "%.3f Gbit/s", v / 1e9);
		else if (v >= 999.9995e3)
			snprintf(buf, len, "%.3f Mbit/s", v / 1e6);
		else if (v >= 999.9995)
			snprintf(buf, len, "%.3f kbit/s", v / 1e3);
		else
			snprintf(buf, len, "%.0f bit/s", v);
		break;
	}
	case VF_COL_RATIO:
		snprintf(buf, len, "%.3f", *(const double *)p * 100.0);
		break;
	case VF_COL_US:
		snprintf(buf, len, "%.2f", *(const double *)p);
		break;
	case VF_COL_DBL:
		snprintf(buf, len, "%.3f", *(const double *)p);
		break;
	}
}

static size_t cat_cell(char *buf, size_t len, size_t n, const struct vf_col *c, const char *s,
		       bool first)
{
	int w;

	if (n >= len)
		return n;
	w = snprintf(buf + n, len - n, c->kind == VF_COL_STR ? "%s%-*s" : "%s%*s",
		     first ? "" : " ", c->width, s);
	return w > 0 ? n + (size_t)w : n;
}

void vf_out_table_head_text(char *buf, size_t len, const struct vf_table *t)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < t->n; i++)
		n = cat_cell(buf, len, n, &t->cols[i], t->cols[i].head, i == 0);
	while (n > 0 && n < len && buf[n - 1] == ' ')
		buf[--n] = '\0';
}

void vf_out_table_row_text(char *buf, size_t len, const struct vf_table *t, const void *row)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < t->n; i++) {
		char cell[64];

		vf_out_cell(cell, sizeof(cell), &t->cols[i], row);
		n = cat_cell(buf, len, n, &t->cols[i], cell, i == 0);
	}
	while (n > 0 && n < len && buf[n - 1] == ' ')
		buf[--n] = '\0';
}

void vf_out_table_begin(struct vf_out *o, const char *key, const struct vf_table *t)
{
	char line[1024];

	if (o->json) {
		vf_out_arr_begin(o, key);
		return;
	}
	vf_out_table_head_text(line, sizeof(line), t);
	vf_out_title(o, "%s", line);
}

void vf_out_row_fields(struct vf_out *o, const struct vf_table *t, const void *row)
{
	char line[1024];

	if (!o->json) {
		vf_out_table_row_text(line, sizeof(line), t, row);
		vf_out_title(o, "%s", line);
		return;
	}
	for (unsigned int i = 0; i < t->n; i++) {
		const struct vf_col *c = &t->cols[i];
		const void *p = (const char *)row + c->off;

		switch (c->kind) {
		case VF_COL_U64:
		case VF_COL_BYTES:
			vf_out_u64(o, c->key, *(const uint64_t *)p);
			break;
		case VF_COL_I64:
			vf_out_i64(o, c->key, *(const int64_t *)p);
			break;
		case VF_COL_STR:
			vf_out_str(o, c->key, *(const char *const *)p);
			break;
		default:
			vf_out_dbl(o, c->key, *(const double *)p);
			break;
		}
	}
}

void vf_out_row_begin(struct vf_out *o, const struct vf_table *t, const void *row)
{
	if (o->json)
		vf_out_obj_begin(o, NULL);
	vf_out_row_fields(o, t, row);
}

void vf_out_row_end(struct vf_out *o)
{
	if (o->json)
		vf_out_obj_end(o);
}

void vf_out_table_end(struct vf_out *o)
{
	if (o->json)
		vf_out_arr_end(o);
}
