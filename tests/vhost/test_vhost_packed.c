/* Packed virtqueues, device side, against a driver played by the test in
 * memfd-backed "front-end" memory with real mbufs: traffic both ways
 * across many wrap-arounds (ring sizes 64, 256, 1024; bursts and chains
 * straddling the wrap; IN_ORDER batched completions; mergeable rx), event
 * suppression with the packed event structures, and bad driver input
 * (id out of range, flags of the wrong lap, chains longer than the ring,
 * descriptors crossing the region end, bad indirect tables). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>

#include <cmocka.h>
#include <linux/virtio_net.h>
#include <rte_mbuf.h>

#include "vf_runtime.h"
#include "vhost/virtqueue.h"
#include "vh_testring.h"

#define GSZ (8u << 20)
#define DESC_OFF 0x0
#define DRV_OFF 0x8000		/* driver event area */
#define DEV_OFF 0x9000		/* device event area */
#define TAB_OFF 0xa000		/* indirect tables */
#define BUF_OFF 0x10000		/* one 2 KiB buffer per ring slot */
#define BUF_SZ 2048u
#define POOL_N 2048u

#define F_AVAIL (1u << VRING_PACKED_DESC_F_AVAIL)
#define F_USED (1u << VRING_PACKED_DESC_F_USED)

static struct rte_mempool *pool;

struct params {
	uint16_t size;
	bool in_order, mrg, event_idx;
};

/* The driver side: its own wrap counters and the chains it posted, in
 * order, so completions (one per buffer, or one per batch) can be
 * matched. */
struct drv {
	uint16_t avail_slot, used_slot;
	bool avail_wrap, used_wrap;
	uint16_t next_id;
	uint16_t fifo_id[1024], fifo_nd[1024];
	uint32_t fifo_head, fifo_tail;	/* free-running */
	uint32_t in_flight;		/* descriptors */
};

struct fx {
	struct params p;
	struct guest g;
	struct vh_mem mem;
	struct vh_vq vq;
	struct vring_packed_desc *d;
	struct vring_packed_desc_event *drv_ev, *dev_ev;
	struct drv drv;
	int fds_before;
};

static int group_setup(void **state)
{
	(void)state;
	pool = vht_eal_pool("vhtest", 128, "vhpk", POOL_N);
	return pool ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	vht_eal_pool_free(pool);
	return 0;
}

static int setup(void **state)
{
	const struct params *p = *state;
	struct fx *f = calloc(1, sizeof(*f));
	const char *why;

	f->p = *p;
	f->fds_before = count_fds();
	if (guest_open(&f->g, GSZ) || vht_map_guest(&f->mem, &f->g, GSZ))
		return -1;
	f->vq.packed = true;
	f->vq.size = p->size;
	f->vq.hdr_len = 12;
	f->vq.mrg_rxbuf = p->mrg;
	f->vq.in_order = p->in_order;
	f->vq.event_idx = p->event_idx;
	f->vq.pool = pool;
	f->vq.kickfd = -1;
	f->vq.callfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	f->vq.addr = (struct vhost_vring_addr){
		.desc_user_addr = GUEST_UVA + DESC_OFF,
		.avail_user_addr = GUEST_UVA + DRV_OFF,
		.used_user_addr = GUEST_UVA + DEV_OFF,
	};
	/* as SET_VRING_BASE 0x8000 from DPDK virtio_user */
	f->vq.last_avail = 0;
	f->vq.avail_wrap = true;
	if (vh_vq_map(&f->vq, &f->mem, &why))
		return -1;
	vh_vq_start(&f->vq);
	f->vq.ready = true;
	f->d = (struct vring_packed_desc *)(f->g.va + DESC_OFF);
	f->drv_ev = (struct vring_packed_desc_event *)(f->g.va + DRV_OFF);
	f->dev_ev = (struct vring_packed_desc_event *)(f->g.va + DEV_OFF);
	f->drv = (struct drv){ .avail_wrap = true, .used_wrap = true };
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	close(f->vq.callfd);
	vh_mem_unmap(&f->mem);
	guest_close(&f->g);
	assert_int_equal(count_fds(), f->fds_before);
	assert_int_equal(rte_mempool_avail_count(pool), POOL_N);
	free(f);
	return 0;
}

static uint8_t *slot_buf(struct fx *f, uint16_t slot)
{
	return f->g.va + BUF_OFF + (size_t)slot * BUF_SZ;
}

static uint64_t slot_gpa(uint16_t slot)
{
	return GUEST_GPA + BUF_OFF + (uint64_t)slot * BUF_SZ;
}

static uint16_t avail_flags(bool wrap)
{
	return wrap ? F_AVAIL : F_USED;
}

/* Posts one chain of n descriptors with lengths len[] (each buffer is its
 * slot's 2 KiB area); the head's flags are written last.  Returns the head
 * slot. */
