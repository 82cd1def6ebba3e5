/* Data-path pieces both ring layouts call out of line: walk error
 * names, stopping a ring, and the general copy of a descriptor chain into
 * mbufs (protocols.md §2.5; hardening.md C, P5, P6). */
#include "virtqueue_common.h"

#include <string.h>

#include "vf_ctr.h"
#include "vf_log.h"
#include "vhost_offload.h"

/* Largest frame we assemble from a front-end chain (bytes after the header). */
#define VH_MAX_PKT 65535u

const char *vh_walk_err_str(int rc)
{
	switch (rc) {
	case VH_WALK_HEAD_RANGE: return "descriptor head index out of range";
	case VH_WALK_NEXT_RANGE: return "descriptor next index out of range";
	case VH_WALK_LOOP: return "descriptor chain loops or is longer than the ring";
	case VH_WALK_ADDR: return "descriptor address outside the shared memory";
	case VH_WALK_INDIRECT: return "bad indirect descriptor table";
	case VH_WALK_DIRECTION: return "descriptor direction out of order";
	case VH_WALK_ID: return "buffer id out of range";
	case VH_WALK_FLAGS: return "descriptor flags do not match the wrap counter";
	default: return "bad descriptor chain";
	}
}

/* Structure errors stop this ring until the front-end reconnects
 * (hardening.md P6); other rings keep going. */
void vh_vq_break(struct vh_vq *vq, const char *why)
{
	vq->dp_broken = true;
	vf_ctr_add(vq->st.broken, 1);
	VF_LOG_ONCE(vq->log_broken, VF_LOG_WARN,
		    "%s: vring %u: %s; ring stopped until reconnect",
		    vq->port_name ? vq->port_name : "vhost", vq->idx, why);
}

/* Copies the chain, minus the virtio-net header, into m (chaining more
 * mbufs for frames larger than one).  Returns 0, or -1 to drop. */
static int chain_copy(struct vh_vq *vq, const struct vh_chain *c,
		      uint32_t clen, struct rte_mbuf *m)
{
	uint32_t skip = vq->hdr_len, left = clen - vq->hdr_len;
	struct rte_mbuf *cur = m;
	unsigned int s = 0;
	uint32_t off = 0;

	if (clen <= vq->hdr_len || left > VH_MAX_PKT)
		return -1;
	/* skip the header, which may span segments; with offloads its
	 * fields are kept for vh_ol_dequeue() */
	uint8_t hdr[12];
	uint32_t hl = 0;

	while (skip) {
		uint32_t l = RTE_MIN(skip, c->seg[s].len - off);

		memcpy(hdr + hl, c->seg[s].p + off, l);
		hl += l;

		skip -= l;
		off += l;
		if (off == c->seg[s].len) {
			s++;
			off = 0;
		}
	}
	if (vq->ol.rx_allowed && (hdr[0] | hdr[1]) != 0)
		vh_ol_stash(vq, m, hdr);
	m->pkt_len = left;
	while (left) {
		uint16_t room = rte_pktmbuf_tailroom(cur);

		if (room == 0) {
			struct rte_mbuf *nx = rte_pktmbuf_alloc(vq->pool);

			if (!nx) {
				vf_ctr_add(vq->st.nombuf, 1);
				return -1;
			}
			cur->next = nx;
			m->nb_segs++;
			cur = nx;
			continue;
		}
		uint32_t l = RTE_MIN(left, c->seg[s].len - off);

		l = RTE_MIN(l, (uint32_t)room);
		rte_memcpy(rte_pktmbuf_mtod_offset(cur, uint8_t *, cur->data_len),
			   c->seg[s].p + off, l);
		cur->data_len += l;
		left -= l;
		off += l;
		if (off == c->seg[s].len) {
			s++;
			off = 0;
		}
	}
	return 0;
}

int vh_chain_to_mbuf(struct vh_vq *vq, const struct vh_chain *c,
			 uint32_t clen, struct rte_mbuf *m)
{
	if (chain_copy(vq, c, clen, m) == 0)
		return 0;
	/* the mbuf is reused for the next chain: drop what was added */
	if (m->next) {
		rte_pktmbuf_free(m->next);
		m->next = NULL;
	}
	rte_pktmbuf_reset(m);
	m->hash.usr = 0;	/* no header kept (vh_ol_stash) */
	return -1;
}
