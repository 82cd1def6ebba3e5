/* opts.c's parsing helpers and the handlers of the options that only
 * measuring and the search read (opts_search.c), which its table names. */
#ifndef VF_OPTS_PRIV_H
#define VF_OPTS_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vf_app.h"
#include "vf_parse.h"
#include "vf_rate.h"

/* A number in lo..hi for the option what into *v: 0, or -1 with err
 * saying what is accepted (expect). */
static inline int vf__opt_double(double *v, double lo, double hi, const char *arg, const char *what,
				  const char *expect, char *err, size_t errlen)
{
	if (vf_parse_double(arg, lo, hi, v)) {
		snprintf(err, errlen, "bad %s '%s': expected %s", what, arg, expect);
		return -1;
	}
	return 0;
}

/* --rate, --min-rate, --max-rate: packets/s (1 .. 1 Gpps), L2 or L1 bit/s
 * or a percent of the link; what is not pps becomes pps once the ports and
 * the frame length are known (vf_session_resolve_rates). */
static inline int vf__opt_rate(const char *arg, struct vf_rate *spec, uint64_t *pps,
			       const char *what, char *err, size_t errlen)
{
	char msg[320];

	if (vf_rate_parse(arg, spec, msg, sizeof(msg))) {
		snprintf(err, errlen, "bad %s '%s': %s", what, arg, msg);
		return -1;
	}
	if (spec->unit == VF_RATE_PPS)
		*pps = (uint64_t)spec->value;
	return 0;
}

#define VF_OPT_HANDLER(name) int name(struct vf_app *app, const char *arg, char *err, size_t errlen)
VF_OPT_HANDLER(vf__o_max_loss);
VF_OPT_HANDLER(vf__o_max_latency);
VF_OPT_HANDLER(vf__o_search);
VF_OPT_HANDLER(vf__o_pdr_loss);
VF_OPT_HANDLER(vf__o_min_rate);
VF_OPT_HANDLER(vf__o_max_rate);
VF_OPT_HANDLER(vf__o_trial);
VF_OPT_HANDLER(vf__o_precision);
VF_OPT_HANDLER(vf__o_search_method);
VF_OPT_HANDLER(vf__o_search_goal);
VF_OPT_HANDLER(vf__o_search_sizes);
VF_OPT_HANDLER(vf__o_warmup);

#endif