static uint16_t drv_post(struct fx *f, unsigned int n, const uint32_t *len, bool write)
{
	struct drv *d = &f->drv;
	uint16_t head = d->avail_slot, head_flags = 0, id = d->next_id;

	assert_true(d->in_flight + n <= f->p.size);
	d->next_id = (uint16_t)((d->next_id + 1) % f->p.size);
	for (unsigned int i = 0; i < n; i++) {
		uint16_t s = d->avail_slot;
		uint16_t fl = avail_flags(d->avail_wrap) | (write ? VRING_DESC_F_WRITE : 0) |
			      (i + 1 < n ? VRING_DESC_F_NEXT : 0);

		f->d[s].addr = slot_gpa(s);
		f->d[s].len = len[i];
		f->d[s].id = id;
		if (i == 0)
			head_flags = fl;
		else
			f->d[s].flags = fl;
		if (++d->avail_slot == f->p.size) {
			d->avail_slot = 0;
			d->avail_wrap = !d->avail_wrap;
		}
	}
	__atomic_store_n(&f->d[head].flags, head_flags, __ATOMIC_RELEASE);
	d->fifo_id[d->fifo_tail % 1024] = id;
	d->fifo_nd[d->fifo_tail % 1024] = (uint16_t)n;
	d->fifo_tail++;
	d->in_flight += n;
	return head;
}

/* Reads one used descriptor: returns the number of buffers it completes
 * (0: none used), their ids checked against what was posted in order. */
static unsigned int drv_used(struct fx *f, uint16_t *id, uint32_t *len)
{
	struct drv *d = &f->drv;
	uint16_t fl = __atomic_load_n(&f->d[d->used_slot].flags, __ATOMIC_ACQUIRE);
	unsigned int nbuf = 0, nd = 0;

	if (!!(fl & F_AVAIL) != d->used_wrap || !!(fl & F_USED) != d->used_wrap)
		return 0;
	*id = f->d[d->used_slot].id;
	*len = f->d[d->used_slot].len;
	/* completions come in order here: pop chains up to this id */
	for (;;) {
		assert_true(d->fifo_head != d->fifo_tail);
		uint16_t fid = d->fifo_id[d->fifo_head % 1024];

		nd += d->fifo_nd[d->fifo_head % 1024];
		d->fifo_head++;
		nbuf++;
		if (fid == *id)
			break;
		/* without IN_ORDER every buffer has its own used entry */
		assert_true(f->p.in_order);
	}
	d->in_flight -= nd;
	d->used_slot = (uint16_t)(d->used_slot + nd);
	if (d->used_slot >= f->p.size) {
		d->used_slot = (uint16_t)(d->used_slot - f->p.size);
		d->used_wrap = !d->used_wrap;
	}
	return nbuf;
}

static uint8_t pat(uint32_t seq, uint32_t i)
{
	return (uint8_t)(seq * 31 + i * 7);
}

/* ---- tx (driver -> device dequeue) across the wrap -------------------- */

static void test_tx_wrap(void **state)
{
	struct fx *f = *state;
	uint32_t seq_post = 0, seq_got = 0, completed = 0, rounds = 0;
	uint32_t total = 3u * f->p.size + 17;	/* packets */
	struct rte_mbuf *pkts[64];

	f->drv_ev->flags = VRING_PACKED_EVENT_FLAG_DISABLE;
	while (seq_got < total) {
		/* post a burst of 1..13 packets, chains of 1..3 descriptors:
		 * header alone, header+data split, data in two parts */
		unsigned int burst = 1 + rounds % 13;

		for (unsigned int b = 0; b < burst && seq_post < total; b++) {
			unsigned int nd = 1 + seq_post % 3;
			uint32_t plen = 60 + seq_post % 200, len[3];
			uint16_t s = f->drv.avail_slot;

			if (f->drv.in_flight + nd > f->p.size)
				break;
			/* lay the frame out over the slots the chain takes */
			if (nd == 1) {
				len[0] = 12 + plen;
			} else if (nd == 2) {
				len[0] = 12;
				len[1] = plen;
			} else {
				len[0] = 5;
				len[1] = 7 + plen / 2;
				len[2] = plen - plen / 2;
			}
			uint32_t off = 0;

			for (unsigned int i = 0; i < nd; i++) {
				uint16_t ss = (uint16_t)((s + i) % f->p.size);
				uint8_t *p = slot_buf(f, ss);

				for (uint32_t k = 0; k < len[i]; k++, off++)
					p[k] = off < 12 ? 0 : pat(seq_post, off - 12);
			}
			drv_post(f, nd, len, false);
			seq_post++;
		}
		uint16_t got = vh_packed_dequeue(&f->vq, pkts, (uint16_t)(1 + rounds % 64));

		for (uint16_t i = 0; i < got; i++, seq_got++) {
			uint32_t plen = 60 + seq_got % 200;
			uint8_t buf[512];
			const uint8_t *p = rte_pktmbuf_read(pkts[i], 0, plen, buf);

			assert_int_equal(pkts[i]->pkt_len, plen);
			for (uint32_t k = 0; k < plen; k++)
				if (p[k] != pat(seq_got, k))
					fail_msg("packet %u byte %u differs", seq_got, k);
		}
		rte_pktmbuf_free_bulk(pkts, got);
		uint16_t id;
		uint32_t len;
		unsigned int c;

		while ((c = drv_used(f, &id, &len))) {
			assert_int_equal(len, 0);
			completed += c;
		}
		assert_int_equal(completed, seq_got);
		assert_false(f->vq.dp_broken);
		rounds++;
		assert_true(rounds < 100000);
	}
	assert_int_equal(f->vq.st.packets, total);
	assert_int_equal(f->drv.in_flight, 0);
	/* the driver disabled calls */
	assert_int_equal(f->vq.st.calls, 0);
	/* the device area never asks for a kick */
	assert_int_equal(f->dev_ev->flags, VRING_PACKED_EVENT_FLAG_DISABLE);
}

/* ---- rx (device enqueue -> driver) across the wrap -------------------- */

