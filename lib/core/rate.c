/* Rates with units (vf_rate.h). */
#include "vf_rate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

static const struct {
	const char *name;
	enum vf_rate_unit unit;
} units[] = {
	{ "", VF_RATE_PPS }, { "pps", VF_RATE_PPS }, { "bps", VF_RATE_L2_BPS },
	{ "bps-l1", VF_RATE_L1_BPS }, { "bpsl1", VF_RATE_L1_BPS }, { "%", VF_RATE_PCT },
};

int vf_rate_parse(const char *s, struct vf_rate *r, char *err, size_t errlen)
{
	char *end;
	double v, mult = 1, lo, hi;
	enum vf_rate_unit unit = VF_RATE_PPS;
	size_t i;

	/* digits first: no sign, blank, inf, nan or hex (strtod takes them) */
	if (!s || !((*s >= '0' && *s <= '9') || (*s == '.' && s[1] >= '0' && s[1] <= '9')) ||
	    (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
		goto bad;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		goto bad;
	switch (*end) {
	case 'k': case 'K': mult = 1e3; end++; break;
	case 'M': mult = 1e6; end++; break;
	case 'G': mult = 1e9; end++; break;
	case 'T': mult = 1e12; end++; break;
	default: break;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(end, units[i].name))
			break;
	if (i == sizeof(units) / sizeof(units[0]))
		goto bad;
	unit = units[i].unit;
	if (unit == VF_RATE_PCT && mult != 1)
		goto bad;
	v *= mult;
	switch (unit) {
	case VF_RATE_PPS: lo = 1; hi = 1e9; v = round(v); break;
	case VF_RATE_PCT: lo = 1e-9; hi = 100; break;
	default: lo = 1; hi = 1e13; break;
	}
	if (v < lo || v > hi) {
		snprintf(err, errlen, "out of range: %s; expected %s",
			 unit == VF_RATE_PPS ? "1 pps .. 1 Gpps" :
			 unit == VF_RATE_PCT ? "above 0 and at most 100 %" : "1 bit/s .. 10 Tbit/s",
			 VF_RATE_SPEC_FORMS);
		return -1;
	}
	r->unit = unit;
	r->value = v;
	return 0;
bad:
	snprintf(err, errlen, "expected %s", VF_RATE_SPEC_FORMS);
	return -1;
}

double vf_rate_to_pps(const struct vf_rate *r, double len, uint64_t link_bps)
{
	switch (r->unit) {
	case VF_RATE_PPS: return r->value;
	case VF_RATE_L2_BPS: return r->value / vf_rate_l2_bits(len);
	case VF_RATE_L1_BPS: return r->value / vf_rate_l1_bits(len);
	case VF_RATE_PCT:
		if (!link_bps)
			return -1;
		return r->value / 100.0 * (double)link_bps / vf_rate_l1_bits(len);
	}
	return -1;
}

static void si(char *buf, size_t len, double v, const char *unit)
{
	const char *p = "";

	if (v >= 1e9) { v /= 1e9; p = "G"; }
	else if (v >= 1e6) { v /= 1e6; p = "M"; }
	else if (v >= 1e3) { v /= 1e3; p = "k"; }
	snprintf(buf, len, "%.6g %s%s", v, p, unit);
}

void vf_rate_fmt(char *buf, size_t len, const struct vf_rate *r)
{
	switch (r->unit) {
	case VF_RATE_PPS: si(buf, len, r->value, "pps"); break;
	case VF_RATE_L2_BPS: si(buf, len, r->value, "bit/s L2"); break;
	case VF_RATE_L1_BPS: si(buf, len, r->value, "bit/s L1"); break;
	case VF_RATE_PCT: snprintf(buf, len, "%.6g %% of the link", r->value); break;
	}
}
