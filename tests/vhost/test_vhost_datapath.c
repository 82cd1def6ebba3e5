/* Dequeue and enqueue on a split ring laid out by hand in memfd-backed
 * "front-end" memory, with real mbufs (EAL without hugepages): header
 * split across descriptors, indirect tables, runts, multi-mbuf frames,
 * mergeable and single-buffer rx, ring-full accounting, and call-eventfd
 * notifications with and without EVENT_IDX; and the layout dispatch
 * against restarts that flip the ring between split and packed. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>

#include <cmocka.h>
#include <linux/virtio_net.h>
#include <rte_mbuf.h>

#include "vf_runtime.h"
#include "vf_sync.h"
#include "vhost/virtqueue.h"
#include "vh_testring.h"

#define RING 16
#define TAB_OFF 0x3000
#define BUF_OFF 0x10000

static struct rte_mempool *pool;

static int group_setup(void **state)
{
	pool = vht_eal_pool("vhtest", 128, "vhtest", 1024);
	return pool ? 0 : -1;
}

static int group_teardown(void **state)
{
	vht_eal_pool_free(pool);
	return 0;
}

static int setup_with(void **state, bool mrg, bool event_idx, uint8_t hdr_len)
{
	struct split_fx *f = calloc(1, sizeof(*f));

	f->fds_before = count_fds();
	if (split_fx_open(f, RING, hdr_len, mrg, event_idx,
			  eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), pool))
		return -1;
	f->vq.ready = true;
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_with(state, false, false, 12);
}

static int setup_mrg(void **state)
{
	return setup_with(state, true, false, 12);
}

static int setup_event_idx(void **state)
{
	return setup_with(state, true, true, 12);
}

static int setup_legacy(void **state)
{
	return setup_with(state, false, false, 10);
}

static int teardown(void **state)
{
	struct split_fx *f = *state;

	close(f->vq.callfd);
	vh_mem_unmap(&f->mem);
	guest_close(&f->g);
	assert_int_equal(count_fds(), f->fds_before);
	/* every mbuf went back to the pool */
	assert_int_equal(rte_mempool_avail_count(pool), 1024);
	free(f);
	return 0;
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

static void check_mbuf(struct rte_mbuf *m, size_t n, uint8_t seed)
{
	uint8_t buf[8192];
	const uint8_t *p = rte_pktmbuf_read(m, 0, n, buf);

	assert_int_equal(m->pkt_len, n);
	assert_non_null(p);
	for (size_t i = 0; i < n; i++)
		if (p[i] != (uint8_t)(seed + i * 7))
			fail_msg("byte %zu differs", i);
}

/* tx chain: 5 header bytes | 7 header bytes + 20 data | 40 data */
static void test_dequeue_header_split(void **state)
{
	struct split_fx *f = *state;
	uint8_t *b = f->g.va + BUF_OFF, frame[60];
	struct rte_mbuf *pkts[4];

	fill(frame, sizeof(frame), 3);
	memset(b, 0, 12);
	memcpy(b + 0x100 + 7, frame, 20);
	memcpy(b + 0x200, frame + 20, 40);
	f->d[4] = (struct vring_desc){ GUEST_GPA + BUF_OFF, 5, VRING_DESC_F_NEXT, 9 };
	f->d[9] = (struct vring_desc){ GUEST_GPA + BUF_OFF + 0x100, 27, VRING_DESC_F_NEXT, 1 };
	f->d[1] = (struct vring_desc){ GUEST_GPA + BUF_OFF + 0x200, 40, 0, 0 };
	split_fx_post(f, 4);
	assert_int_equal(vh_split_dequeue(&f->vq, pkts, 4), 1);
	check_mbuf(pkts[0], 60, 3);
	/* a well-formed single-segment mbuf, as forwarding modes expect */
	assert_int_equal(pkts[0]->nb_segs, 1);
	assert_int_equal(pkts[0]->data_len, 60);
	assert_null(pkts[0]->next);
	assert_int_equal(rte_mbuf_refcnt_read(pkts[0]), 1);
	rte_pktmbuf_free(pkts[0]);
	assert_int_equal(f->used->idx, 1);
	assert_int_equal(f->used->ring[0].id, 4);
	assert_int_equal(f->used->ring[0].len, 0);
	assert_int_equal(f->vq.st.packets, 1);
	assert_int_equal(f->vq.st.bytes, 60);
	/* the driver did not ask for no interrupts: one call */
	assert_int_equal(vht_calls(f->vq.callfd), 1);
	/* nothing more: no packet, no call */
	assert_int_equal(vh_split_dequeue(&f->vq, pkts, 4), 0);
	assert_int_equal(vht_calls(f->vq.callfd), 0);
}

