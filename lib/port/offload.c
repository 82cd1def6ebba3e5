/* Software checksum and TCP segmentation for transmit queues whose peer
 * does not take them (vf_offload.h). */
#include "vf_offload.h"
#include "vf_mbuf.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#define TCP_FIN 0x01
#define TCP_PSH 0x08
#define TCP_CWR 0x80

/* The segment of m holding byte off, and the offset inside it; NULL past
 * the end. */
static struct rte_mbuf *seg_at(struct rte_mbuf *m, uint32_t *off)
{
	while (m && *off >= m->data_len) {
		*off -= m->data_len;
		m = m->next;
	}
	return m;
}

static int put_byte(struct rte_mbuf *m, uint32_t off, uint8_t v)
{
	struct rte_mbuf *s = seg_at(m, &off);

	if (!s)
		return -EINVAL;
	*rte_pktmbuf_mtod_offset(s, uint8_t *, off) = v;
	return 0;
}

/* The 16-bit one's complement sum of [off, off + len) of m, across
 * segments.  Ours, not rte_raw_cksum_mbuf(): 22.11's truncates a
 * segment's unreduced sum to 16 bits before swapping it when the segment
 * starts at an odd offset, which loses carries (tests/unit/test_offload.c
 * catches it).  The caller checked the range. */
static uint16_t raw_sum(const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	uint32_t sum = 0, done = 0;

	while (m && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	while (m && done < len) {
		uint32_t l = m->data_len - off, t;

		if (l > len - done)
			l = len - done;
		t = __rte_raw_cksum_reduce(__rte_raw_cksum(rte_pktmbuf_mtod_offset(m, const void *, off),
							   l, 0));
		if (done & 1)
			t = rte_bswap16((uint16_t)t);
		sum += t;
		done += l;
		off = 0;
		m = m->next;
	}
	return __rte_raw_cksum_reduce(sum);
}

int vf_ol_csum_fill(struct rte_mbuf *m, uint32_t start, uint32_t off)
{
	uint16_t sum, v;

	if ((uint64_t)start + off + 2 > m->pkt_len)
		return -EINVAL;
	sum = raw_sum(m, start, m->pkt_len - start);
	/* A computed 0 goes out as 0xffff: for UDP 0 means "no checksum",
	 * for TCP both read the same. */
	v = (uint16_t)~sum;
	if (v == 0)
		v = 0xffff;
	/* rte_raw_cksum sums in host order; the field is stored as summed. */
	if (put_byte(m, start + off, ((uint8_t *)&v)[0]) < 0 ||
	    put_byte(m, start + off + 1, ((uint8_t *)&v)[1]) < 0)
		return -EINVAL;
	return 0;
}

int vf_ol_csum_finish(struct rte_mbuf *m)
{
	uint64_t f = m->ol_flags;
	uint32_t l2 = m->l2_len, l3 = m->l3_len;

	if (f & RTE_MBUF_F_TX_IP_CKSUM) {
		struct rte_ipv4_hdr *ip;

		if (l3 < sizeof(*ip) || l2 + l3 > m->data_len)
			return -EINVAL;
		ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, l2);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		f &= ~RTE_MBUF_F_TX_IP_CKSUM;
	}
	switch (f & RTE_MBUF_F_TX_L4_MASK) {
	case RTE_MBUF_F_TX_TCP_CKSUM:
		if (vf_ol_csum_fill(m, l2 + l3, offsetof(struct rte_tcp_hdr, cksum)) < 0)
			return -EINVAL;
		break;
	case RTE_MBUF_F_TX_UDP_CKSUM:
		if (vf_ol_csum_fill(m, l2 + l3, offsetof(struct rte_udp_hdr, dgram_cksum)) < 0)
			return -EINVAL;
		break;
	case 0:
		break;
	default:
		return -EINVAL;		/* SCTP: nothing of ours asks for it */
	}
	m->ol_flags = f & ~RTE_MBUF_F_TX_L4_MASK;
	return 0;
}

/* The TCP/UDP checksum of [off, off + len) of d with the pseudo-header
 * sum phdr, ready to store (DPDK's mbuf variant is experimental in 22.11
 * and has the carry bug of raw_sum()'s comment). */
