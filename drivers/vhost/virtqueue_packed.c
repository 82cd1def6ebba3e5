/* Packed virtqueues (VIRTIO_F_RING_PACKED), device side: descriptor walk,
 * dequeue and enqueue with one used descriptor per buffer (one per burst
 * for dequeue with IN_ORDER), mergeable rx buffers, and the packed event
 * suppression structures (protocols.md §2.3, §2.4; hardening.md C).  The
 * ring's primitives are in vq_packed.h, its set-up in
 * virtqueue_packed_ring.c. */
#include "virtqueue_packed.h"

#include <errno.h>

#include "common/vring_sync.h"
#include "vf_log.h"
#include "vf_mbuf.h"
#include "vhost_log.h"
#include "virtqueue_common.h"
#include "vq_packed.h"
#include "vq_shared.h"

/* Used descriptors collected before they are written in one go. */
#define PK_SHADOW 256u

/* One descriptor (ring or table entry): direction rules as for split. */
static int add_desc(const struct vh_vq *vq, uint64_t addr, uint32_t len, uint16_t flags,
		    bool want_write, bool *seen_write, struct vh_chain *c, uint64_t *total)
{
	bool w = flags & VRING_DESC_F_WRITE;

	if (w)
		*seen_write = true;
	else if (*seen_write || want_write)
		return VH_WALK_DIRECTION;
	if (w != want_write)
		return VH_WALK_OK;
	*total += len;
	return vh_chain_add(vq->mem, addr, len, c);
}

int vh_packed_walk(const struct vh_vq *vq, uint16_t slot, bool wrap, bool want_write,
		   struct vh_chain *c, uint32_t *len, uint16_t *id, uint16_t *ndesc)
{
	const volatile struct vring_packed_desc *ring = vq->pdesc;
	bool seen_write = false;
	uint64_t total = 0;
	uint16_t n = 0;
	int drop = VH_WALK_OK, rc;

	*len = 0;
	if (slot >= vq->size)
		return VH_WALK_HEAD_RANGE;
	for (;;) {
		/* One fetch of the peer-writable descriptor (hardening.md C8);
		 * the head's flags were acquired by the caller, the others
		 * were written before it (the driver publishes the head last). */
		struct vring_packed_desc d = {
			.addr = ring[slot].addr, .len = ring[slot].len,
			.id = ring[slot].id, .flags = ring[slot].flags,
		};

		if (++n > vq->size)
			return VH_WALK_LOOP;
		if (!desc_avail(d.flags, wrap))
			return VH_WALK_FLAGS;
		if (d.flags & VRING_DESC_F_INDIRECT) {
			const volatile struct vring_packed_desc *tab;
			uint32_t tn = d.len / sizeof(struct vring_packed_desc);

			if (n != 1 || (d.flags & VRING_DESC_F_NEXT) || d.len == 0 ||
			    d.len % sizeof(struct vring_packed_desc) || tn > VH_MAX_INDIRECT)
				return VH_WALK_INDIRECT;
			tab = (const volatile struct vring_packed_desc *)vh_gpa(vq->mem, d.addr, d.len);
			if (!tab)
				return VH_WALK_ADDR;
			for (uint32_t i = 0; i < tn; i++) {
				struct vring_packed_desc t = {
					.addr = tab[i].addr, .len = tab[i].len, .flags = tab[i].flags,
				};

				if (t.flags & VRING_DESC_F_INDIRECT)
					return VH_WALK_INDIRECT;
				rc = add_desc(vq, t.addr, t.len, t.flags, want_write, &seen_write,
					      c, &total);
				if (rc == VH_WALK_TOO_MANY)
					drop = rc;
				else if (rc)
					return rc;
			}
		} else {
			rc = add_desc(vq, d.addr, d.len, d.flags, want_write, &seen_write, c, &total);
			if (rc == VH_WALK_TOO_MANY)
				drop = rc;
			else if (rc)
				return rc;
		}
		if (!(d.flags & VRING_DESC_F_NEXT)) {
			if (d.id >= vq->size)
				return VH_WALK_ID;
			*id = d.id;
			break;
		}
		slot_advance(vq, &slot, &wrap, 1);
	}
	*ndesc = n;
	if (drop)
		return drop;
	if (total > UINT32_MAX)
		return VH_WALK_TOO_LONG;
	*len = (uint32_t)total;
	return VH_WALK_OK;
}

