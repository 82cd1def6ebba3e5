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

/* Writes the document (JSON: one line) to f, flushes f, and resets o for
 * the next document.  Returns 0 or -EIO. */
int vf_out_flush(struct vf_out *o, FILE *f);
/* The document as a string (caller frees), and resets o. */
char *vf_out_take(struct vf_out *o);

#endif