static void test_dequeue_indirect_and_runt(void **state)
{
	struct split_fx *f = *state;
	struct vring_desc *tab = (struct vring_desc *)(f->g.va + TAB_OFF);
	uint8_t *b = f->g.va + BUF_OFF, frame[100];
	struct rte_mbuf *pkts[4];

	f->avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	fill(frame, sizeof(frame), 9);
	memset(b, 0, 12);
	memcpy(b + 0x100, frame, 100);
	tab[0] = (struct vring_desc){ GUEST_GPA + BUF_OFF, 12, VRING_DESC_F_NEXT, 1 };
	tab[1] = (struct vring_desc){ GUEST_GPA + BUF_OFF + 0x100, 100, 0, 0 };
	f->d[0] = (struct vring_desc){ GUEST_GPA + TAB_OFF, 32, VRING_DESC_F_INDIRECT, 0 };
	/* a runt: header only */
	f->d[1] = (struct vring_desc){ GUEST_GPA + BUF_OFF, 12, 0, 0 };
	split_fx_post(f, 1);
	split_fx_post(f, 0);
	assert_int_equal(vh_split_dequeue(&f->vq, pkts, 4), 1);
	check_mbuf(pkts[0], 100, 9);
	rte_pktmbuf_free(pkts[0]);
	/* the runt is dropped, counted, and its buffer given back */
	assert_int_equal(f->vq.st.bad_packet, 1);
	assert_int_equal(f->used->idx, 2);
	assert_int_equal(f->used->ring[0].id, 1);
	assert_int_equal(f->used->ring[1].id, 0);
	/* NO_INTERRUPT: no call */
	assert_int_equal(vht_calls(f->vq.callfd), 0);
	assert_int_equal(f->vq.st.calls, 0);
}

static void test_dequeue_large_frame(void **state)
{
	struct split_fx *f = *state;
	uint8_t *b = f->g.va + BUF_OFF;
	static uint8_t frame[5000];
	struct rte_mbuf *pkts[1];

	fill(frame, sizeof(frame), 1);
	memset(b, 0, 12);
	memcpy(b + 12, frame, sizeof(frame));
	f->d[2] = (struct vring_desc){ GUEST_GPA + BUF_OFF, 12 + sizeof(frame), 0, 0 };
	split_fx_post(f, 2);
	assert_int_equal(vh_split_dequeue(&f->vq, pkts, 1), 1);
	assert_true(pkts[0]->nb_segs > 1);
	check_mbuf(pkts[0], sizeof(frame), 1);
	rte_pktmbuf_free(pkts[0]);
}

static struct rte_mbuf *mkpkt(size_t n, uint8_t seed)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	assert_non_null(m);
	fill((uint8_t *)rte_pktmbuf_append(m, (uint16_t)n), n, seed);
	return m;
}

/* rx buffers: three of 1000 bytes, one descriptor each */
static void post_rx(struct split_fx *f, unsigned int n, uint32_t len)
{
	for (unsigned int i = 0; i < n; i++) {
		uint16_t head = (uint16_t)((f->avail_idx) % RING);

		f->d[head] = (struct vring_desc){ GUEST_GPA + BUF_OFF + head * 0x1000ull, len,
						  VRING_DESC_F_WRITE, 0 };
		split_fx_post(f, head);
	}
}

