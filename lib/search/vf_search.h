/* The throughput search (--search): trials of the measuring mode at chosen
 * loads, driven through the session.  The default method is MLRsearch
 * (RFC 9971: search goals, load classification, conditional throughput);
 * --search-method bisect keeps the plain RFC 2544 bisection.  Both end
 * with latency trials at fractions of the highest goal's load. */
#ifndef VF_SEARCH_H
#define VF_SEARCH_H

#include "vf_session.h"

/* Runs the search with ses->search's settings; prints progress and the
 * result (text or JSON).  Returns the exit status. */
int vf_search_run(struct vf_session *ses);

/* --search-sizes: the search once per entry of ses->search.sizes (each
 * result printed as it ends), then one table: per entry, each goal's load
 * in Mpps and Gbit/s L2 and L1, and the latency at 90 % of the latency
 * goal's load (text, or one JSON line).  --txpkts is restored after.
 * Returns the exit status: 1 if any search failed or was interrupted. */
int vf_search_sweep(struct vf_session *ses);

/* --search-sizes' argument: lengths (42..2048) and named mixes (imix),
 * comma-separated, or rfc2544 (64,128,256,512,1024,1280,1518), into
 * c->sizes.  0, or -1 with a message in err (c unchanged then). */
int vf_search_sizes_parse(const char *s, struct vf_search_cfg *c, char *err, size_t errlen);
#define VF_SEARCH_SIZES_FORMS "rfc2544 (64,128,256,512,1024,1280,1518) or lengths and named mixes, " \
	"comma-separated (64,imix,1518)"

#endif
