/* Rates in the units people give them (vf_rate.h) turned into the packets
 * per second the generators pace at, and the load report that gives them
 * back in all three forms. */
#include "vf_session.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "vf_out.h"
#include "vf_frames.h"
#include "vf_stamp.h"

unsigned int vf_session_min_len(const struct vf_session *ses)
{
	if (!ses->fwd.mode || !ses->fwd.mode->drains)
		return 0;
	/* the flows resolve at start: a given IPv6 address says the family */
	return (ses->fwd.flows.f[VF_FIELD_SRC].v6 || ses->fwd.flows.f[VF_FIELD_DST].v6 ?
		VF_STAMP_MIN_FRAME6 : VF_STAMP_MIN_FRAME) +
	       (ses->fwd.flows.f[VF_FIELD_VLAN].given ? VF_FRAMES_VLAN_LEN : 0);
}

double vf_session_frame_len(const struct vf_session *ses)
{
	if (ses->fwd.replay && ses->fwd.replay->n)	/* a capture: its mean frame */
		return (double)((ses->fwd.replay->bytes + ses->fwd.replay->n / 2) / ses->fwd.replay->n);
	return vf_mix_mean(&ses->fwd.txpkts, vf_session_min_len(ses));
}

void vf_session_frames_describe(const struct vf_session *ses, char *buf, size_t len)
{
	if (ses->fwd.replay && ses->fwd.replay->n)
		snprintf(buf, len, "%.0f-byte (the capture's mean)", vf_session_frame_len(ses));
	else
		vf_mix_describe(buf, len, &ses->fwd.txpkts, vf_session_min_len(ses));
}

/* Bits per second of the slowest port's link times the ports, or 0 and
 * the first port that does not know its speed in *which. */
static uint64_t links_bps(int *which)
{
	uint64_t min = 0;
	unsigned int n = 0;

	for (uint16_t p = 0; p < vf_port_count(); p++) {
		struct vf_port *port = vf_port_get(p);
		struct vf_link link;

		if (!port)
			continue;
		vf_port_link(port, &link);
		if (!link.speed_mbps) {
			*which = p;
			return 0;
		}
		if (!min || link.speed_mbps < min)
			min = link.speed_mbps;
		n++;
	}
	*which = -1;
	return min * 1000000ull * n;
}

static int resolve(struct vf_session *ses, const struct vf_rate *r, const char *what,
		   uint64_t *pps, char *err, size_t errlen)
{
	double len = vf_session_frame_len(ses);
	uint64_t link = 0;
	double v;
	int which = -1;

	if (r->value == 0 || r->unit == VF_RATE_PPS)
		return 0;	/* not given, or set as it was parsed */
	if (r->unit == VF_RATE_PCT) {
		link = links_bps(&which);
		/* a device's link may say its speed once it is up */
		if (!link && vf_session_wait_links(5))
			link = links_bps(&which);
		if (!link) {
			struct vf_port *port = which >= 0 ? vf_port_get((uint16_t)which) : NULL;

			snprintf(err, errlen, "%s %g%%: port %d (%s) does not report a link speed; "
				 "give the rate in pps or bit/s", what, r->value, which,
				 port ? port->name : "?");
			return -1;
		}
	}
	v = round(vf_rate_to_pps(r, len, link));
	if (v < 1 || v > 1e9) {
		char as[64];

		char frames[192];

		vf_rate_fmt(as, sizeof(as), r);
		vf_session_frames_describe(ses, frames, sizeof(frames));
		snprintf(err, errlen, "%s %s is %.0f pps with %s frames: expected 1 pps .. 1 Gpps",
			 what, as, v, frames);
		return -1;
	}
	*pps = (uint64_t)v;
	return 0;
}

int vf_session_resolve_rates(struct vf_session *ses, char *err, size_t errlen)
{
	const struct vf_pattern *pat = &ses->fwd.pattern;

	if (pat->kind == VF_PATTERN_BURST && pat->burst_ns) {
		double v = round(vf_pattern_pps(pat));

		ses->fwd.rate_pps = v < 1 ? 1 : (uint64_t)v;
	}
	if (resolve(ses, &ses->rate_spec, "--rate", &ses->fwd.rate_pps, err, errlen) ||
	    resolve(ses, &ses->min_rate_spec, "--min-rate", &ses->search.min_rate, err, errlen) ||
	    resolve(ses, &ses->max_rate_spec, "--max-rate", &ses->search.max_rate, err, errlen))
		return -1;
	if (ses->search.on && ses->search.max_rate && ses->search.max_rate <= ses->search.min_rate) {
		snprintf(err, errlen, "--max-rate (%llu pps) must be above --min-rate (%llu pps)",
			 (unsigned long long)ses->search.max_rate,
			 (unsigned long long)ses->search.min_rate);
		return -1;
	}
	return 0;
}

