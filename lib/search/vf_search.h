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

#endif