static struct rte_mbuf *make_pkt(uint32_t seq, uint32_t plen)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p;

	assert_non_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)plen);
	assert_non_null(p);
	for (uint32_t k = 0; k < plen; k++)
		p[k] = pat(seq, k);
	return m;
}

static void test_rx_wrap(void **state)
{
	struct fx *f = *state;
	/* mergeable: 200-byte buffers, packets up to 900 bytes take 1..5 */
	uint32_t blen = f->p.mrg ? 200 : 1600;
	uint32_t total = 3u * f->p.size + 5, seq_sent = 0, seq_got = 0, rounds = 0;
	uint16_t posted_slot[1024];
	uint8_t frame[2048];
	uint32_t flen = 0, fbufs = 0, fnum = 0;

	f->drv_ev->flags = VRING_PACKED_EVENT_FLAG_ENABLE;
	while (seq_got < total) {
		/* keep the ring topped up with single-descriptor buffers */
		while (f->drv.in_flight < f->p.size) {
			uint16_t s = drv_post(f, 1, &blen, true);

			posted_slot[f->drv.fifo_id[(f->drv.fifo_tail - 1) % 1024]] = s;
			if (rounds % 3 == 0 && f->drv.in_flight > f->p.size / 2)
				break;	/* sometimes leave the ring short */
		}
		unsigned int burst = 1 + rounds % 17;
		struct rte_mbuf *pkts[32];
		unsigned int n = 0;

		for (; n < burst && seq_sent + n < total; n++) {
			uint32_t s = seq_sent + n;

			pkts[n] = make_pkt(s, f->p.mrg ? 60 + (s * 37) % 840 : 60 + s % 1400);
		}
		uint16_t done = vh_packed_enqueue(&f->vq, pkts, (uint16_t)n);

		rte_pktmbuf_free_bulk(pkts + done, n - done);
		seq_sent += done;
		assert_int_equal(f->vq.st.too_big, 0);
		assert_false(f->vq.dp_broken);

		uint16_t id;
		uint32_t len;

		while (drv_used(f, &id, &len)) {
			uint8_t *p = slot_buf(f, posted_slot[id]);

			assert_true(len <= blen);
			if (fbufs == 0) {
				const struct virtio_net_hdr_mrg_rxbuf *h = (const void *)p;

				assert_true(len >= 12);
				fnum = f->p.mrg ? h->num_buffers : 1;
				assert_true(fnum >= 1 && fnum <= 5);
				memcpy(frame, p + 12, len - 12);
				flen = len - 12;
			} else {
				memcpy(frame + flen, p, len);
				flen += len;
			}
			if (++fbufs < fnum)
				continue;
			uint32_t want = f->p.mrg ? 60 + (seq_got * 37) % 840 : 60 + seq_got % 1400;

			assert_int_equal(flen, want);
			for (uint32_t k = 0; k < flen; k++)
				if (frame[k] != pat(seq_got, k))
					fail_msg("packet %u byte %u differs", seq_got, k);
			seq_got++;
			fbufs = 0;
		}
		rounds++;
		assert_true(rounds < 100000);
	}
	assert_int_equal(seq_sent, total);
	assert_int_equal(f->vq.st.packets, total);
	/* the driver enabled calls: at least one per burst that moved */
	assert_true(f->vq.st.calls > 0);
	vht_calls(f->vq.callfd);
}

/* ---- event suppression ------------------------------------------------ */

static void tx_one(struct fx *f)
{
	uint32_t len = 12 + 60;
	struct rte_mbuf *m;
	uint16_t id;
	uint32_t l;

	memset(slot_buf(f, f->drv.avail_slot), 0, len);
	drv_post(f, 1, &len, false);
	assert_int_equal(vh_packed_dequeue(&f->vq, &m, 1), 1);
	rte_pktmbuf_free(m);
	assert_int_equal(drv_used(f, &id, &l), 1);
}

static void test_event_suppression(void **state)
{
	struct fx *f = *state;

	f->drv_ev->flags = VRING_PACKED_EVENT_FLAG_DISABLE;
	tx_one(f);
	assert_int_equal(vht_calls(f->vq.callfd), 0);
	f->drv_ev->flags = VRING_PACKED_EVENT_FLAG_ENABLE;
	tx_one(f);
	assert_int_equal(vht_calls(f->vq.callfd), 1);
	/* DESC: call only when the used entry at slot `off` of the current
	 * lap is written (slots 0 and 1 are done, the next is 2) */
	f->drv_ev->flags = VRING_PACKED_EVENT_FLAG_DESC;
	f->drv_ev->off_wrap = 3 | (1u << 15);
	tx_one(f);	/* slot 2 */
	assert_int_equal(vht_calls(f->vq.callfd), 0);
	tx_one(f);	/* slot 3 */
	assert_int_equal(vht_calls(f->vq.callfd), 1);
	tx_one(f);	/* slot 4 */
	assert_int_equal(vht_calls(f->vq.callfd), 0);
	/* an offset in the next lap: not before the wrap */
	f->drv_ev->off_wrap = 1;	/* wrap counter 0, slot 1 */
	for (uint16_t s = 5; s < f->p.size; s++) {
		/* publishing the last slot wraps: an offset already passed
		 * in lap 1 must not fire then either */
		if (s == f->p.size - 1)
			f->drv_ev->off_wrap = 40 | (1u << 15);
		tx_one(f);
		assert_int_equal(vht_calls(f->vq.callfd), 0);
	}
	f->drv_ev->off_wrap = 1;
	tx_one(f);	/* slot 0 of lap 2 */
	assert_int_equal(vht_calls(f->vq.callfd), 0);
	tx_one(f);	/* slot 1 of lap 2 */
	assert_int_equal(vht_calls(f->vq.callfd), 1);
	assert_false(f->drv.used_wrap);
}

