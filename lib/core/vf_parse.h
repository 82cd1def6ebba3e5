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

/* A packet rate: a number (decimals allowed) with an optional unit k (1e3),
 * M (1e6) or G (1e9) and an optional "pps" in any case: 200000, 200k,
 * 200kpps, 1.5M, 1.5Mpps, 2G.  Rounded to whole packets per second.  0, or
 * -1 when s is none of these or not in [min, max]; *out unchanged then. */
int vf_parse_rate(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* What vf_parse_rate accepts, for messages: "PPS, e.g. 200000, 200k, ...". */
#define VF_RATE_FORMS "packets per second, e.g. 200000, 200k, 200kpps, 1.5M, 1.5Mpps, 1G"

#endif