/* ---- used descriptors and calls -------------------------------------- */

struct pk_used {
	uint16_t id, ndesc;
	uint32_t len;
};

struct pk_shadow {
	uint16_t n;
	struct pk_used e[PK_SHADOW];
};

/* Writes the collected used descriptors from last_used on: every body and
 * every flags word but the first, then the first one's flags with release,
 * so the driver sees the whole batch at once (and a mergeable packet's
 * first buffer only after its others). */
static void shadow_flush(struct vh_vq *vq, struct pk_shadow *sh, bool write)
{
	volatile struct vring_packed_desc *ring = vq->pdesc;
	uint16_t slot = vq->last_used, head = slot, head_flags = 0;
	bool wrap = vq->used_wrap;

	for (uint16_t i = 0; i < sh->n; i++) {
		uint16_t f = (wrap ? PK_AVAIL | PK_USED : 0) | (write ? VRING_DESC_F_WRITE : 0);

		ring[slot].id = sh->e[i].id;
		ring[slot].len = sh->e[i].len;
		if (i == 0)
			head_flags = f;
		else
			__atomic_store_n(&ring[slot].flags, f, __ATOMIC_RELAXED);
		slot_advance(vq, &slot, &wrap, sh->e[i].ndesc);
	}
	if (sh->n) {
		const struct vh_log *lg = __atomic_load_n(&vq->dirty_log, __ATOMIC_ACQUIRE);

		vf_store_rel16(&ring[head].flags, head_flags);
		/* Migration: the slots just written, head to the new end
		 * (one lap on at most). */
		if (unlikely(lg != NULL))
			vh_log_packed_used(vq, lg, head, (uint32_t)(slot - head) +
					   (wrap != vq->used_wrap ? vq->size : 0u));
	}
	vq->last_used = slot;
	vq->used_wrap = wrap;
	sh->n = 0;
}

static inline void shadow_add(struct vh_vq *vq, struct pk_shadow *sh, bool write,
			      uint16_t id, uint32_t len, uint16_t ndesc)
{
	if (sh->n == PK_SHADOW)
		shadow_flush(vq, sh, write);
	sh->e[sh->n++] = (struct pk_used){ id, ndesc, len };
}

/* Calls the front-end if its driver event area asks for it for the used
 * range [old, vq->last_used) just published. */
static void pk_call(struct vh_vq *vq, uint16_t old, bool moved)
{
	uint16_t flags, newu = vq->last_used;
	bool call;

	if (!moved)
		return;
	/* Store->load: publish before reading the driver's area, or a
	 * driver that just re-enabled calls is never woken. */
	vf_mb();
	flags = vf_load_acq16(&vq->drv_ev->flags);
	if (flags == VRING_PACKED_EVENT_FLAG_DISABLE) {
		call = false;
	} else if (flags != VRING_PACKED_EVENT_FLAG_DESC || !vq->event_idx) {
		call = true;
	} else {
		uint16_t off_wrap = vf_load_acq16(&vq->drv_ev->off_wrap);
		uint16_t off = off_wrap & (uint16_t)~PK_WRAP_BIT;

		/* Put off, old and new in one lap for vring_need_event(). */
		if (newu <= old)
			old = (uint16_t)(old - vq->size);
		if (!!(off_wrap & PK_WRAP_BIT) != vq->used_wrap)
			off = (uint16_t)(off - vq->size);
		call = vring_need_event(off, newu, old);
	}
	if (call)
		vh_vq_call(vq);
}

/* ---- the four-descriptor fast path (issue 7) --------------------------- */

/* Used descriptors of one dequeue burst: one per buffer, or with
 * IN_ORDER one for the run (the last buffer's id, skipping every slot,
 * §2.4). */
struct pk_done {
	struct pk_shadow sh;
	uint16_t io_id, io_ndesc;
};

static inline void deq_used(struct vh_vq *vq, struct pk_done *dn, uint16_t id, uint16_t nd)
{
	if (!vq->in_order) {
		shadow_add(vq, &dn->sh, false, id, 0, nd);
		return;
	}
	if (dn->io_ndesc && dn->io_ndesc + nd > vq->size) {
		shadow_add(vq, &dn->sh, false, dn->io_id, 0, dn->io_ndesc);
		dn->io_ndesc = 0;
	}
	dn->io_id = id;
	dn->io_ndesc = (uint16_t)(dn->io_ndesc + nd);
}