static uint16_t l4_cksum(const struct rte_mbuf *d, uint32_t off, uint32_t len, uint16_t phdr)
{
	uint32_t sum = (uint32_t)raw_sum(d, off, len) + phdr;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Reads cursor over a source packet (segments, offset in the current). */
struct src_cur {
	const struct rte_mbuf *s;
	uint32_t off;
};

/* Appends len bytes from the cursor to the chain ending at *last (whose
 * head is d), taking more mbufs from spare[] (*nspare left) when a
 * segment is full. */
static int copy_payload(struct src_cur *c, uint32_t len, struct rte_mbuf *d,
			struct rte_mbuf **last, struct rte_mbuf **spare, unsigned int *nspare)
{
	struct rte_mbuf *t = *last;

	while (len) {
		uint32_t room = rte_pktmbuf_tailroom(t), l;

		while (c->s && c->off == c->s->data_len) {
			c->s = c->s->next;
			c->off = 0;
		}
		if (!c->s)
			return -EINVAL;
		if (room == 0) {
			if (*nspare == 0)
				return -EINVAL;
			t->next = spare[--*nspare];
			t = t->next;
			d->nb_segs++;
			continue;
		}
		l = (uint32_t)c->s->data_len - c->off;
		l = RTE_MIN(l, room);
		l = RTE_MIN(l, len);
		memcpy(rte_pktmbuf_mtod_offset(t, uint8_t *, t->data_len),
		       rte_pktmbuf_mtod_offset(c->s, const uint8_t *, c->off), l);
		t->data_len = (uint16_t)(t->data_len + l);
		d->pkt_len += l;
		c->off += l;
		len -= l;
	}
	*last = t;
	return 0;
}

int vf_ol_tso_segment(const struct rte_mbuf *m, struct rte_mempool *mp,
		      struct rte_mbuf **out, unsigned int max)
{
	uint8_t buf[VF_OL_HDR_MAX];
	const uint8_t *h;
	uint32_t l2 = m->l2_len, l3 = m->l3_len, l4 = m->l4_len, hl = l2 + l3 + l4;
	uint32_t mss = m->tso_segsz, payload, nseg, room, seq0;
	bool v6 = m->ol_flags & RTE_MBUF_F_TX_IPV6;
	uint16_t id0 = 0;
	struct src_cur cur;
	unsigned int k;

	if (l2 < 14 || l3 < 20 || l4 < sizeof(struct rte_tcp_hdr) || hl > VF_OL_HDR_MAX ||
	    hl > m->pkt_len || mss == 0 || m->pkt_len - l2 > VF_OL_TSO_MAX)
		return -EINVAL;
	h = rte_pktmbuf_read(m, 0, hl, buf);
	if (!h)
		return -EINVAL;
	if (v6) {
		if ((h[l2] >> 4) != 6 || l3 != sizeof(struct rte_ipv6_hdr) ||
		    h[l2 + 6] != IPPROTO_TCP)
			return -EINVAL;
	} else {
		if ((h[l2] >> 4) != 4 || (uint32_t)(h[l2] & 0xf) * 4 != l3 ||
		    h[l2 + 9] != IPPROTO_TCP)
			return -EINVAL;
		id0 = (uint16_t)(h[l2 + 4] << 8 | h[l2 + 5]);
	}
	if ((uint32_t)(h[l2 + l3 + 12] >> 4) * 4 != l4)
		return -EINVAL;
	payload = m->pkt_len - hl;
	nseg = payload ? (payload + mss - 1) / mss : 1;
	if (nseg > max)
		return -ENOSPC;
	room = rte_pktmbuf_data_room_size(mp) - RTE_PKTMBUF_HEADROOM;
	if (room < hl)
		return -EINVAL;
	memcpy(&seq0, h + l2 + l3 + 4, 4);
	seq0 = rte_be_to_cpu_32(seq0);
	cur.s = m;
	cur.off = 0;
	/* skip the headers in the source */
	{
		uint32_t o = hl;

		while (cur.s && o >= cur.s->data_len) {
			o -= cur.s->data_len;
			cur.s = cur.s->next;
		}
		cur.off = o;
	}
	for (k = 0; k < nseg; k++) {
		uint32_t po = k * mss, plen = RTE_MIN(mss, payload - po);
		/* mbufs this segment needs: headers and payload at `room` each */
		unsigned int need = (hl + plen + room - 1) / room, nspare;
		struct rte_mbuf *segs[8], *d, *last;
		uint8_t *p;

		if (need > RTE_DIM(segs) || rte_pktmbuf_alloc_bulk(mp, segs, need) < 0)
			goto nobufs;
		d = segs[0];
		nspare = need - 1;
		/* spare[] is taken from the end: keep segs[0] out of it */
		memcpy(rte_pktmbuf_mtod(d, uint8_t *), h, hl);
		d->data_len = (uint16_t)hl;
		d->pkt_len = hl;
		last = d;
		out[k] = d;
		if (copy_payload(&cur, plen, d, &last, segs + 1, &nspare) < 0) {
			for (unsigned int j = 0; j < nspare; j++)
				rte_pktmbuf_free(segs[1 + j]);
			k++;
			goto bad;
		}
		d->port = m->port;
		d->packet_type = m->packet_type;
		d->l2_len = l2;
		d->l3_len = l3;
		d->l4_len = l4;
		p = rte_pktmbuf_mtod(d, uint8_t *);
		{
			struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)(p + l2 + l3);
			uint8_t fl = th->tcp_flags;

			if (k + 1 < nseg)
				fl &= (uint8_t)~(TCP_FIN | TCP_PSH);
			if (k > 0)
				fl &= (uint8_t)~TCP_CWR;
			th->tcp_flags = fl;
			th->sent_seq = rte_cpu_to_be_32(seq0 + po);
			th->cksum = 0;
			if (v6) {
				struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(p + l2);

				ip6->payload_len = rte_cpu_to_be_16((uint16_t)(l4 + plen));
				th->cksum = l4_cksum(d, l2 + l3, l4 + plen,
						     rte_ipv6_phdr_cksum(ip6, 0));
			} else {
				struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + l2);

				ip->total_length = rte_cpu_to_be_16((uint16_t)(l3 + l4 + plen));
				ip->packet_id = rte_cpu_to_be_16((uint16_t)(id0 + k));
				ip->hdr_checksum = 0;
				ip->hdr_checksum = rte_ipv4_cksum(ip);
				th->cksum = l4_cksum(d, l2 + l3, l4 + plen,
						     rte_ipv4_phdr_cksum(ip, 0));
			}
		}
	}
	return (int)nseg;