/* ---- bad driver input ------------------------------------------------- */

static void post_raw(struct fx *f, uint16_t slot, uint64_t addr, uint32_t len,
		     uint16_t id, uint16_t flags)
{
	f->d[slot].addr = addr;
	f->d[slot].len = len;
	f->d[slot].id = id;
	__atomic_store_n(&f->d[slot].flags, flags, __ATOMIC_RELEASE);
}

static void expect_broken(struct fx *f, bool rx)
{
	struct rte_mbuf *m[4];

	if (rx) {
		m[0] = make_pkt(1, 60);
		assert_int_equal(vh_packed_enqueue(&f->vq, m, 1), 0);
		rte_pktmbuf_free(m[0]);
	} else {
		assert_int_equal(vh_packed_dequeue(&f->vq, m, 4), 0);
	}
	assert_true(f->vq.dp_broken);
	assert_int_equal(f->vq.st.broken, 1);
	/* a broken ring stays stopped and touches nothing */
	assert_int_equal(vh_packed_dequeue(&f->vq, m, 4), 0);
	assert_int_equal(f->vq.st.broken, 1);
}

static void test_bad_id(void **state)
{
	struct fx *f = *state;

	post_raw(f, 0, slot_gpa(0), 72, f->p.size, F_AVAIL);
	expect_broken(f, false);
	assert_int_equal(f->vq.st.packets, 0);
}

static void test_bad_id_rx(void **state)
{
	struct fx *f = *state;

	post_raw(f, 0, slot_gpa(0), 1600, 0xffff, F_AVAIL | VRING_DESC_F_WRITE);
	expect_broken(f, true);
}

static void test_head_wrong_lap(void **state)
{
	struct fx *f = *state;
	struct rte_mbuf *m[4];

	/* AVAIL == USED: a used descriptor of the previous lap, and
	 * AVAIL != wrap: not available in this lap.  Neither is taken. */
	post_raw(f, 0, slot_gpa(0), 72, 0, F_AVAIL | F_USED);
	assert_int_equal(vh_packed_dequeue(&f->vq, m, 4), 0);
	post_raw(f, 0, slot_gpa(0), 72, 0, F_USED);
	assert_int_equal(vh_packed_dequeue(&f->vq, m, 4), 0);
	post_raw(f, 0, slot_gpa(0), 72, 0, 0);
	assert_int_equal(vh_packed_dequeue(&f->vq, m, 4), 0);
	assert_false(f->vq.dp_broken);
	assert_int_equal(f->vq.last_avail, 0);
}

static void test_chain_wrong_lap(void **state)
{
	struct fx *f = *state;

	/* the second element of the chain carries last lap's flags */
	f->d[1] = (struct vring_packed_desc){ slot_gpa(1), 60, 0, F_USED };
	post_raw(f, 0, slot_gpa(0), 12, 0, F_AVAIL | VRING_DESC_F_NEXT);
	expect_broken(f, false);
}

static void test_chain_longer_than_ring(void **state)
{
	struct fx *f = *state;

	/* every slot says NEXT, so the chain would go round for ever (the
	 * flags of slot 0 seen again in the next lap do not match either) */
	for (uint16_t s = 1; s < f->p.size; s++)
		f->d[s] = (struct vring_packed_desc){ slot_gpa(s), 16, 0,
						      F_AVAIL | VRING_DESC_F_NEXT };
	post_raw(f, 0, slot_gpa(0), 16, 0, F_AVAIL | VRING_DESC_F_NEXT);
	expect_broken(f, false);
	/* the same with wrap-correct flags for the second lap: LOOP */
	f->vq.dp_broken = false;
	f->vq.st.broken = 0;
	uint16_t h = f->vq.last_avail;

	assert_int_equal(h, 0);
	struct vh_chain c;
	uint32_t len;
	uint16_t id, nd;

	c.nseg = 0;
	f->d[0].flags = F_AVAIL | VRING_DESC_F_NEXT;
	/* from slot 1 the walk goes round the ring, wraps into a lap where
	 * the flags no longer match, and stops there */
	assert_int_equal(vh_packed_walk(&f->vq, 1, true, false, &c, &len, &id, &nd),
			 VH_WALK_FLAGS);
}

static void test_desc_crosses_region_end(void **state)
{
	struct fx *f = *state;

	post_raw(f, 0, GUEST_GPA + GSZ - 40, 72, 0, F_AVAIL);
	expect_broken(f, false);
}

static void test_desc_outside(void **state)
{
	struct fx *f = *state;

	post_raw(f, 0, 0x1000, 72, 0, F_AVAIL | VRING_DESC_F_WRITE);
	expect_broken(f, true);
}