/* The descriptors of up to n simple buffers (one descriptor each) from
 * last_avail on, in groups of four where a group is aligned and whole,
 * else one by one: each one's fields are fetched once (hardening.md C8),
 * its id checked and its buffer mapped by map(vq, addr, len, k, ctx)
 * into the caller's k-th entry.  The walk stops at the first buffer with
 * anything else (a chain, an indirect table, a frame that does not fit,
 * an address outside the regions, an id out of range): that one is left
 * to the one-at-a-time path, which validates it from scratch.  Returns
 * the buffers taken; *slot and *wrap are where the next one starts.
 * Always inlined with a constant map, so each caller is one loop. */
static __rte_always_inline uint16_t
simple_walk(struct vh_vq *vq, uint16_t n, uint16_t flags, uint16_t *ids, uint16_t *slot, bool *wrap,
	    bool (*map)(struct vh_vq *vq, uint64_t addr, uint32_t len, uint16_t k, void *ctx),
	    void *ctx)
{
	uint16_t cnt = 0, i;

	for (;;) {
		const volatile struct vring_packed_desc *d = &vq->pdesc[*slot];
		uint16_t g = simple_avail(vq, *slot, *wrap, flags, (uint16_t)(n - cnt));

		if (!g)
			break;
		for (i = 0; i < g; i++) {
			uint64_t addr = d[i].addr;
			uint32_t len = d[i].len;
			uint16_t id = d[i].id;

			if (id >= vq->size || !map(vq, addr, len, (uint16_t)(cnt + i), ctx))
				break;
			ids[cnt + i] = id;
		}
		/* the group's good ones are taken, the bad one is left */
		if (i == 4)
			vf_ctr_add(vq->st.batched, 4);
		cnt = (uint16_t)(cnt + i);
		slot_advance(vq, slot, wrap, i);
		if (i < g)
			break;
	}
	return cnt;
}

/* Dequeue's map: a driver-readable buffer holding a frame that fits
 * one mbuf of `room` bytes. */
struct deq_map {
	const uint8_t *src[VH_BATCH];
	uint32_t flen[VH_BATCH];
	uint32_t room;
};

static __rte_always_inline bool deq_map(struct vh_vq *vq, uint64_t addr, uint32_t len, uint16_t k,
					void *ctx)
{
	struct deq_map *dm = ctx;

	dm->src[k] = vh_simple_tx(vq, addr, len, dm->room, &dm->flen[k]);
	return dm->src[k] != NULL;
}

/* Takes simple buffers from last_avail on, at most n (simple_walk):
 * every descriptor is read and every frame prefetched before the first
 * copy into pkts[]. */
static uint16_t deq_batched(struct vh_vq *vq, struct rte_mbuf **pkts, uint16_t n,
			    uint32_t room, struct pk_done *dn, uint64_t *bytes)
{
	struct deq_map dm;
	uint16_t ids[VH_BATCH], slot = vq->last_avail, cnt, i;
	bool wrap = vq->avail_wrap;

	dm.room = room;
	n = (uint16_t)RTE_MIN((unsigned int)n, VH_BATCH);
	cnt = simple_walk(vq, n, 0, ids, &slot, &wrap, deq_map, &dm);
	for (i = 0; i < cnt; i++) {
		struct rte_mbuf *m = pkts[i];

		vh_copy_tx(vq, m, dm.src[i], dm.flen[i]);
		*bytes += dm.flen[i];
		deq_used(vq, dn, ids[i], 1);
	}
	vq->last_avail = slot;
	vq->avail_wrap = wrap;
	return cnt;
}

/* Enqueue's map: a device-writable buffer with room for the header and
 * the k-th packet, which is one mbuf. */
struct enq_map {
	uint8_t *dst[VH_BATCH];
	struct rte_mbuf **pkts;
};

static __rte_always_inline bool enq_map(struct vh_vq *vq, uint64_t addr, uint32_t len, uint16_t k,
					void *ctx)
{
	struct enq_map *em = ctx;

	em->dst[k] = vh_simple_rx(vq, addr, len, em->pkts[k]);
	return em->dst[k] != NULL;
}

/* The same for enqueue. */
static uint16_t enq_batched(struct vh_vq *vq, struct rte_mbuf **pkts, uint16_t n,
			    struct pk_shadow *sh, uint64_t *bytes)
{
	struct enq_map em;
	uint16_t ids[VH_BATCH], slot = vq->last_avail, cnt, i;
	bool wrap = vq->avail_wrap;