nobufs:
	for (unsigned int j = 0; j < k; j++)
		rte_pktmbuf_free(out[j]);
	return -ENOBUFS;
bad:
	for (unsigned int j = 0; j < k; j++)
		rte_pktmbuf_free(out[j]);
	return -EINVAL;
}

/* Outputs one chunk of the general path may hold. */
#define OL_OUT_MAX 256

enum { K_PASS, K_TSO, K_BAD, K_NOMBUF };

uint16_t vf__ol_tx_sw(void *q, vf_ol_tx_fn tx, struct vf_ol_txq *ol,
		      struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *out[OL_OUT_MAX];
	uint16_t ends[OL_OUT_MAX];
	uint8_t kind[OL_OUT_MAX];
	uint32_t caps = ol->caps;
	uint16_t done = 0;

	while (done < n) {
		uint16_t no = 0, ni = 0, s, consumed = 0;

		while (done + ni < n && no < OL_OUT_MAX) {
			struct rte_mbuf *m = pkts[done + ni];
			uint64_t f = m->ol_flags;
			uint8_t kd = K_PASS;

			if ((f & VF_OL_TX_MASK) && vf_ol_needs_sw(m, caps)) {
				bool tso_cap = caps & ((f & RTE_MBUF_F_TX_IPV6) ?
						       VF_OL_CAP_TSO6 : VF_OL_CAP_TSO4);

				if ((f & RTE_MBUF_F_TX_TCP_SEG) && !tso_cap) {
					int k = vf_ol_tso_segment(m, m->pool, out + no,
								  OL_OUT_MAX - no);

					if (k == -ENOSPC && no > 0)
						break;	/* next chunk */
					if (k > 0) {
						no = (uint16_t)(no + k);
						ol->st.sw_tso++;
						ol->st.sw_tso_segs += (uint64_t)k;
						kd = K_TSO;
					} else {
						kd = k == -ENOBUFS ? K_NOMBUF : K_BAD;
					}
				} else if (!vf_mbuf_owned(m)) {
					kd = K_BAD;	/* not ours to write */
				} else {
					/* What the peer takes stays asked. */
					uint64_t keep = f & (RTE_MBUF_F_TX_TCP_SEG |
							     ((caps & VF_OL_CAP_CSUM) ?
							      RTE_MBUF_F_TX_L4_MASK : 0));

					m->ol_flags = f & ~keep;
					if (f & RTE_MBUF_F_TX_TCP_SEG)
						m->ol_flags &= ~RTE_MBUF_F_TX_L4_MASK;
					if (vf_ol_csum_finish(m) == 0) {
						m->ol_flags |= keep;
						ol->st.sw_csum++;
						out[no++] = m;
					} else {
						m->ol_flags = f;
						kd = K_BAD;
					}
				}
			} else {
				out[no++] = m;
			}
			kind[ni] = kd;
			ends[ni++] = no;
		}
		s = no ? tx(q, out, no) : 0;
		for (uint16_t j = 0; j < ni; j++) {
			uint16_t st = j ? ends[j - 1] : 0, en = ends[j];
			struct rte_mbuf *m = pkts[done + j];

			if (st == en) {			/* dropped: no output */
				if (st > s)
					continue;	/* behind an unsent one: the caller's */
				if (kind[j] == K_NOMBUF)
					ol->st.sw_nombuf++;
				else
					ol->st.sw_bad++;
				rte_pktmbuf_free(m);
				consumed = (uint16_t)(j + 1);
			} else if (en <= s) {		/* all sent */
				if (kind[j] == K_TSO)
					rte_pktmbuf_free(m);
				consumed = (uint16_t)(j + 1);
			} else if (st < s) {		/* a TSO frame cut short */
				ol->st.sw_unsent += (uint64_t)(en - s);
				for (uint16_t o = s; o < en; o++)
					rte_pktmbuf_free(out[o]);
				rte_pktmbuf_free(m);
				consumed = (uint16_t)(j + 1);
			} else if (kind[j] == K_TSO) {	/* unsent: the caller keeps m */
				for (uint16_t o = st; o < en; o++)
					rte_pktmbuf_free(out[o]);
			}
		}
		done = (uint16_t)(done + consumed);
		if (consumed < ni || s < no)
			break;
	}
	return done;
}