static void test_indirect(void **state)
{
	struct fx *f = *state;
	struct vring_packed_desc *tab = (void *)(f->g.va + TAB_OFF);
	struct rte_mbuf *m[4];
	uint8_t *b = slot_buf(f, 5);
	uint16_t id;
	uint32_t len;

	/* good: header | 60 bytes of data in a two-entry table */
	memset(b, 0, 12);
	for (int k = 0; k < 60; k++)
		b[100 + k] = pat(9, (uint32_t)k);
	tab[0] = (struct vring_packed_desc){ slot_gpa(5), 12, 0, 0 };
	tab[1] = (struct vring_packed_desc){ slot_gpa(5) + 100, 60, 0, 0 };
	post_raw(f, 0, GUEST_GPA + TAB_OFF, 32, 0, F_AVAIL | VRING_DESC_F_INDIRECT);
	f->drv.fifo_id[0] = 0;
	f->drv.fifo_nd[0] = 1;
	f->drv.fifo_tail = 1;
	f->drv.in_flight = 1;
	f->drv.avail_slot = 1;
	assert_int_equal(vh_packed_dequeue(&f->vq, m, 4), 1);
	assert_int_equal(m[0]->pkt_len, 60);
	assert_int_equal(rte_pktmbuf_mtod(m[0], uint8_t *)[59], pat(9, 59));
	rte_pktmbuf_free(m[0]);
	assert_int_equal(drv_used(f, &id, &len), 1);
	/* bad: an indirect entry inside the table */
	tab[1].flags = VRING_DESC_F_INDIRECT;
	post_raw(f, 1, GUEST_GPA + TAB_OFF, 32, 1, F_AVAIL | VRING_DESC_F_INDIRECT);
	expect_broken(f, false);
}

static void test_indirect_bad_len(void **state)
{
	struct fx *f = *state;

	post_raw(f, 0, GUEST_GPA + TAB_OFF, 20, 0, F_AVAIL | VRING_DESC_F_INDIRECT);
	expect_broken(f, false);
}

static void test_rx_too_big_dropped(void **state)
{
	struct fx *f = *state;
	struct rte_mbuf *m = make_pkt(2, 1000);
	uint32_t blen = 200;

	/* without MRG_RXBUF one 200-byte buffer cannot take 1000 bytes:
	 * dropped and counted, the buffer stays for the next packet */
	drv_post(f, 1, &blen, true);
	assert_int_equal(vh_packed_enqueue(&f->vq, &m, 1), 1);
	assert_int_equal(f->vq.st.too_big, 1);
	assert_int_equal(f->vq.last_avail, 0);
	assert_false(f->vq.dp_broken);
}


/* ---- the four-descriptor fast path ------------------------------------ */

/* One tx packet seq of plen bytes: a single descriptor (header and frame)
 * or, with split, the header alone and the frame in the next slot. */
static void post_tx(struct fx *f, uint32_t seq, uint32_t plen, bool split)
{
	uint16_t s = f->drv.avail_slot, s1 = (uint16_t)((s + 1) % f->p.size);
	uint8_t *h = slot_buf(f, s), *p = split ? slot_buf(f, s1) : h + 12;
	uint32_t len[2] = { split ? 12 : 12 + plen, plen };

	memset(h, 0, 12);
	for (uint32_t k = 0; k < plen; k++)
		p[k] = pat(seq, k);
	drv_post(f, split ? 2 : 1, len, false);
}

/* Dequeues up to n and checks every frame against seq.. with lengths
 * plen[]; returns the packets, every completion (runts returned unread
 * too) drained. */
static uint16_t tx_check_runts(struct fx *f, uint32_t *seq, const uint32_t *plen, uint16_t n,
			       unsigned int runts)
{
	struct rte_mbuf *pkts[32];
	uint16_t got = vh_packed_dequeue(&f->vq, pkts, n), id;
	unsigned int done = 0, c;
	uint32_t len;

	for (uint16_t i = 0; i < got; i++, (*seq)++) {
		static uint8_t buf[4096];
		const uint8_t *p = rte_pktmbuf_read(pkts[i], 0, plen[i], buf);

		assert_int_equal(pkts[i]->pkt_len, plen[i]);
		for (uint32_t k = 0; k < plen[i]; k++)
			if (p[k] != pat(*seq, k))
				fail_msg("packet %u byte %u differs", *seq, k);
	}
	rte_pktmbuf_free_bulk(pkts, got);
	while ((c = drv_used(f, &id, &len)))
		done += c;
	assert_int_equal(done, got + runts);
	return got;
}

static uint16_t tx_check(struct fx *f, uint32_t *seq, const uint32_t *plen, uint16_t n)
{
	return tx_check_runts(f, seq, plen, n, 0);
}