	em.pkts = pkts;
	/* never round the ring within one run */
	n = RTE_MIN(n, vq->size);
	n = (uint16_t)RTE_MIN((unsigned int)n, VH_BATCH);
	cnt = simple_walk(vq, n, VRING_DESC_F_WRITE, ids, &slot, &wrap, enq_map, &em);
	for (i = 0; i < cnt; i++) {
		const struct rte_mbuf *m = pkts[i];

		vh_copy_rx(vq, em.dst[i], m);
		*bytes += m->pkt_len;
		shadow_add(vq, sh, true, ids[i], vq->hdr_len + m->pkt_len, 1);
	}
	vh_log_simple_rx_if(vq, em.dst, pkts, cnt);
	vq->last_avail = slot;
	vq->avail_wrap = wrap;
	return cnt;
}

/* ---- dequeue ---------------------------------------------------------- */

uint16_t vh_packed_dequeue(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct vh_vq *vq = q;
	struct pk_done dn;
	uint16_t got = 0, old_used, k = 0;
	uint32_t consumed = 0, room;
	bool moved = false;
	uint64_t bytes = 0;

	if (!__atomic_load_n(&vq->ready, __ATOMIC_ACQUIRE) || vq->dp_broken || n == 0)
		return 0;
	old_used = vq->last_used;	/* the control thread's until ready */
	/* Allocate only for what is there: count the available slots ahead
	 * (an upper bound on the buffers; the flags are read again with
	 * acquire before each buffer is used). */
	{
		/* Before the flags: an empty ring then answers a drain request. */
		uint32_t dreq = __atomic_load_n(&vq->drain_req, __ATOMIC_ACQUIRE);
		uint16_t s = vq->last_avail, cnt = 0;
		bool w = vq->avail_wrap;

		while (cnt < n && desc_avail(__atomic_load_n(&vq->pdesc[s].flags,
							     __ATOMIC_RELAXED), w)) {
			cnt++;
			slot_advance(vq, &s, &w, 1);
		}
		if (cnt == 0) {
			vh_drain_ack(vq, dreq);
			return 0;
		}
		n = cnt;
	}
	if (vf_mbuf_alloc_bulk_len(vq->pool, pkts, n, vq->port_id, 0) != 0) {
		vf_ctr_add(vq->st.nombuf, 1);
		return 0;
	}
	room = vh_mbuf_room(vq);
	dn.sh.n = 0;
	dn.io_ndesc = 0;
	dn.io_id = 0;
	while (k < n) {
		struct vh_chain c;
		uint32_t clen;
		uint16_t id, nd;
		int rc;

		/* Not past slots whose used entries are still unwritten: only
		 * a misbehaving driver re-posts them within one burst. */
		if (consumed >= vq->size)
			break;
		nd = deq_batched(vq, pkts + got,
				 (uint16_t)RTE_MIN((uint32_t)(n - k), vq->size - consumed),
				 room, &dn, &bytes);
		if (nd) {
			got = (uint16_t)(got + nd);
			k = (uint16_t)(k + nd);
			consumed += nd;
			moved = true;
			continue;
		}
		/* One buffer the fast path left.  Acquire: the descriptor
		 * bodies are read after the flags. */
		if (!desc_avail(vf_load_acq16(&vq->pdesc[vq->last_avail].flags), vq->avail_wrap))
			break;
		c.nseg = 0;
		rc = vh_packed_walk(vq, vq->last_avail, vq->avail_wrap, false, &c, &clen,
				    &id, &nd);
		if (rc < 0 && rc != VH_WALK_TOO_MANY && rc != VH_WALK_TOO_LONG) {
			vh_vq_break(vq, vh_walk_err_str(rc));
			break;
		}
		slot_advance(vq, &vq->last_avail, &vq->avail_wrap, nd);
		consumed += nd;
		k++;
		if (rc == 0 && vh_chain_to_mbuf(vq, &c, clen, pkts[got]) == 0) {
			bytes += pkts[got]->pkt_len;
			got++;
		} else {
			vf_ctr_add(vq->st.bad_packet, 1);	/* P5: returned unread */
		}
		moved = true;
		deq_used(vq, &dn, id, nd);
	}
	if (dn.io_ndesc)
		shadow_add(vq, &dn.sh, false, dn.io_id, 0, dn.io_ndesc);
	if (got < n)
		vf_mbuf_free_bulk(&pkts[got], n - got);
	shadow_flush(vq, &dn.sh, false);
	pk_call(vq, old_used, moved);
	vf_ctr_add(vq->st.packets, got);
	vf_ctr_add(vq->st.bytes, bytes);
	return got;
}