static void test_enqueue_mergeable(void **state)
{
	struct split_fx *f = *state;
	struct rte_mbuf *m = mkpkt(2000, 5);
	uint8_t out[2000];

	post_rx(f, 3, 1000);
	assert_int_equal(vh_split_enqueue(&f->vq, &m, 1), 1);
	assert_int_equal(f->used->idx, 3);
	assert_int_equal(f->used->ring[0].len, 1000);
	assert_int_equal(f->used->ring[1].len, 1000);
	assert_int_equal(f->used->ring[2].len, 12);
	struct virtio_net_hdr_mrg_rxbuf *h = (void *)(f->g.va + BUF_OFF);
	assert_int_equal(h->num_buffers, 3);
	assert_int_equal(h->hdr.flags, 0);
	memcpy(out, f->g.va + BUF_OFF + 12, 988);
	memcpy(out + 988, f->g.va + BUF_OFF + 0x1000, 1000);
	memcpy(out + 1988, f->g.va + BUF_OFF + 0x2000, 12);
	for (size_t i = 0; i < sizeof(out); i++)
		if (out[i] != (uint8_t)(5 + i * 7))
			fail_msg("byte %zu differs", i);
	assert_int_equal(f->vq.st.bytes, 2000);
	/* a packet that needs more buffers than posted waits: ring full,
	 * nothing consumed */
	m = mkpkt(1500, 1);
	post_rx(f, 1, 1000);
	assert_int_equal(vh_split_enqueue(&f->vq, &m, 1), 0);
	assert_int_equal(f->vq.st.ring_full, 1);
	assert_int_equal(f->vq.last_avail, 3);
	assert_int_equal(f->used->idx, 3);
	rte_pktmbuf_free(m);
}

static void test_enqueue_single_buffer(void **state)
{
	struct split_fx *f = *state;
	struct rte_mbuf *m[2] = { mkpkt(2000, 5), mkpkt(500, 6) };

	post_rx(f, 2, 1000);
	/* too big for one buffer: dropped and counted, the buffer stays */
	assert_int_equal(vh_split_enqueue(&f->vq, m, 2), 2);
	assert_int_equal(f->vq.st.too_big, 1);
	assert_int_equal(f->vq.st.packets, 1);
	assert_int_equal(f->used->idx, 1);
	assert_int_equal(f->used->ring[0].len, 512);
	assert_int_equal(f->used->ring[0].id, 0);
	struct virtio_net_hdr_mrg_rxbuf *h = (void *)(f->g.va + BUF_OFF);
	assert_int_equal(h->num_buffers, 1);
	/* two packets, one buffer left: one goes, one is ring-full */
	m[0] = mkpkt(100, 1);
	m[1] = mkpkt(100, 2);
	assert_int_equal(vh_split_enqueue(&f->vq, m, 2), 1);
	assert_int_equal(f->vq.st.ring_full, 1);
	rte_pktmbuf_free(m[1]);
}

static void test_enqueue_legacy_header(void **state)
{
	struct split_fx *f = *state;
	struct rte_mbuf *m = mkpkt(64, 8);
	uint8_t *b = f->g.va + BUF_OFF;

	memset(b, 0xee, 128);
	post_rx(f, 1, 1000);
	assert_int_equal(vh_split_enqueue(&f->vq, &m, 1), 1);
	assert_int_equal(f->used->ring[0].len, 74);
	for (int i = 0; i < 10; i++)
		assert_int_equal(b[i], 0);
	assert_int_equal(b[10], 8);	/* data right after the 10-byte header */
}

static void test_event_idx_calls(void **state)
{
	struct split_fx *f = *state;
	uint16_t *used_event = &f->avail->ring[RING];
	uint16_t *avail_event = (uint16_t *)&f->used->ring[RING];
	struct rte_mbuf *m;

	/* flags are ignored with EVENT_IDX; used_event = 1: call when the
	 * used index passes 1, i.e. on the 2nd buffer */
	f->avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	*used_event = 1;
	post_rx(f, 4, 1000);
	m = mkpkt(64, 1);
	assert_int_equal(vh_split_enqueue(&f->vq, &m, 1), 1);
	assert_int_equal(vht_calls(f->vq.callfd), 0);
	m = mkpkt(64, 1);
	assert_int_equal(vh_split_enqueue(&f->vq, &m, 1), 1);
	assert_int_equal(vht_calls(f->vq.callfd), 1);
	m = mkpkt(64, 1);
	assert_int_equal(vh_split_enqueue(&f->vq, &m, 1), 1);
	assert_int_equal(vht_calls(f->vq.callfd), 0);
	/* the driver moves used_event to what it has seen: call again */
	*used_event = 3;
	m = mkpkt(64, 1);
	assert_int_equal(vh_split_enqueue(&f->vq, &m, 1), 1);
	assert_int_equal(vht_calls(f->vq.callfd), 1);
	/* we poll: avail_event stays out of the driver's reach, and the
	 * flags are left 0 as EVENT_IDX requires */
	assert_int_equal((uint16_t)(*avail_event - f->vq.last_avail), 0x8000);
	assert_int_equal(f->used->flags, 0);
}

