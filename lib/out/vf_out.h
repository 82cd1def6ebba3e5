/* One emitter for human text and JSON.  Output code calls these and never
 * printf, so the text and the JSON carry the same fields and the JSON is
 * always valid.  In JSON mode a document is one object printed on one line.
 *
 * uint64 values above INT64_MAX (jansson integers are signed) are emitted
 * as decimal strings, never wrapped. */
#ifndef VF_OUT_H
#define VF_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct vf_out;

struct vf_out *vf_out_new(bool json);
void vf_out_free(struct vf_out *o);
bool vf_out_is_json(const struct vf_out *o);

/* key is NULL for the top-level object and for array elements. */
void vf_out_obj_begin(struct vf_out *o, const char *key);
void vf_out_obj_end(struct vf_out *o);
void vf_out_arr_begin(struct vf_out *o, const char *key);
void vf_out_arr_end(struct vf_out *o);

void vf_out_u64(struct vf_out *o, const char *key, uint64_t v);
void vf_out_i64(struct vf_out *o, const char *key, int64_t v);
void vf_out_dbl(struct vf_out *o, const char *key, double v);
void vf_out_str(struct vf_out *o, const char *key, const char *v);
void vf_out_bool(struct vf_out *o, const char *key, bool v);
void vf_out_strf(struct vf_out *o, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Text only: a heading line at the current depth (ignored in JSON). */
void vf_out_title(struct vf_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Tables: one description per field renders both forms.  A column carries
 * the JSON key together with its text heading, width and kind (format and
 * unit), and the Prometheus name where the field is exported, so text, JSON
 * and metrics cannot drift.  In JSON a table is an array (under key) of
 * objects, one per row, with the columns as keys in table order; in text it
 * is a heading line and one aligned line per row. */
enum vf_col_kind {
	VF_COL_U64,	/* uint64_t count: digits grouped ("1,234,567") */
	VF_COL_I64,	/* int64_t */
	VF_COL_STR,	/* const char *, left-aligned */
	VF_COL_BYTES,	/* uint64_t bytes: "12.3 GB" */
	VF_COL_PPS,	/* double packets/s: "140.2 Mpps", "512.0 kpps" */
	VF_COL_BPS,	/* double bits/s: Gbit/s with 2 decimals */
	VF_COL_BITS,	/* double bits/s, any size: "1.000 Mbit/s", "9.524 Gbit/s" */
	VF_COL_RATIO,	/* double 0..1: percent with 3 decimals */
	VF_COL_US,	/* double microseconds, 2 decimals */
	VF_COL_DBL,	/* double, 3 decimals */
};

struct vf_col {
	const char *key;	/* JSON key */
	const char *head;	/* text heading */
	int width;		/* text width */
	enum vf_col_kind kind;
	size_t off;		/* offset of the value in the row struct */
	const char *prom;	/* Prometheus metric (without prefix), NULL: none */
	const char *help;	/* Prometheus HELP text */
};

struct vf_table {
	const struct vf_col *cols;
	unsigned int n;
};

#define VF_TABLE(arr) { arr, sizeof(arr) / sizeof(arr[0]) }

/* JSON: opens the array key; text: prints the heading line. */
void vf_out_table_begin(struct vf_out *o, const char *key, const struct vf_table *t);
/* A row: JSON opens an object and adds every column (close it with
 * vf_out_row_end, after any nested objects); text prints one line. */
void vf_out_row_begin(struct vf_out *o, const struct vf_table *t, const void *row);
void vf_out_row_end(struct vf_out *o);
void vf_out_table_end(struct vf_out *o);
/* The columns of row as fields of the current JSON object (text: one line). */
void vf_out_row_fields(struct vf_out *o, const struct vf_table *t, const void *row);
/* Text cell of one column, as the table prints it (not padded). */
void vf_out_cell(char *buf, size_t len, const struct vf_col *c, const void *row);
/* Text heading / row of a table into buf (no newline); for one-line views. */
void vf_out_table_head_text(char *buf, size_t len, const struct vf_table *t);
void vf_out_table_row_text(char *buf, size_t len, const struct vf_table *t, const void *row);

/* Human units, fixed precision. */
void vf_out_fmt_count(char *buf, size_t len, uint64_t v);	/* 1,234,567 */
void vf_out_fmt_si(char *buf, size_t len, double v, const char *unit); /* 699.9 M<unit> */
void vf_out_fmt_pps(char *buf, size_t len, double pps);	/* 140.2 Mpps */

/* Writes the document (JSON: one line) to f, flushes f, and resets o for
 * the next document.  Returns 0 or -EIO. */
int vf_out_flush(struct vf_out *o, FILE *f);
/* The document as a string (caller frees), and resets o. */
char *vf_out_take(struct vf_out *o);

#endif
