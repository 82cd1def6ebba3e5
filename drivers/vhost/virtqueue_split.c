/* Split virtqueues, device side: descriptor walk, dequeue (front-end tx ->
 * our rx burst) and enqueue (our tx burst -> front-end rx), one path for
 * mergeable and non-mergeable rx buffers (protocols.md §2.2, §2.4, §2.5;
 * hardening.md C). */
#include "virtqueue.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <linux/virtio_net.h>
#include <rte_memcpy.h>

#include "common/vring_sync.h"
#include "vf_log.h"
#include "vf_mbuf.h"

/* Largest frame we assemble from a front-end chain (bytes after the header). */
#define VH_MAX_PKT 65535u
/* Longest indirect table we accept (entries), as Linux. */
#define VH_MAX_INDIRECT 32768u

int vh_split_walk(const struct vh_vq *vq, uint16_t head, bool want_write,
		  struct vh_chain *c, uint32_t *len)
{
	const volatile struct vring_desc *tab = vq->desc;
	uint32_t tab_n = vq->size, hops = 0, i = head;
	bool in_table = false, seen_write = false;
	uint64_t total = 0;
	int drop = VH_WALK_OK;

	*len = 0;
	if (head >= vq->size)
		return VH_WALK_HEAD_RANGE;
	for (;;) {
		/* One fetch of the peer-writable descriptor; only the copy
		 * is used below (hardening.md C8). */
		struct vring_desc d = {
			.addr = tab[i].addr, .len = tab[i].len,
			.flags = tab[i].flags, .next = tab[i].next,
		};

		/* A top-level indirect descriptor is a hop too. */
		if (++hops > tab_n)
			return VH_WALK_LOOP;
		if (d.flags & VRING_DESC_F_INDIRECT) {
			if (in_table || (d.flags & VRING_DESC_F_NEXT) ||
			    d.len == 0 || d.len % sizeof(struct vring_desc) ||
			    d.len / sizeof(struct vring_desc) > VH_MAX_INDIRECT)
				return VH_WALK_INDIRECT;
			tab = (const volatile struct vring_desc *)
				vh_gpa(vq->mem, d.addr, d.len);
			if (!tab)
				return VH_WALK_ADDR;
			tab_n = d.len / sizeof(struct vring_desc);
			hops = 0;
			i = 0;
			in_table = true;
			continue;
		}
		bool w = d.flags & VRING_DESC_F_WRITE;

		if (w)
			seen_write = true;
		else if (seen_write || want_write)
			return VH_WALK_DIRECTION;
		if (w == want_write) {
			uint64_t addr = d.addr, left = d.len;

			while (left) {
				uint64_t part = left;
				uint8_t *p = vh_gpa_part(vq->mem, addr, &part);

				if (!p)
					return VH_WALK_ADDR;
				if (c->nseg == VH_MAX_SEGS)
					drop = VH_WALK_TOO_MANY;
				else
					c->seg[c->nseg++] = (struct vh_seg){ p, (uint32_t)part };
				addr += part;	/* cannot wrap: regions do not */
				left -= part;
			}
			total += d.len;
		}
		if (!(d.flags & VRING_DESC_F_NEXT))
			break;
		if (d.next >= tab_n)
			return VH_WALK_NEXT_RANGE;
		i = d.next;
	}
	if (drop)
		return drop;
	if (total > UINT32_MAX)
		return VH_WALK_TOO_LONG;
	*len = (uint32_t)total;
	return VH_WALK_OK;
}

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
	vq->st.broken++;
	VF_LOG_ONCE(vq->log_broken, VF_LOG_WARN,
		    "%s: vring %u: %s; ring stopped until reconnect",
		    vq->port_name ? vq->port_name : "vhost", vq->idx, why);
}

static inline uint16_t *used_event_p(const struct vh_vq *vq)
{
	return &vq->avail->ring[vq->size];
}

static inline uint16_t *avail_event_p(const struct vh_vq *vq)
{
	return (uint16_t *)&vq->used->ring[vq->size];
}

/* Publishes used entries [last_used, new_used) and calls the front-end if
 * it asked for it. */
