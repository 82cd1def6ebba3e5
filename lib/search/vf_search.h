/* The throughput search (--search): trials of the measuring mode at chosen
 * rates, driven through the session, to find NDR and PDR and the latency
 * at fractions of PDR. */
#ifndef VF_SEARCH_H
#define VF_SEARCH_H

#include "vf_session.h"

/* Runs the search with ses->search's settings; prints progress and the
 * result (text or JSON).  Returns the exit status. */
int vf_search_run(struct vf_session *ses);

#endif
