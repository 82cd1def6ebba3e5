/* Numbers from text a user or a peer gave (vf_parse.h). */
#include "vf_parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <strings.h>

int vf_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int vf_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int vf_parse_rate(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	double v, mult = 1;

	/* digits first: no sign, blank, inf, nan or hex (strtod takes them) */
	if (!s || !((*s >= '0' && *s <= '9') || (*s == '.' && s[1] >= '0' && s[1] <= '9')))
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		return -1;
	switch (*end) {
	case 'k': case 'K': mult = 1e3; end++; break;
	case 'M': mult = 1e6; end++; break;
	case 'G': mult = 1e9; end++; break;
	default: break;
	}
	if (*end && strcasecmp(end, "pps"))
		return -1;
	v = round(v * mult);
	if (v < (double)min || v > (double)max)
		return -1;
	*out = (uint64_t)v;
	return 0;
}