static void test_batch_tx(void **state)
{
	struct fx *f = *state;
	uint32_t seq = 0, pl[32];
	uint64_t b0;

	f->drv_ev->flags = VRING_PACKED_EVENT_FLAG_DISABLE;
	/* to slot 58, one at a time (bursts of 1 never take a group) */
	for (unsigned int i = 0; i < 58; i++) {
		pl[0] = 60 + i;
		post_tx(f, seq, pl[0], false);
		assert_int_equal(tx_check(f, &seq, pl, 1), 1);
	}
	assert_int_equal(f->vq.st.batched, 0);
	/* 58, 59 alone, then groups 60-63 | wrap | 0-3, 4-7 */
	for (unsigned int i = 0; i < 14; i++) {
		pl[i] = 64 + i * 3;
		post_tx(f, seq + i, pl[i], false);
	}
	assert_int_equal(tx_check(f, &seq, pl, 32), 14);
	assert_int_equal(f->vq.st.batched, 12);
	assert_int_equal(f->vq.last_avail, 8);
	assert_false(f->vq.avail_wrap);
	/* slots 8-11: single, chain over 9-10, single (the group falls back);
	 * 12-15 a group; 16: a runt (the group falls back, the general path
	 * returns it unread); 17-19 alone; 20-23 a group */
	b0 = f->vq.st.batched;
	unsigned int n = 0;
	const struct { uint32_t plen; bool split; } lay[] = {
		{ 60, false }, { 100, true }, { 61, false }, { 62, false }, { 63, false },
		{ 64, false }, { 65, false }, { 0, false }, { 66, false }, { 67, false },
		{ 68, false }, { 69, false }, { 70, false }, { 71, false }, { 72, false },
	};
	for (unsigned int i = 0; i < sizeof(lay) / sizeof(lay[0]); i++) {
		if (lay[i].plen == 0) {
			post_tx(f, 0, 0, false);
			continue;
		}
		pl[n] = lay[i].plen;
		post_tx(f, seq + n, pl[n], lay[i].split);
		n++;
	}
	assert_int_equal(tx_check_runts(f, &seq, pl, 32, 1), n);
	assert_int_equal(f->vq.st.batched - b0, 8);
	assert_int_equal(f->vq.last_avail, 24);
	assert_int_equal(f->vq.st.bad_packet, 1);
	assert_int_equal(f->vq.st.packets, seq);
	assert_false(f->vq.dp_broken);
	assert_int_equal(f->drv.in_flight, 0);
}
/* A group whose flags are all simple but whose third descriptor points
 * outside the regions: the first two are taken, the third goes to the
 * general walk, which stops the ring without reading it. */
static void test_batch_bad_addr(void **state)
{
	struct fx *f = *state;
	struct rte_mbuf *m[4];

	for (uint16_t s = 0; s < 4; s++) {
		memset(slot_buf(f, s), 0, 72);
		post_raw(f, s, s == 2 ? GUEST_GPA + GSZ + 4096 : slot_gpa(s), 72, s, F_AVAIL);
	}
	assert_int_equal(vh_packed_dequeue(&f->vq, m, 4), 2);
	rte_pktmbuf_free_bulk(m, 2);
	assert_true(f->vq.dp_broken);
	assert_int_equal(f->vq.st.broken, 1);
	assert_int_equal(f->vq.st.batched, 0);
}

/* The same on rx with an id out of range in the second slot. */
static void test_batch_bad_id_rx(void **state)
{
	struct fx *f = *state;
	struct rte_mbuf *m[4];

	for (uint16_t s = 0; s < 4; s++)
		post_raw(f, s, slot_gpa(s), 1600, s == 1 ? f->p.size : s,
			 F_AVAIL | VRING_DESC_F_WRITE);
	for (int i = 0; i < 4; i++)
		m[i] = make_pkt((uint32_t)i, 60);
	assert_int_equal(vh_packed_enqueue(&f->vq, m, 4), 1);
	rte_pktmbuf_free_bulk(m + 1, 3);
	assert_true(f->vq.dp_broken);
	/* the packet before the bad slot was delivered and published */
	assert_int_equal(f->d[0].flags, F_AVAIL | F_USED | VRING_DESC_F_WRITE);
	assert_int_equal(f->d[0].len, 12 + 60);
	for (uint32_t k = 0; k < 60; k++)
		assert_int_equal(slot_buf(f, 0)[12 + k], pat(0, k));
}

/* rx: posts one buffer of blen (or, with split, a 12-byte descriptor and
 * blen in the next slot) and remembers where it lies by id. */
struct rxbuf {
	uint16_t slot;
	bool split;
};

static void post_rx(struct fx *f, struct rxbuf *by_id, uint32_t blen, bool split)
{
	uint32_t len[2] = { split ? 12 : blen, blen };
	uint16_t s = drv_post(f, split ? 2 : 1, len, true);

	by_id[f->drv.fifo_id[(f->drv.fifo_tail - 1) % 1024]] = (struct rxbuf){ s, split };
}

/* Enqueues packets seq.. of lengths plen[] (nseg[i] mbufs each) and
 * checks what the driver reads back. */
static void rx_check(struct fx *f, const struct rxbuf *by_id, uint32_t *seq,
		     const uint32_t *plen, const uint8_t *nseg, uint16_t n)
{
	struct rte_mbuf *pkts[32];
	uint16_t id;
	uint32_t len;
	unsigned int got = 0;

	for (uint16_t i = 0; i < n; i++) {
		uint32_t first = nseg[i] > 1 ? plen[i] / 2 : plen[i];

		pkts[i] = make_pkt(*seq + i, first);
		if (nseg[i] > 1) {
			struct rte_mbuf *t = rte_pktmbuf_alloc(pool);
			uint8_t *p = (uint8_t *)rte_pktmbuf_append(t, (uint16_t)(plen[i] - first));

			for (uint32_t k = first; k < plen[i]; k++)
				p[k - first] = pat(*seq + i, k);
			assert_int_equal(rte_pktmbuf_chain(pkts[i], t), 0);
		}
	}
	assert_int_equal(vh_packed_enqueue(&f->vq, pkts, n), n);
	while (drv_used(f, &id, &len)) {
		const struct rxbuf *b = &by_id[id];
		uint8_t frame[4096];
		const struct virtio_net_hdr_mrg_rxbuf *h = (const void *)slot_buf(f, b->slot);

		assert_int_equal(h->num_buffers, 1);
		assert_int_equal(len, 12 + plen[got]);
		if (b->split)
			memcpy(frame, slot_buf(f, (uint16_t)((b->slot + 1) % f->p.size)), len - 12);
		else
			memcpy(frame, slot_buf(f, b->slot) + 12, len - 12);
		for (uint32_t k = 0; k < len - 12; k++)
			if (frame[k] != pat(*seq, k))
				fail_msg("packet %u byte %u differs", *seq, k);
		got++;
		(*seq)++;
	}
	assert_int_equal(got, n);
}