static void test_no_event_idx_flags(void **state)
{
	struct split_fx *f = *state;

	/* without EVENT_IDX we ask for no kicks through the used flags */
	assert_int_equal(f->used->flags, VRING_USED_F_NO_NOTIFY);
}


/* ---- the batched fast paths: simple and general buffers mixed -------- */

/* Buffer of descriptor d: 4 KiB each from BUF_OFF. */
/* The fast enqueue leaves a header that already says "no offloads, one
 * buffer" unwritten (its line stays in the front-end's cache): with the
 * header's page read-only in our mapping, the packet still goes; a stale
 * header in a writable buffer is rewritten whole. */
static void test_enqueue_header_kept(void **state)
{
	struct split_fx *f = *state;
	const struct virtio_net_hdr_mrg_rxbuf good = { .num_buffers = 1 };
	uint64_t pg = GUEST_GPA + BUF_OFF + 0x4000;	/* header: last 12 bytes before pg */
	uint8_t *hv = vh_gpa(&f->mem, pg - 12, 12 + 64);
	uint8_t *gv = f->g.va + BUF_OFF + 0x4000 - 12;
	long psz = sysconf(_SC_PAGESIZE);
	uint8_t *page = (uint8_t *)((uintptr_t)hv & ~(uintptr_t)(psz - 1));
	struct rte_mbuf *m = mkpkt(64, 3);

	assert_non_null(hv);
	memcpy(gv, &good, sizeof(good));
	f->d[0] = (struct vring_desc){ pg - 12, 2048, VRING_DESC_F_WRITE, 0 };
	split_fx_post(f, 0);
	assert_int_equal(mprotect(page, (size_t)psz, PROT_READ), 0);
	assert_int_equal(vh_split_enqueue(&f->vq, &m, 1), 1);
	assert_int_equal(mprotect(page, (size_t)psz, PROT_READ | PROT_WRITE), 0);
	assert_memory_equal(gv, &good, sizeof(good));
	for (int i = 0; i < 64; i++)
		assert_int_equal(gv[12 + i], (uint8_t)(3 + i * 7));
	/* stale junk (a recycled buffer of a hostile or sloppy front-end) */
	memset(gv, 0xee, 12);
	m = mkpkt(64, 4);
	f->d[1] = (struct vring_desc){ pg - 12, 2048, VRING_DESC_F_WRITE, 0 };
	split_fx_post(f, 1);
	assert_int_equal(vh_split_enqueue(&f->vq, &m, 1), 1);
	assert_memory_equal(gv, &good, sizeof(good));
	assert_int_equal(f->vq.st.packets, 2);
}

static uint8_t *dbuf(struct split_fx *f, uint16_t d)
{
	return f->g.va + BUF_OFF + d * 0x1000ull;
}

static uint64_t dgpa(uint16_t d)
{
	return GUEST_GPA + BUF_OFF + d * 0x1000ull;
}

/* Many rounds over the ring (its index wraps): in each, single
 * descriptors (the fast path), header-split chains and runts (the
 * general path) interleaved; every frame arrives in order and every
 * buffer comes back in the used ring in avail order. */
