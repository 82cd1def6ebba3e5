/* Frames longer than one mbuf's data room (jumbo --txpkts, up to 9000
 * bytes): the generator builds the frame whole in a scratch buffer of its
 * stream and copies it into a first segment and tails chained behind it.
 * The tails of a burst are taken from the pool at once (vf_frames_tails),
 * so the hot path stays a bulk get per burst; frames that fit one segment
 * never come here. */
#ifndef VF_CHAIN_H
#define VF_CHAIN_H

#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_memcpy.h>

#define VF_CHAIN_MAX_SEGS 8	/* 9000 bytes in segments of 1152 and up */

/* Bytes a stream needs beside its frames for lengths up to max in
 * segments of seg: a whole frame (scratch) and the tails of a burst of
 * burst frames; 0 when every frame fits one segment. */
static inline size_t vf_chain_mem_size(unsigned int max, uint32_t seg, unsigned int burst)
{
	if (max <= seg)
		return 0;
	return RTE_ALIGN_CEIL(max, 64) + sizeof(struct rte_mbuf *) * burst * ((max + seg - 1) / seg - 1);
}

/* The scratch frame and the tails array in mem (vf_chain_mem_size bytes). */
static inline void vf_chain_layout(void *mem, unsigned int max, uint8_t **scratch,
				   struct rte_mbuf ***tails)
{
	*scratch = mem;
	*tails = (struct rte_mbuf **)RTE_PTR_ADD(mem, RTE_ALIGN_CEIL(max, 64));
}

/* Copies len bytes of src into m (a fresh single-segment mbuf with seg
 * bytes of room) and, past seg bytes, into fresh mbufs from tails, chained
 * behind it.  Returns the tails used. */
static inline unsigned int vf_chain_fill(struct rte_mbuf *m, const uint8_t *src, uint32_t len,
					 uint32_t seg, struct rte_mbuf **tails)
{
	uint32_t off = len < seg ? len : seg;
	struct rte_mbuf *last = m;
	unsigned int k = 0;

	rte_memcpy(rte_pktmbuf_mtod(m, void *), src, off);
	m->data_len = (uint16_t)off;
	m->pkt_len = len;
	while (off < len) {
		struct rte_mbuf *t = tails[k++];
		uint32_t n = len - off < seg ? len - off : seg;

		rte_memcpy(rte_pktmbuf_mtod(t, void *), src + off, n);
		t->data_len = (uint16_t)n;
		t->pkt_len = n;
		last->next = t;
		last = t;
		m->nb_segs++;
		off += n;
	}
	return k;
}

#endif
