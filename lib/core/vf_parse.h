/* Numbers from untrusted text (options, shell commands): the whole string
 * must be the number, in [min, max]; no sign for integers (0x and 0 octal
 * prefixes are accepted, as strtoull does). */
#ifndef VF_PARSE_H
#define VF_PARSE_H

#include <stdint.h>

/* 0, or -1 when s is not an integer in [min, max]; *out unchanged then. */
int vf_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* 0, or -1 when s is not a finite number in [min, max]. */
int vf_parse_double(const char *s, double min, double max, double *out);

#endif