static void test_batch_rx(void **state)
{
	struct fx *f = *state;
	struct rxbuf by_id[1024];
	uint32_t seq = 0, pl[32];
	uint8_t ns[32];
	uint64_t b0;

	f->drv_ev->flags = VRING_PACKED_EVENT_FLAG_DISABLE;
	for (unsigned int i = 0; i < 58; i++) {
		post_rx(f, by_id, 1600, false);
		pl[0] = 60 + i;
		ns[0] = 1;
		rx_check(f, by_id, &seq, pl, ns, 1);
	}
	assert_int_equal(f->vq.st.batched, 0);
	/* 58, 59 alone, then groups across the wrap */
	for (unsigned int i = 0; i < 14; i++) {
		post_rx(f, by_id, 1600, false);
		pl[i] = 64 + i * 5;
		ns[i] = 1;
	}
	rx_check(f, by_id, &seq, pl, ns, 14);
	assert_int_equal(f->vq.st.batched, 12);
	assert_int_equal(f->vq.last_avail, 8);
	/* 8-11: single, a buffer chained over 9-10 (header descriptor
	 * alone), single; 12-15: a group of buffers but the second packet
	 * is two mbufs (falls back); 16-19 a group */
	b0 = f->vq.st.batched;
	const bool split[] = { false, true, false, false, false, false, false, false,
			       false, false, false, false };
	for (unsigned int i = 0; i < 12; i++) {
		post_rx(f, by_id, 1600, split[i]);
		pl[i] = 70 + i;
		ns[i] = i == 4 ? 2 : 1;
	}
	rx_check(f, by_id, &seq, pl, ns, 12);
	assert_int_equal(f->vq.st.batched - b0, 4);
	assert_int_equal(f->vq.last_avail, 21);
	assert_int_equal(f->vq.st.packets, seq);
	assert_int_equal(f->vq.st.too_big, 0);
	assert_false(f->vq.dp_broken);
	assert_int_equal(f->drv.in_flight, 0);
}

/* ---- a new back-end on a ring the old one left ------------------------ */

/* Posts n buffers of nd descriptors each; with take, the device takes them
 * and the driver reads every completion. */
static void resume_traffic(struct fx *f, uint32_t n, unsigned int nd, bool take)
{
	uint32_t len[2] = { 12 + 60, 12 };
	struct rte_mbuf *pkts[32];

	for (uint32_t i = 0; i < n; i++) {
		drv_post(f, nd, len, false);
		if (!take)
			continue;
		uint16_t got = vh_packed_dequeue(&f->vq, pkts, 32);
		uint16_t id;
		uint32_t l;

		assert_int_equal(got, 1);
		rte_pktmbuf_free_bulk(pkts, got);
		assert_int_equal(drv_used(f, &id, &l), 1);
	}
}

/* The new back-end is told the first start's base (0, wrap 1), as QEMU
 * does after it lost a back-end without GET_VRING_BASE. */
static void restart_stale(struct fx *f)
{
	f->vq.ready = false;
	f->vq.last_avail = 0;
	f->vq.avail_wrap = true;
	vh_vq_start(&f->vq);
	f->vq.ready = true;
}

static void test_resume(void **state)
{
	struct fx *f = *state;
	uint16_t n = f->p.size;
	const uint32_t history[] = { 0, 1, 5, n - 1u, n, n + 3u, 2u * n + 7u, n / 2u };
	const uint32_t pending[] = { 0, 1, n / 2u, n, 3, 0, n - 1u, 2 };
	uint32_t resumed = 0;

	f->drv_ev->flags = VRING_PACKED_EVENT_FLAG_DISABLE;
	for (unsigned int i = 0; i < sizeof(history) / sizeof(history[0]); i++) {
		resume_traffic(f, history[i], 1, true);
		resume_traffic(f, pending[i], 1, false);
		bool stale = f->drv.used_slot != 0 || !f->drv.used_wrap;

		restart_stale(f);
		/* where the driver waits for its next completion */
		assert_int_equal(f->vq.last_avail, f->drv.used_slot);
		assert_int_equal(f->vq.avail_wrap, f->drv.used_wrap);
		resumed += stale;
		assert_int_equal(f->vq.resumed, resumed);
		/* and what was pending comes through */
		struct rte_mbuf *pkts[64];
		uint32_t got = 0;

		for (unsigned int r = 0; r < 100 && got < pending[i]; r++) {
			uint16_t k = vh_packed_dequeue(&f->vq, pkts, 64);

			rte_pktmbuf_free_bulk(pkts, k);
			got += k;
		}
		assert_int_equal(got, pending[i]);
		uint16_t id;
		uint32_t l;

		while (drv_used(f, &id, &l))
			;
		assert_int_equal(f->drv.in_flight, 0);
		assert_false(f->vq.dp_broken);
	}
	assert_true(resumed >= 5);
	/* Chains: a returned buffer's second slot keeps the driver's flags,
	 * so the flags show several positions; the base given stands. */
	resume_traffic(f, 7, 2, true);
	f->vq.ready = false;
	f->vq.last_avail = 3;
	f->vq.avail_wrap = false;
	vh_vq_start(&f->vq);
	assert_int_equal(f->vq.last_avail, 3);
	assert_false(f->vq.avail_wrap);
	assert_int_equal(f->vq.resumed, resumed);
}

