/* Split virtqueues, device side: descriptor walk, dequeue (front-end tx ->
 * our rx burst) and enqueue (our tx burst -> front-end rx), one path for
 * mergeable and non-mergeable rx buffers (protocols.md §2.2, §2.4, §2.5;
 * hardening.md C). */
#include "virtqueue_split.h"

#include <errno.h>

#include "common/vring_sync.h"
#include "vf_log.h"
#include "vf_mbuf.h"
#include "vhost_log.h"
#include "virtqueue_common.h"
#include "vq_shared.h"

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
			int rc = vh_chain_add(vq->mem, d.addr, d.len, c);

			if (rc == VH_WALK_ADDR)
				return rc;
			if (rc)
				drop = rc;
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
	const struct vh_log *lg = __atomic_load_n(&vq->dirty_log, __ATOMIC_ACQUIRE);
	bool call;

	/* Migration: the entries' pages are marked before the index that
	 * publishes them, the index's after it is written. */
	if (unlikely(lg != NULL))
		vh_log_split_used(vq, lg, old, new_used);
	/* Pairs with the driver's acquire of used->idx: entries and data
	 * written above become visible first. */
	vf_store_rel16(&vq->used->idx, new_used);
	vq->last_used = new_used;
	if (unlikely(lg != NULL))
		vh_log_split_idx(vq, lg);
	/* Store->load: publish before reading the driver's suppression
	 * field, or a driver that just re-enabled calls is never woken. */
	vf_mb();
	if (vq->event_idx)
		call = vring_need_event(vf_load_acq16(used_event_p(vq)), new_used, old);
	else
		call = !(vf_load_acq16(&vq->avail->flags) & VRING_AVAIL_F_NO_INTERRUPT);
	if (call)
		vh_vq_call(vq);
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

	if (vd->flags)
		return NULL;
	return vh_simple_tx(vq, addr, len, room, flen);
}

uint16_t vh_split_dequeue(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct vh_vq *vq = q;
	const volatile uint16_t *ring;
	uint16_t avail_idx, cnt, got = 0, used_idx, k;
	uint32_t room, dreq;
	uint64_t bytes = 0;

	if (!__atomic_load_n(&vq->ready, __ATOMIC_ACQUIRE) || vq->dp_broken)
		return 0;
	/* Before the index: an empty ring then answers a drain request. */
	dreq = __atomic_load_n(&vq->drain_req, __ATOMIC_ACQUIRE);
	/* Acquire: avail entries and descriptors are read after the index. */
	avail_idx = vf_load_acq16(&vq->avail->idx);
	cnt = (uint16_t)(avail_idx - vq->last_avail);
	if (cnt == 0) {
		vh_drain_ack(vq, dreq);
		return 0;
	}
	if (cnt > vq->size) {
		vh_vq_break(vq, "avail index moved by more than the ring size");
		return 0;
	}
	cnt = RTE_MIN(cnt, n);
	if (vf_mbuf_alloc_bulk_len(vq->pool, pkts, cnt, vq->port_id, 0) != 0) {
		vf_ctr_add(vq->st.nombuf, 1);
		return 0;
	}
	room = vh_mbuf_room(vq);
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
		}
		for (i = 0; i < nb; i++) {
			struct rte_mbuf *m = pkts[got];
			int ok;

			if (src[i]) {
				vh_copy_tx(vq, m, src[i], flen[i]);
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
				vf_ctr_add(vq->st.bad_packet, 1);
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
	vf_ctr_add(vq->st.packets, got);
	vf_ctr_add(vq->st.bytes, bytes);
	return got;
}

/* ---- enqueue ---------------------------------------------------------- */

struct vh_buf {
	uint16_t head;
	uint32_t len;	/* capacity of this buffer */
};

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

	vh_copy_rx_chain(vq, &c, m, nb);
	vh_log_chain_if(vq, &c, need);

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
 * the header and the one-mbuf packet m: its host address, or NULL when
 * the general path must decide. */
static inline uint8_t *simple_rx(const struct vh_vq *vq, uint16_t head, const struct rte_mbuf *m)
{
	const volatile struct vring_desc *vd = &vq->desc[head];
	/* one fetch of the peer-writable fields (hardening.md C8) */
	uint64_t addr = vd->addr;
	uint32_t len = vd->len;

	if (vd->flags != VRING_DESC_F_WRITE)
		return NULL;
	return vh_simple_rx(vq, addr, len, m);
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
		dst[i] = simple_rx(vq, heads[i], pkts[i]);
		if (!dst[i])
			break;
	}
	nb = i;
	for (i = 0; i < nb; i++) {
		const struct rte_mbuf *m = pkts[i];
		struct vring_used_elem *e = &vq->used->ring[u & vq->mask];

		vh_copy_rx(vq, dst[i], m);
		e->id = heads[i];
		e->len = vq->hdr_len + m->pkt_len;
		*bytes += m->pkt_len;
		u++;
	}
	vh_log_simple_rx_if(vq, dst, pkts, nb);
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
		vf_ctr_add(vq->st.ring_full, n);	/* the front-end posted no buffers */
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
			vf_ctr_add(vq->st.too_big, 1);
		} else {
			break;
		}
		vq->last_avail = avail;
		done++;
	}
	if (done < n && !vq->dp_broken)
		vf_ctr_add(vq->st.ring_full, n - done);
	if (used_idx != vq->last_used) {
		vq_suppress_kicks(vq);
		vq_publish(vq, used_idx);
	}
	if (done)
		vf_mbuf_free_bulk(pkts, done);
	vf_ctr_add(vq->st.packets, sent);
	vf_ctr_add(vq->st.bytes, bytes);
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