static void test_fast_tx_mix(void **state)
{
	struct split_fx *f = *state;
	uint32_t sent = 0, runts = 0;

	f->avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	for (unsigned int r = 0; r < 40; r++) {
		unsigned int n = 1 + r % 7, exp = 0;
		uint16_t heads[8], used0 = f->used->idx, d = 0;
		uint32_t plen[8];
		uint8_t seed[8];
		struct rte_mbuf *pkts[16];

		for (unsigned int i = 0; i < n; i++) {
			unsigned int kind = (r + i) % 5;	/* 0, 2, 4: single; 1: split; 3: runt */
			uint32_t pl = 60 + (r * 13 + i * 29) % 1400;
			uint8_t sd = (uint8_t)(r * 8 + i);

			heads[i] = d;
			if (kind == 3) {
				memset(dbuf(f, d), 0, 12);
				f->d[d] = (struct vring_desc){ dgpa(d), 12, 0, 0 };
				d++;
				runts++;
			} else if (kind == 1) {
				memset(dbuf(f, d), 0, 12);
				fill(dbuf(f, (uint16_t)(d + 1)), pl, sd);
				f->d[d] = (struct vring_desc){ dgpa(d), 12, VRING_DESC_F_NEXT,
							       (uint16_t)(d + 1) };
				f->d[d + 1] = (struct vring_desc){ dgpa((uint16_t)(d + 1)), pl, 0, 0 };
				d = (uint16_t)(d + 2);
				plen[exp] = pl;
				seed[exp++] = sd;
			} else {
				memset(dbuf(f, d), 0, 12);
				fill(dbuf(f, d) + 12, pl, sd);
				f->d[d] = (struct vring_desc){ dgpa(d), 12 + pl, 0, 0 };
				d++;
				plen[exp] = pl;
				seed[exp++] = sd;
			}
			split_fx_post(f, heads[i]);
		}
		assert_int_equal(vh_split_dequeue(&f->vq, pkts, 16), exp);
		for (unsigned int i = 0; i < exp; i++) {
			check_mbuf(pkts[i], plen[i], seed[i]);
			assert_int_equal(pkts[i]->nb_segs, 1);
		}
		rte_pktmbuf_free_bulk(pkts, exp);
		sent += exp;
		assert_int_equal((uint16_t)(f->used->idx - used0), n);
		for (unsigned int i = 0; i < n; i++) {
			assert_int_equal(f->used->ring[(used0 + i) % RING].id, heads[i]);
			assert_int_equal(f->used->ring[(used0 + i) % RING].len, 0);
		}
	}
	assert_int_equal(f->vq.st.packets, sent);
	assert_int_equal(f->vq.st.bad_packet, runts);
	assert_false(f->vq.dp_broken);
}

/* A simple descriptor pointing outside the regions, behind two good ones
 * in the same burst: those two arrive, then the ring stops without the
 * bad one being read; a head out of range likewise. */
static void test_fast_tx_bad(void **state)
{
	struct split_fx *f = *state;
	struct rte_mbuf *pkts[4];

	for (uint16_t d = 0; d < 3; d++) {
		memset(dbuf(f, d), 0, 12);
		fill(dbuf(f, d) + 12, 64, (uint8_t)d);
		f->d[d] = (struct vring_desc){ d == 2 ? GUEST_GPA + GUEST_SIZE : dgpa(d), 76, 0, 0 };
		split_fx_post(f, d);
	}
	assert_int_equal(vh_split_dequeue(&f->vq, pkts, 4), 2);
	check_mbuf(pkts[0], 64, 0);
	check_mbuf(pkts[1], 64, 1);
	rte_pktmbuf_free_bulk(pkts, 2);
	assert_true(f->vq.dp_broken);
	assert_int_equal(f->used->idx, 2);
	assert_int_equal(f->vq.last_avail, 2);
}

static void test_fast_tx_bad_head(void **state)
{
	struct split_fx *f = *state;
	struct rte_mbuf *pkts[4];

	memset(dbuf(f, 0), 0, 12);
	fill(dbuf(f, 0) + 12, 64, 4);
	f->d[0] = (struct vring_desc){ dgpa(0), 76, 0, 0 };
	split_fx_post(f, 0);
	split_fx_post(f, RING);		/* out of range */
	assert_int_equal(vh_split_dequeue(&f->vq, pkts, 4), 1);
	check_mbuf(pkts[0], 64, 4);
	rte_pktmbuf_free(pkts[0]);
	assert_true(f->vq.dp_broken);
	assert_int_equal(f->used->idx, 1);
}

/* rx: rounds of bursts into buffers that are single descriptors (fast
 * path), 12-byte header descriptors chained to the data (general path),
 * and packets of two mbufs (general path), interleaved. */