/* A takeover's base is the old daemon's own position (base_exact): the
 * start keeps it even where the ring's flags seem to show another one
 * (with one used entry per in-order batch they need not show where the
 * device stood; a takeover stalled that way), and says so once only. */
static void test_exact_base(void **state)
{
	struct fx *f = *state;
	struct rte_mbuf *pkts[64];
	uint32_t got = 0;
	uint16_t id;
	uint32_t l;

	f->drv_ev->flags = VRING_PACKED_EVENT_FLAG_DISABLE;
	resume_traffic(f, 5, 1, true);
	resume_traffic(f, 3, 1, false);
	f->vq.ready = false;
	f->vq.last_avail = 2;
	f->vq.avail_wrap = true;
	f->vq.base_exact = true;
	vh_vq_start(&f->vq);
	assert_int_equal(f->vq.last_avail, 2);
	assert_true(f->vq.avail_wrap);
	assert_int_equal(f->vq.resumed, 0);
	assert_false(f->vq.base_exact);
	/* a front-end's base at the next start is checked against the ring */
	vh_vq_start(&f->vq);
	assert_int_equal(f->vq.last_avail, 5);
	assert_int_equal(f->vq.resumed, 1);
	f->vq.ready = true;
	for (unsigned int r = 0; r < 100 && got < 3; r++) {
		uint16_t k = vh_packed_dequeue(&f->vq, pkts, 64);

		rte_pktmbuf_free_bulk(pkts, k);
		got += k;
	}
	assert_int_equal(got, 3);
	while (drv_used(f, &id, &l))
		;
	assert_int_equal(f->drv.in_flight, 0);
}

#define P(sz, io, mrg, ev) (&(struct params){ sz, io, mrg, ev })

int main(void)
{
	const struct CMUnitTest tests[] = {
		{ "tx_wrap/64", test_tx_wrap, setup, teardown, P(64, false, false, false) },
		{ "tx_wrap/256", test_tx_wrap, setup, teardown, P(256, false, false, false) },
		{ "tx_wrap/1024", test_tx_wrap, setup, teardown, P(1024, false, false, false) },
		{ "tx_wrap/64/in_order", test_tx_wrap, setup, teardown, P(64, true, false, false) },
		{ "tx_wrap/256/in_order", test_tx_wrap, setup, teardown, P(256, true, false, false) },
		{ "tx_wrap/1024/in_order", test_tx_wrap, setup, teardown,
		  P(1024, true, false, false) },
		{ "rx_wrap/64", test_rx_wrap, setup, teardown, P(64, false, false, false) },
		{ "rx_wrap/256", test_rx_wrap, setup, teardown, P(256, false, false, false) },
		{ "rx_wrap/1024", test_rx_wrap, setup, teardown, P(1024, false, false, false) },
		{ "rx_wrap/64/mrg", test_rx_wrap, setup, teardown, P(64, false, true, false) },
		{ "rx_wrap/256/mrg", test_rx_wrap, setup, teardown, P(256, false, true, false) },
		{ "rx_wrap/1024/mrg/in_order", test_rx_wrap, setup, teardown,
		  P(1024, true, true, false) },
		{ "event_suppression", test_event_suppression, setup, teardown,
		  P(64, false, false, true) },
		{ "bad_id", test_bad_id, setup, teardown, P(64, false, false, false) },
		{ "bad_id_rx", test_bad_id_rx, setup, teardown, P(64, false, false, false) },
		{ "head_wrong_lap", test_head_wrong_lap, setup, teardown, P(64, false, false, false) },
		{ "chain_wrong_lap", test_chain_wrong_lap, setup, teardown,
		  P(64, false, false, false) },
		{ "chain_longer_than_ring", test_chain_longer_than_ring, setup, teardown,
		  P(64, false, false, false) },
		{ "desc_crosses_region_end", test_desc_crosses_region_end, setup, teardown,
		  P(64, false, false, false) },
		{ "desc_outside", test_desc_outside, setup, teardown, P(64, false, false, false) },
		{ "indirect", test_indirect, setup, teardown, P(64, false, false, false) },
		{ "indirect_bad_len", test_indirect_bad_len, setup, teardown,
		  P(64, false, false, false) },
		{ "rx_too_big_dropped", test_rx_too_big_dropped, setup, teardown,
		  P(64, false, false, false) },
		{ "batch_tx", test_batch_tx, setup, teardown, P(64, false, false, false) },
		{ "batch_tx/in_order", test_batch_tx, setup, teardown, P(64, true, false, false) },
		{ "batch_bad_addr", test_batch_bad_addr, setup, teardown,
		  P(64, false, false, false) },
		{ "batch_bad_id_rx", test_batch_bad_id_rx, setup, teardown,
		  P(64, false, false, false) },
		{ "batch_rx", test_batch_rx, setup, teardown, P(64, false, false, false) },
		{ "batch_rx/mrg", test_batch_rx, setup, teardown, P(64, false, true, false) },
		{ "resume/64", test_resume, setup, teardown, P(64, false, false, false) },
		{ "resume/256", test_resume, setup, teardown, P(256, false, false, false) },
		{ "exact_base", test_exact_base, setup, teardown, P(64, false, false, false) },
	};

	return cmocka_run_group_tests_name("vhost_packed", tests, group_setup, group_teardown);
}
