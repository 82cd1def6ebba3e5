/* --search-sizes: the search once per frame length (or named mix), as RFC
 * 2544 asks for 64, 128, 256, 512, 1024, 1280 and 1518 bytes, and one
 * table of what each found.  Each search is the whole --search (the
 * tester's limit, the method's trials, the latency trials) with its own
 * document; the sweep only changes --txpkts between them and gathers. */
#include <stdio.h>
#include <string.h>

#include "methods.h"
#include "vf_log.h"
#include "vf_out.h"
#include "vf_rate.h"
#include "vf_runtime.h"
#include "vf_search.h"

#define LABEL_LEN 24

int vf_search_sizes_parse(const char *s, struct vf_search_cfg *c, char *err, size_t errlen)
{
	struct vf_mix sizes[VF_SEARCH_MAX_SIZES];
	unsigned int n = 0;
	char msg[320];

	if (!strcmp(s, "rfc2544"))
		s = "64,128,256,512,1024,1280,1518";
	for (const char *p = s;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char tok[LABEL_LEN];

		if (len == 0 || len >= sizeof(tok) || memchr(p, ':', len)) {
			snprintf(err, errlen, "bad --search-sizes '%s': an empty, overlong or weighted entry "
				 "(a weighted mix goes in --txpkts); expected %s", s, VF_SEARCH_SIZES_FORMS);
			return -1;
		}
		if (n == VF_SEARCH_MAX_SIZES) {
			snprintf(err, errlen, "bad --search-sizes '%s': more than %d entries", s,
				 VF_SEARCH_MAX_SIZES);
			return -1;
		}
		memcpy(tok, p, len);
		tok[len] = '\0';
		if (vf_mix_parse(tok, &sizes[n], VF_MIX_MIN_LEN, VF_MIX_MAX_LEN, msg, sizeof(msg))) {
			snprintf(err, errlen, "bad --search-sizes entry '%s': %s", tok, msg);
			return -1;
		}
		n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	memcpy(c->sizes, sizes, n * sizeof(sizes[0]));
	c->nb_sizes = n;
	return 0;
}

struct sweep_row {
	char label[LABEL_LEN];
	double frame;			/* mean length, as the searches counted it */
	int status;
	struct vf_search_summary sum;
};

/* "1.2345", ">1.2345" (at least: the tester's limit), "1.2345?"
 * (irregular, or not verified) or "-" (none). */
static void cell(char *buf, size_t len, const struct vf_search_summary *sum, unsigned int g,
		 double v)
{
	if (!sum->g[g].found)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s%.4f%s", sum->g[g].tester_limited ? ">" : "", v,
			 !sum->g[g].regular && !sum->g[g].tester_limited ? "?" : "");
}

static void text_table(struct vf_out *o, const struct sweep_row *rows, unsigned int n)
{
	const struct vf_search_summary *first = &rows[0].sum;
	char line[512], c1[24], c2[24], c3[24];
	size_t at;
	bool limited = false, irregular = false;

	at = (size_t)snprintf(line, sizeof(line), "%-10s %8s", "txpkts", "frame");
	for (unsigned int g = 0; g < first->ngoals && at < sizeof(line); g++)
		at += (size_t)snprintf(line + at, sizeof(line) - at, "  %8.8s Mpps %7s %7s", first->g[g].name,
				       "L2 Gb/s", "L1 Gb/s");
	if (at < sizeof(line))
		snprintf(line + at, sizeof(line) - at, "  %12s %12s", "p50 us @90%", "p99 us @90%");
	vf_out_title(o, "%s", line);
	for (unsigned int i = 0; i < n; i++) {
		const struct vf_search_summary *s = &rows[i].sum;

		at = (size_t)snprintf(line, sizeof(line), "%-10s %8.1f", rows[i].label, rows[i].frame);
		for (unsigned int g = 0; g < s->ngoals && at < sizeof(line); g++) {
			double pps = s->g[g].pps;

			cell(c1, sizeof(c1), s, g, pps / 1e6);
			cell(c2, sizeof(c2), s, g, vf_rate_l2_bps(pps, rows[i].frame) / 1e9);
			cell(c3, sizeof(c3), s, g, vf_rate_l1_bps(pps, rows[i].frame) / 1e9);
			at += (size_t)snprintf(line + at, sizeof(line) - at, "  %13s %7s %7s", c1, c2, c3);
			limited = limited || (s->g[g].found && s->g[g].tester_limited);
			irregular = irregular || (s->g[g].found && !s->g[g].regular && !s->g[g].tester_limited);
		}
		if (at < sizeof(line) && s->has_lat90)
			snprintf(line + at, sizeof(line) - at, "  %12.2f %12.2f", s->lat90.p50, s->lat90.p99);
		else if (at < sizeof(line))
			snprintf(line + at, sizeof(line) - at, "  %12s %12s", "-", "-");
		vf_out_title(o, "%s%s", line, rows[i].status ? "  (search failed)" : "");
	}
	if (limited)
		vf_out_title(o, ">: at least this: the tester's limit at that size, not the device's figure");
	if (irregular)
		vf_out_title(o, "?: irregular (MLRsearch) or not verified (bisection): see that size's result");
}