static void vq_publish(struct vh_vq *vq, uint16_t new_used)
{
	uint16_t old = vq->last_used;
	bool call;

	/* Pairs with the driver's acquire of used->idx: entries and data
	 * written above become visible first. */
	vf_store_rel16(&vq->used->idx, new_used);
	vq->last_used = new_used;
	/* Store->load: publish before reading the driver's suppression
	 * field, or a driver that just re-enabled calls is never woken. */
	vf_mb();
	if (vq->event_idx)
		call = vring_need_event(vf_load_acq16(used_event_p(vq)), new_used, old);
	else
		call = !(vf_load_acq16(&vq->avail->flags) & VRING_AVAIL_F_NO_INTERRUPT);
	if (call) {
		int fd = __atomic_load_n(&vq->callfd, __ATOMIC_ACQUIRE);

		if (fd >= 0) {
			uint64_t one = 1;

			if (write(fd, &one, sizeof(one)) == sizeof(one))
				vq->st.calls++;
		}
	}
}

/* We poll and never want kicks: with EVENT_IDX keep avail_event half the
 * index space ahead, which the driver's avail index cannot pass (it is at
 * most `size` ahead of what we consumed). */
static inline void vq_suppress_kicks(struct vh_vq *vq)
{
	if (vq->event_idx)
		__atomic_store_n(avail_event_p(vq), (uint16_t)(vq->last_avail + 0x8000),
				 __ATOMIC_RELAXED);
}