/* ---- enqueue ---------------------------------------------------------- */

struct pk_buf {
	uint16_t id, ndesc;
	uint32_t len;	/* capacity */
};

/* Reserves buffers for one packet from (*slot, *wrap), copies it and adds
 * its used descriptors to sh.  On ENQ_FULL and ENQ_DROP nothing is
 * consumed. */
static int enqueue_one(struct vh_vq *vq, struct rte_mbuf *m, struct pk_shadow *sh)
{
	struct pk_buf bufs[VH_MAX_SEGS];
	struct vh_chain c;
	uint32_t need = vq->hdr_len + m->pkt_len, cap = 0;
	uint16_t slot = vq->last_avail, nb = 0, used_slots = 0;
	bool wrap = vq->avail_wrap;

	c.nseg = 0;
	while (cap < need) {
		uint32_t blen;
		uint16_t id, nd;
		int rc;

		if (nb == (vq->mrg_rxbuf ? VH_MAX_SEGS : 1))
			return ENQ_DROP;	/* one buffer without MRG_RXBUF */
		/* A packet cannot take more than the whole ring. */
		if (used_slots >= vq->size ||
		    !desc_avail(vf_load_acq16(&vq->pdesc[slot].flags), wrap))
			return ENQ_FULL;
		rc = vh_packed_walk(vq, slot, wrap, true, &c, &blen, &id, &nd);
		if (rc == VH_WALK_TOO_MANY || rc == VH_WALK_TOO_LONG)
			return ENQ_DROP;
		if (rc < 0) {
			vh_vq_break(vq, vh_walk_err_str(rc));
			return ENQ_BROKEN;
		}
		bufs[nb++] = (struct pk_buf){ id, nd, blen };
		cap += blen;
		used_slots = (uint16_t)(used_slots + nd);
		slot_advance(vq, &slot, &wrap, nd);
		if (cap > (1u << 30))
			return ENQ_DROP;
	}

	vh_copy_rx_chain(vq, &c, m, nb);
	vh_log_chain_if(vq, &c, need);

	/* Keep a packet's buffers in one flush: its first buffer is then
	 * published after the others. */
	if (sh->n + nb > PK_SHADOW)
		shadow_flush(vq, sh, true);

	uint32_t left = need;

	for (uint16_t b = 0; b < nb; b++) {
		uint32_t l = RTE_MIN(left, bufs[b].len);

		shadow_add(vq, sh, true, bufs[b].id, l, bufs[b].ndesc);
		left -= l;
	}
	vq->last_avail = slot;
	vq->avail_wrap = wrap;
	return ENQ_OK;
}

uint16_t vh_packed_enqueue(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct vh_vq *vq = q;
	struct pk_shadow sh;
	uint16_t done = 0, sent = 0, old_used = vq->last_used;
	uint64_t bytes = 0;

	if (!__atomic_load_n(&vq->ready, __ATOMIC_ACQUIRE) || vq->dp_broken)
		return 0;
	sh.n = 0;
	while (done < n) {
		uint16_t k = enq_batched(vq, pkts + done, n - done, &sh, &bytes);

		done = (uint16_t)(done + k);
		sent = (uint16_t)(sent + k);
		if (k)
			continue;
		/* one packet the fast path left: the general path decides */
		int rc = enqueue_one(vq, pkts[done], &sh);

		if (rc == ENQ_OK) {
			sent++;
			bytes += pkts[done]->pkt_len;
		} else if (rc == ENQ_DROP) {
			vf_ctr_add(vq->st.too_big, 1);
		} else {
			if (rc == ENQ_FULL)
				vf_ctr_add(vq->st.ring_full, n - done);
			break;
		}
		done++;
	}
	shadow_flush(vq, &sh, true);
	pk_call(vq, old_used, sent != 0);
	if (done)
		vf_mbuf_free_bulk(pkts, done);
	vf_ctr_add(vq->st.packets, sent);
	vf_ctr_add(vq->st.bytes, bytes);
	return done;
}