static void json_rows(struct vf_out *o, const struct sweep_row *rows, unsigned int n)
{
	vf_out_arr_begin(o, "sizes");
	for (unsigned int i = 0; i < n; i++) {
		const struct vf_search_summary *s = &rows[i].sum;

		vf_out_obj_begin(o, NULL);
		vf_out_str(o, "txpkts", rows[i].label);
		vf_out_dbl(o, "frame", rows[i].frame);
		vf_out_bool(o, "ok", rows[i].status == 0);
		vf_out_u64(o, "trials", s->trials);
		vf_out_dbl(o, "tester_limit_pps", s->tester_limit);
		vf_out_arr_begin(o, "goals");
		for (unsigned int g = 0; g < s->ngoals; g++) {
			vf_out_obj_begin(o, NULL);
			vf_out_str(o, "name", s->g[g].name);
			vf_out_bool(o, "found", s->g[g].found);
			vf_out_bool(o, "tester_limited", s->g[g].tester_limited);
			vf_out_bool(o, "regular", s->g[g].regular);
			if (s->g[g].found) {
				vf_out_dbl(o, "pps", s->g[g].pps);
				vf_out_dbl(o, "l2_bps", vf_rate_l2_bps(s->g[g].pps, rows[i].frame));
				vf_out_dbl(o, "l1_bps", vf_rate_l1_bps(s->g[g].pps, rows[i].frame));
			}
			vf_out_obj_end(o);
		}
		vf_out_arr_end(o);
		if (s->has_lat90)
			vf_meas_lat_json(o, "latency_90_us", &s->lat90);
		vf_out_obj_end(o);
	}
	vf_out_arr_end(o);
}

int vf_search_sweep(struct vf_session *ses)
{
	static struct sweep_row rows[VF_SEARCH_MAX_SIZES];
	const struct vf_search_cfg *c = &ses->search;
	const struct vf_mix saved = ses->fwd.txpkts;
	double start = vf_now_s(), traffic = 0;
	unsigned int n = 0, trials = 0;
	int status = 0;
	struct vf_out *o;
	char err[320];

	for (unsigned int i = 0; i < c->nb_sizes && !vf_session_signalled(); i++) {
		struct sweep_row *r = &rows[n];

		memset(r, 0, sizeof(*r));
		ses->fwd.txpkts = c->sizes[i];
		vf_mix_fmt(r->label, sizeof(r->label), &c->sizes[i]);
		r->frame = vf_session_frame_len(ses);
		/* --min-rate and --max-rate in bit/s are other pps at each size */
		if (vf_session_resolve_rates(ses, err, sizeof(err))) {
			VF_ERR("search at --txpkts %s: %s", r->label, err);
			status = 1;
			break;
		}
		fprintf(stderr, "%s: search %u of %u: --txpkts %s\n", ses->tool, i + 1, c->nb_sizes,
			r->label);
		r->status = vf__search_once(ses, false, r->label, &r->sum);
		status |= r->status;
		trials += r->sum.trials;
		traffic += r->sum.traffic_s;
		n++;
		if (r->sum.aborted)
			break;
	}
	ses->fwd.txpkts = saved;
	if (!n)
		return 1;
	o = vf_out_new(ses->json);
	if (!o)
		return 1;
	vf_out_obj_begin(o, NULL);
	vf_out_title(o, "%s size sweep: %s, %u of %u sizes, %u trials, %.1f s of traffic in %.1f s "
		     "(frame: mean bytes without FCS; L2 counts the 4-byte FCS, L1 also preamble, "
		     "SFD and gap)", ses->tool, c->bisect ? "RFC 2544 bisection" : "MLRsearch (RFC 9971)",
		     n, c->nb_sizes, trials, traffic, vf_now_s() - start);
	if (vf_out_is_json(o)) {
		vf_out_str(o, "tool", ses->tool);
		vf_out_bool(o, "final", true);
		vf_out_obj_begin(o, "sweep");
		vf_out_str(o, "method", c->bisect ? "bisect" : "mlrsearch");
		vf_out_u64(o, "trials", trials);
		vf_out_dbl(o, "traffic_s", traffic);
		vf_out_dbl(o, "elapsed", vf_now_s() - start);
		vf_out_u64(o, "fcs_bytes_in_l2", VF_RATE_FCS);
		vf_out_bool(o, "interrupted", n < c->nb_sizes || rows[n - 1].sum.aborted);
		json_rows(o, rows, n);
		vf_out_obj_end(o);
	} else {
		text_table(o, rows, n);
	}
	vf_out_obj_end(o);
	vf_session_emit(ses, o);
	vf_out_free(o);
	return n < c->nb_sizes ? 1 : status;
}