/* ---- dequeue ---------------------------------------------------------- */

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
	/* skip the header, which may span segments */
	while (skip) {
		uint32_t l = RTE_MIN(skip, c->seg[s].len - off);

		skip -= l;
		off += l;
		if (off == c->seg[s].len) {
			s++;
			off = 0;
		}
	}
	m->pkt_len = left;
	while (left) {
		uint16_t room = rte_pktmbuf_tailroom(cur);

		if (room == 0) {
			struct rte_mbuf *nx = rte_pktmbuf_alloc(vq->pool);

			if (!nx) {
				vq->st.nombuf++;
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
	return -1;
}

/* Descriptors looked at ahead of their copies: their reads and the
 * frames' first cache lines are in flight together. */
#define VH_BATCH 32u

/* The common dequeue case, one readable descriptor holding the header
 * and a frame that fits one mbuf: src gets the frame, or NULL when the
 * chain needs the general walk (which validates it from scratch). */
static inline const uint8_t *simple_tx(const struct vh_vq *vq, uint16_t head,
				       uint32_t room, uint32_t *flen)
{
	const volatile struct vring_desc *vd = &vq->desc[head];
	/* one fetch of the peer-writable fields (hardening.md C8) */
	uint64_t addr = vd->addr;
	uint32_t len = vd->len;
	uint16_t flags = vd->flags;
	const uint8_t *p;

	if (flags || len <= vq->hdr_len || len - vq->hdr_len > room)
		return NULL;
	p = vh_gpa(vq->mem, addr, len);
	if (!p)
		return NULL;
	*flen = len - vq->hdr_len;
	return p + vq->hdr_len;
}

uint16_t vh_split_dequeue(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct vh_vq *vq = q;
	const volatile uint16_t *ring;
	uint16_t avail_idx, cnt, got = 0, used_idx, k;
	uint32_t room;
	uint64_t bytes = 0;

	if (!__atomic_load_n(&vq->ready, __ATOMIC_ACQUIRE) || vq->dp_broken)
		return 0;
	/* Acquire: avail entries and descriptors are read after the index. */
	avail_idx = vf_load_acq16(&vq->avail->idx);
	cnt = (uint16_t)(avail_idx - vq->last_avail);
	if (cnt == 0)
		return 0;
	if (cnt > vq->size) {
		vh_vq_break(vq, "avail index moved by more than the ring size");
		return 0;
	}
	cnt = RTE_MIN(cnt, n);
	if (vf_mbuf_alloc_bulk_len(vq->pool, pkts, cnt, vq->port_id, 0) != 0) {
		vq->st.nombuf++;
		return 0;
	}
	room = rte_pktmbuf_data_room_size(vq->pool) - RTE_PKTMBUF_HEADROOM;
	ring = vq->avail->ring;
	used_idx = vq->last_used;
	for (k = 0; k < cnt;) {
		uint16_t nb = (uint16_t)RTE_MIN((unsigned int)(cnt - k), VH_BATCH), heads[VH_BATCH], i;
		const uint8_t *src[VH_BATCH];
		uint32_t flen[VH_BATCH];
		bool stop = false;

		for (i = 0; i < nb; i++) {
			heads[i] = ring[(uint16_t)(vq->last_avail + i) & vq->mask];
			if (heads[i] < vq->size)
				rte_prefetch0((const void *)&vq->desc[heads[i]]);
		}
		for (i = 0; i < nb; i++) {
			src[i] = heads[i] < vq->size ? simple_tx(vq, heads[i], room, &flen[i]) : NULL;
			if (src[i]) {
				rte_prefetch0(src[i]);
				if (flen[i] > RTE_CACHE_LINE_SIZE)
					rte_prefetch0(src[i] + RTE_CACHE_LINE_SIZE);
			}
		}
		for (i = 0; i < nb; i++) {
			struct rte_mbuf *m = pkts[got];
			int ok;

			if (src[i]) {
				rte_memcpy(rte_pktmbuf_mtod(m, void *), src[i], flen[i]);
				m->data_len = (uint16_t)flen[i];
				m->pkt_len = flen[i];
				ok = 1;
			} else {
				struct vh_chain c;
				uint32_t clen;
				int rc;

				c.nseg = 0;
				rc = vh_split_walk(vq, heads[i], false, &c, &clen);
				if (rc < 0 && rc > VH_WALK_TOO_MANY) {
					vh_vq_break(vq, vh_walk_err_str(rc));
					stop = true;
					break;
				}
				ok = rc == 0 && vh_chain_to_mbuf(vq, &c, clen, m) == 0;
			}
			vq->last_avail++;
			if (ok) {
				bytes += m->pkt_len;
				got++;
			} else {
				/* P5: give the buffer back unread, keep the ring moving */
				vq->st.bad_packet++;
			}
			vq->used->ring[used_idx & vq->mask].id = heads[i];
			vq->used->ring[used_idx & vq->mask].len = 0;
			used_idx++;
		}
		if (stop)
			break;
		k = (uint16_t)(k + nb);
	}
	if (got < cnt)
		vf_mbuf_free_bulk(&pkts[got], cnt - got);
	if (used_idx != vq->last_used) {
		vq_suppress_kicks(vq);
		vq_publish(vq, used_idx);
	}
	vq->st.packets += got;
	vq->st.bytes += bytes;
	return got;
}

/* ---- enqueue ---------------------------------------------------------- */

struct vh_buf {
	uint16_t head;
	uint32_t len;	/* capacity of this buffer */
};

enum { ENQ_OK, ENQ_FULL, ENQ_DROP, ENQ_BROKEN };

/* Reserves buffers for one packet starting at *avail, copies it and writes
 * its used entries from *used_idx.  On ENQ_FULL and ENQ_DROP nothing is
 * consumed (*avail and *used_idx unchanged). */
static int enqueue_one(struct vh_vq *vq, struct rte_mbuf *m, uint16_t avail_idx,
		       uint16_t *avail, uint16_t *used_idx)
{
	struct vh_buf bufs[VH_MAX_SEGS];
	struct vh_chain c;
	uint32_t need = vq->hdr_len + m->pkt_len, cap = 0;
	uint16_t a = *avail, nb = 0;

	c.nseg = 0;
	while (cap < need) {
		uint32_t blen;
		uint16_t head;
		int rc;

		if (a == avail_idx)
			return ENQ_FULL;
		if (nb == (vq->mrg_rxbuf ? VH_MAX_SEGS : 1))
			return ENQ_DROP;	/* one buffer without MRG_RXBUF */
		head = ((volatile uint16_t *)vq->avail->ring)[a & vq->mask];
		rc = vh_split_walk(vq, head, true, &c, &blen);
		if (rc == VH_WALK_TOO_MANY)
			return ENQ_DROP;
		if (rc < 0) {
			vh_vq_break(vq, vh_walk_err_str(rc));
			return ENQ_BROKEN;
		}
		bufs[nb].head = head;
		bufs[nb].len = blen;
		nb++;
		cap += blen;
		a++;
		if (cap > (1u << 30))
			return ENQ_DROP;
	}

	struct virtio_net_hdr_mrg_rxbuf hdr = { .num_buffers = vq->mrg_rxbuf ? nb : 1 };
	struct vh_cursor cu = { .c = &c };

	vh_cursor_write(&cu, &hdr, vq->hdr_len);
	for (const struct rte_mbuf *s = m; s; s = s->next)
		vh_cursor_write(&cu, rte_pktmbuf_mtod(s, const void *), s->data_len);

	uint32_t left = need;
	uint16_t u = *used_idx;

	/* One used entry per buffer, each with its own length (DPDK's
	 * in-order rx reads every slot). */
	for (uint16_t b = 0; b < nb; b++) {
		uint32_t l = RTE_MIN(left, bufs[b].len);

		vq->used->ring[u & vq->mask].id = bufs[b].head;
		vq->used->ring[u & vq->mask].len = l;
		left -= l;
		u++;
	}
	*avail = a;
	*used_idx = u;
	return ENQ_OK;
}

/* The common enqueue case, one device-writable descriptor with room for
 * the header and a one-mbuf packet of need bytes: its host address, or
 * NULL when the general path must decide. */
static inline uint8_t *simple_rx(const struct vh_vq *vq, uint16_t head, uint32_t need)
{
	const volatile struct vring_desc *vd = &vq->desc[head];
	/* one fetch of the peer-writable fields (hardening.md C8) */
	uint64_t addr = vd->addr;
	uint32_t len = vd->len;
	uint16_t flags = vd->flags;

	if (flags != VRING_DESC_F_WRITE || len < need)
		return NULL;
	return vh_gpa(vq->mem, addr, need);
}

/* Copies the longest run of simple packets from pkts (at most VH_BATCH):
 * every descriptor is read and every destination prefetched before the
 * first copy.  Returns the packets sent; the caller takes the rest
 * through enqueue_one(). */
static uint16_t enqueue_simple(struct vh_vq *vq, struct rte_mbuf **pkts, uint16_t n,
			       uint16_t avail_idx, uint16_t *used_idx, uint64_t *bytes)
{
	const volatile uint16_t *ring = vq->avail->ring;
	uint16_t heads[VH_BATCH], i, nb;
	uint8_t *dst[VH_BATCH];
	uint16_t u = *used_idx;

	nb = (uint16_t)(avail_idx - vq->last_avail);
	nb = RTE_MIN(nb, n);
	nb = (uint16_t)RTE_MIN((unsigned int)nb, VH_BATCH);
	for (i = 0; i < nb; i++) {
		heads[i] = ring[(uint16_t)(vq->last_avail + i) & vq->mask];
		if (heads[i] >= vq->size)
			break;
		rte_prefetch0((const void *)&vq->desc[heads[i]]);
	}
	nb = i;
	for (i = 0; i < nb; i++) {
		const struct rte_mbuf *m = pkts[i];

		if (m->nb_segs != 1)
			break;
		dst[i] = simple_rx(vq, heads[i], vq->hdr_len + m->pkt_len);
		if (!dst[i])
			break;
		__builtin_prefetch(dst[i], 1, 3);	/* for writing */
	}
	nb = i;
	for (i = 0; i < nb; i++) {
		const struct rte_mbuf *m = pkts[i];
		/* num_buffers 1: a mergeable packet in one buffer too */
		struct virtio_net_hdr_mrg_rxbuf hdr = { .num_buffers = 1 };
		struct vring_used_elem *e = &vq->used->ring[u & vq->mask];

		if (vq->hdr_len == sizeof(hdr))
			memcpy(dst[i], &hdr, sizeof(hdr));
		else
			memcpy(dst[i], &hdr, sizeof(struct virtio_net_hdr));
		rte_memcpy(dst[i] + vq->hdr_len, rte_pktmbuf_mtod(m, const void *), m->pkt_len);
		e->id = heads[i];
		e->len = vq->hdr_len + m->pkt_len;
		*bytes += m->pkt_len;
		u++;
	}
	vq->last_avail = (uint16_t)(vq->last_avail + nb);
	*used_idx = u;
	return nb;
}

uint16_t vh_split_enqueue(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct vh_vq *vq = q;
	uint16_t avail_idx, avail, used_idx, done = 0, sent = 0;
	uint64_t bytes = 0;

	if (!__atomic_load_n(&vq->ready, __ATOMIC_ACQUIRE) || vq->dp_broken)
		return 0;
	avail_idx = vf_load_acq16(&vq->avail->idx);
	if ((uint16_t)(avail_idx - vq->last_avail) > vq->size) {
		vh_vq_break(vq, "avail index moved by more than the ring size");
		return 0;
	}
	if (avail_idx == vq->last_avail) {
		vq->st.ring_full += n;	/* the front-end posted no buffers */
		return 0;
	}
	used_idx = vq->last_used;
	while (done < n) {
		uint16_t k = enqueue_simple(vq, pkts + done, n - done, avail_idx, &used_idx,
					    &bytes);

		done = (uint16_t)(done + k);
		sent = (uint16_t)(sent + k);
		if (k == VH_BATCH)
			continue;
		if (done == n || vq->last_avail == avail_idx)
			break;
		/* one packet the fast path left: the general path decides */
		avail = vq->last_avail;
		int rc = enqueue_one(vq, pkts[done], avail_idx, &avail, &used_idx);

		if (rc == ENQ_OK) {
			sent++;
			bytes += pkts[done]->pkt_len;
		} else if (rc == ENQ_DROP) {
			vq->st.too_big++;
		} else {
			break;
		}
		vq->last_avail = avail;
		done++;
	}
	if (done < n && !vq->dp_broken)
		vq->st.ring_full += n - done;
	if (used_idx != vq->last_used) {
		vq_suppress_kicks(vq);
		vq_publish(vq, used_idx);
	}
	if (done)
		vf_mbuf_free_bulk(pkts, done);
	vq->st.packets += sent;
	vq->st.bytes += bytes;
	return done;
}

/* ---- control side ----------------------------------------------------- */

int vh_split_map(struct vh_vq *vq, const struct vh_mem *mem, const char **why)
{
	uint64_t ev = vq->event_idx ? 2 : 0;
	uint64_t n = vq->size;
	void *d, *a, *u;

	vq->desc = NULL;
	vq->avail = NULL;
	vq->used = NULL;
	if (!n) {
		*why = "ring size not set";
		return -EINVAL;
	}
	d = vh_uva(mem, vq->addr.desc_user_addr, 16 * n);
	a = vh_uva(mem, vq->addr.avail_user_addr, 4 + 2 * n + ev);
	u = vh_uva(mem, vq->addr.used_user_addr, 4 + 8 * n + ev);
	if (!d || !a || !u) {
		*why = "ring address outside the memory table";
		return -EINVAL;
	}
	if ((uintptr_t)d % 16 || (uintptr_t)a % 2 || (uintptr_t)u % 4) {
		*why = "misaligned ring";
		return -EINVAL;
	}
	vq->desc = d;
	vq->avail = a;
	vq->used = u;
	vq->mem = mem;
	return 0;
}

void vh_split_start(struct vh_vq *vq)
{
	uint16_t used = vf_load_acq16(&vq->used->idx);

	vq->mask = vq->size - 1;
	/* SET_VRING_BASE only carries the avail index: take the used index
	 * from memory, and resume both from it if they disagree. */
	if (used != vq->last_avail) {
		VF_DEBUG("%s: vring %u: last_avail %u, used->idx %u: resuming at %u",
			 vq->port_name ? vq->port_name : "vhost", vq->idx,
			 vq->last_avail, used, used);
		vq->last_avail = used;
	}
	vq->last_used = used;
	vq->dp_broken = false;
	vq->log_broken = false;
	if (!vq->event_idx)
		__atomic_store_n(&vq->used->flags, VRING_USED_F_NO_NOTIFY, __ATOMIC_RELAXED);
	else
		__atomic_store_n(&vq->used->flags, 0, __ATOMIC_RELAXED);
	vq_suppress_kicks(vq);
}
