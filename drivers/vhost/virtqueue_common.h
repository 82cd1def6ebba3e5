/* Data-path pieces both ring layouts call out of line (virtqueue_common.c). */
#ifndef VH_VIRTQUEUE_COMMON_H
#define VH_VIRTQUEUE_COMMON_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "vq_types.h"

const char *vh_walk_err_str(int rc);
void vh_vq_break(struct vh_vq *vq, const char *why);
/* Copies a dequeued chain minus the virtio-net header into m; 0 or -1
 * (m reset for reuse). */
int vh_chain_to_mbuf(struct vh_vq *vq, const struct vh_chain *c, uint32_t clen,
		     struct rte_mbuf *m);

#endif