static void test_fast_rx_mix(void **state)
{
	struct split_fx *f = *state;
	uint32_t sent = 0;

	f->avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	for (unsigned int r = 0; r < 40; r++) {
		unsigned int n = 1 + r % 7;
		uint16_t heads[8], used0 = f->used->idx, d = 0;
		bool chained[8];
		struct rte_mbuf *pkts[8];

		for (unsigned int i = 0; i < n; i++) {
			uint32_t pl = 60 + (r * 17 + i * 31) % 1400;
			uint8_t sd = (uint8_t)(r * 8 + i);

			heads[i] = d;
			chained[i] = (r + i) % 4 == 1;
			if (chained[i]) {
				f->d[d] = (struct vring_desc){ dgpa(d), 12,
							       VRING_DESC_F_WRITE | VRING_DESC_F_NEXT,
							       (uint16_t)(d + 1) };
				f->d[d + 1] = (struct vring_desc){ dgpa((uint16_t)(d + 1)), 2048,
								   VRING_DESC_F_WRITE, 0 };
				d = (uint16_t)(d + 2);
			} else {
				f->d[d] = (struct vring_desc){ dgpa(d), 2048, VRING_DESC_F_WRITE, 0 };
				d++;
			}
			split_fx_post(f, heads[i]);
			if ((r + i) % 3 == 2) {	/* two mbufs */
				pkts[i] = mkpkt(pl / 2, sd);
				struct rte_mbuf *t = rte_pktmbuf_alloc(pool);
				uint8_t *p = (uint8_t *)rte_pktmbuf_append(t, (uint16_t)(pl - pl / 2));

				for (uint32_t k = pl / 2; k < pl; k++)
					p[k - pl / 2] = (uint8_t)(sd + k * 7);
				assert_int_equal(rte_pktmbuf_chain(pkts[i], t), 0);
			} else {
				pkts[i] = mkpkt(pl, sd);
			}
		}
		uint32_t plen[8];

		for (unsigned int i = 0; i < n; i++)
			plen[i] = pkts[i]->pkt_len;
		assert_int_equal(vh_split_enqueue(&f->vq, pkts, (uint16_t)n), n);
		assert_int_equal((uint16_t)(f->used->idx - used0), n);
		for (unsigned int i = 0; i < n; i++) {
			const struct vring_used_elem *e = &f->used->ring[(used0 + i) % RING];
			const struct virtio_net_hdr_mrg_rxbuf *h = (const void *)dbuf(f, heads[i]);
			const uint8_t *p = chained[i] ? dbuf(f, (uint16_t)(heads[i] + 1))
						      : dbuf(f, heads[i]) + 12;
			uint8_t sd = (uint8_t)(r * 8 + i);

			assert_int_equal(e->id, heads[i]);
			assert_int_equal(e->len, 12 + plen[i]);
			assert_int_equal(h->num_buffers, 1);
			for (uint32_t k = 0; k < plen[i]; k++)
				if (p[k] != (uint8_t)(sd + k * 7))
					fail_msg("round %u packet %u byte %u differs", r, i, k);
		}
		sent += n;
	}
	assert_int_equal(f->vq.st.packets, sent);
	assert_int_equal(f->vq.st.too_big, 0);
	assert_false(f->vq.dp_broken);
}

/* The layout flag and the ring's start race: a forwarding core bursts on
 * the ring without pause while the control thread restarts it again and
 * again, flipping between split and packed as a front-end reconnecting
 * with other features would, by the production protocol (ready cleared,
 * vf_sync_wait, the new layout, ready set).  Each layout's pointers are
 * NULL while the other is in use, so a burst run with the layout of the
 * previous start faults.  It did when the dispatcher read the layout
 * before the ready flag (seen first as a UBSan report on a migration's
 * destination). */
#define FLIPS 400

struct flipper {
	struct vh_vq *vq;
	struct rte_mbuf *m;
	bool stop;
	uint64_t bursts;
};

static void *burst_loop(void *arg)
{
	struct flipper *fl = arg;
	struct rte_mbuf *pkts[32];

	vf_sync_thread_online(1);
	while (!__atomic_load_n(&fl->stop, __ATOMIC_ACQUIRE)) {
		assert_int_equal(vh_vq_dequeue(fl->vq, pkts, 32), 0);
		assert_int_equal(vh_vq_enqueue(fl->vq, &fl->m, 1), 0);
		__atomic_store_n(&fl->bursts, fl->bursts + 1, __ATOMIC_RELAXED);
		vf_sync_quiescent(1);
	}
	vf_sync_thread_offline(1);
	return NULL;
}