void vf_session_load(const struct vf_session *ses, struct vf_session_load *l)
{
	struct vf_meas_stream all;
	unsigned int ns = vf_fwd_nb_streams() ? vf_fwd_nb_streams() : 1;

	vf_meas_sum(&all);
	l->intended_pps = (double)ses->fwd.rate_pps;
	if (vf_pattern_pps(&ses->fwd.pattern) > 0)	/* burst:N/T: exact, not rounded */
		l->intended_pps = vf_pattern_pps(&ses->fwd.pattern);
	l->effective_s = vf_fwd_elapsed();
	l->offered_pps = l->effective_s > 0 ? (double)all.sent / l->effective_s : 0;
	l->limited = ses->fwd.rate_pps && !ses->fwd.count && l->effective_s > 0 &&
		     (double)all.sent < l->intended_pps * l->effective_s * 0.99 -
					2.0 * ses->fwd.burst * ns;
}

/* One row per load (asked, offered): the same rate in three forms. */
struct load_row {
	const char *name;
	double pps, l2_bps, l1_bps;
};
#define LR(f) offsetof(struct load_row, f)
static const struct vf_col load_cols[] = {
	{ "load", "load", 9, VF_COL_STR, LR(name), NULL, NULL },
	{ "pps", "pps", 12, VF_COL_PPS, LR(pps), NULL, NULL },
	{ "l2_bps", "L2 bit/s", 16, VF_COL_BITS, LR(l2_bps), NULL, NULL },
	{ "l1_bps", "L1 bit/s", 16, VF_COL_BITS, LR(l1_bps), NULL, NULL },
};
#undef LR
static const struct vf_table load_table = VF_TABLE(load_cols);

static void load_row(struct vf_out *o, const char *key, const char *name, double pps,
		     double len)
{
	struct load_row r = { name, pps, vf_rate_l2_bps(pps, len), vf_rate_l1_bps(pps, len) };

	vf_out_obj_begin(o, vf_out_is_json(o) ? key : NULL);
	vf_out_row_fields(o, &load_table, &r);
	vf_out_obj_end(o);
}

static const char *const pattern_names[] = { "constant", "burst", "poisson" };

void vf_session_report_load(const struct vf_session *ses, struct vf_out *o)
{
	struct vf_session_load l;
	double len = vf_session_frame_len(ses);
	char as[64] = "", frames[192];
	bool json = vf_out_is_json(o);

	vf_session_load(ses, &l);
	if (ses->rate_spec.value > 0 && ses->rate_spec.unit != VF_RATE_PPS)
		vf_rate_fmt(as, sizeof(as), &ses->rate_spec);
	vf_out_obj_begin(o, json ? "load" : NULL);
	vf_session_frames_describe(ses, frames, sizeof(frames));
	vf_out_title(o, "load over %.3f s, %s pattern, %s frames (L2 counts the 4-byte FCS, "
		     "L1 adds preamble, SFD and gap: 24 bytes a frame)%s%s", l.effective_s,
		     pattern_names[ses->fwd.pattern.kind], frames, as[0] ? "; asked as " : "", as);
	if (l.limited)
		vf_out_title(o, "TESTER-LIMITED: the ports took less than asked");
	if (!json) {
		char line[256];

		vf_out_table_head_text(line, sizeof(line), &load_table);
		vf_out_title(o, "%s", line);
	}
	if (l.intended_pps > 0)
		load_row(o, "asked", "asked", l.intended_pps, len);
	else
		vf_out_title(o, "%-9s %12s", "asked", "unthrottled");
	load_row(o, "offered", "offered", l.offered_pps, len);
	if (json) {
		vf_out_dbl(o, "intended_pps", l.intended_pps);
		vf_out_dbl(o, "offered_pps", l.offered_pps);
		vf_out_dbl(o, "effective_s", l.effective_s);
		vf_out_bool(o, "tester_limited", l.limited);
		vf_out_dbl(o, "frame_len", len);	/* a mix's mean */
		if (!ses->fwd.replay) {
			char mix[160];

			vf_mix_fmt(mix, sizeof(mix), &ses->fwd.txpkts);
			vf_out_str(o, "txpkts", mix);
		}
		vf_out_str(o, "pattern", pattern_names[ses->fwd.pattern.kind]);
		if (as[0])
			vf_out_str(o, "asked_as", as);
	}
	vf_out_obj_end(o);
}