static void test_layout_flip_under_bursts(void **state)
{
	struct split_fx *f = *state;
	struct vh_vq *vq = &f->vq;
	struct vring_desc *sd = vq->desc;
	struct vring_avail *sa = vq->avail;
	struct vring_used *su = vq->used;
	struct vring_packed_desc *pd;
	struct vring_packed_desc_event *pdrv, *pdev;
	struct flipper fl = { .vq = vq, .m = mkpkt(60, 1) };
	const char *why;
	pthread_t t;

	assert_int_equal(vf_sync_init(), 0);
	/* a packed layout of the same size in other pages, both empty */
	vq->addr = (struct vhost_vring_addr){
		.desc_user_addr = GUEST_UVA + 0x4000,
		.avail_user_addr = GUEST_UVA + 0x5000,
		.used_user_addr = GUEST_UVA + 0x6000,
	};
	assert_int_equal(vh_packed_map(vq, &f->mem, &why), 0);
	pd = vq->pdesc;
	pdrv = vq->drv_ev;
	pdev = vq->dev_ev;
	vq->pdesc = NULL;
	vq->drv_ev = vq->dev_ev = NULL;
	vq->avail_wrap = vq->used_wrap = true;
	/* The bursting thread inherits this one's CPU (EAL pinned it to
	 * lcore 0): the two run in turns, and the bursts are preempted at
	 * any instruction, as a forwarding core on a busy host is; that is
	 * what opens the window between two loads wide enough to land in. */
	assert_int_equal(pthread_create(&t, NULL, burst_loop, &fl), 0);
	/* online and bursting before the first restart */
	while (__atomic_load_n(&fl.bursts, __ATOMIC_RELAXED) < 1000)
		;
	for (unsigned int i = 0; i < FLIPS; i++) {
		bool packed = !(i & 1);

		uint64_t tok, b;

		/* as vh_dev_stop_rings(); yielding rather than spinning, so that the
		 * bursts run until the scheduler preempts them */
		__atomic_store_n(&vq->ready, false, __ATOMIC_RELEASE);
		tok = vf_sync_token();
		while (!vf_sync_passed(tok))
			sched_yield();
		vq->desc = packed ? NULL : sd;
		vq->avail = packed ? NULL : sa;
		vq->used = packed ? NULL : su;
		vq->pdesc = packed ? pd : NULL;
		vq->drv_ev = packed ? pdrv : NULL;
		vq->dev_ev = packed ? pdev : NULL;
		__atomic_store_n(&vq->packed, packed, __ATOMIC_RELAXED);
		__atomic_store_n(&vq->ready, true, __ATOMIC_RELEASE);
		/* the bursts resume on the started ring, wherever they were
		 * preempted, before the next stop */
		b = __atomic_load_n(&fl.bursts, __ATOMIC_RELAXED);
		while (__atomic_load_n(&fl.bursts, __ATOMIC_RELAXED) < b + 2)
			sched_yield();
	}
	__atomic_store_n(&fl.stop, true, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
	print_message("%u restarts under %llu bursts\n", FLIPS, (unsigned long long)fl.bursts);
	assert_true(fl.bursts > 0);
	assert_false(vq->dp_broken);
	rte_pktmbuf_free(fl.m);
	vq->desc = sd;
	vq->avail = sa;
	vq->used = su;
	vq->packed = false;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dequeue_header_split, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dequeue_indirect_and_runt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dequeue_large_frame, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enqueue_mergeable, setup_mrg, teardown),
		cmocka_unit_test_setup_teardown(test_enqueue_single_buffer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enqueue_legacy_header, setup_legacy, teardown),
		cmocka_unit_test_setup_teardown(test_enqueue_header_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enqueue_header_kept, setup_mrg, teardown),
		cmocka_unit_test_setup_teardown(test_event_idx_calls, setup_event_idx, teardown),
		cmocka_unit_test_setup_teardown(test_no_event_idx_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_tx_mix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_tx_bad, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_tx_bad_head, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_rx_mix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_rx_mix, setup_mrg, teardown),
		cmocka_unit_test_setup_teardown(test_layout_flip_under_bursts, setup, teardown),
	};

	return cmocka_run_group_tests_name("vhost_datapath", tests, group_setup, group_teardown);
}
