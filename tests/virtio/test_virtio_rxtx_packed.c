/* virtio-net rx/tx bursts over packed rings against a device played in
 * plain memory (vdev_emu_packed.h): header handling, chains, mergeable
 * reassembly across bursts, in-order batched tx completion, hostile used
 * descriptors on the burst paths; no mbuf leaks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#define VT_PACKED	/* the fixture's rings (vio_tq.h) */
#include "vio_tq.h"

/* 40 packets per round on a 64-slot ring: bursts straddle the wrap; in
 * order the device reports each round with one used descriptor. */
static void test_tx(void **state)
{
	for (int order = 0; order < 2; order++) {
		struct tq *t = tq_new(false, 64, order, true);
		struct rte_mbuf *m[40];
		unsigned int before = rte_mempool_avail_count(pool);
		uint8_t buf[4096];
		struct vpdev_chain c[40];

		for (int round = 0; round < 20; round++) {
			uint16_t k = 0, nd = 0;

			for (int i = 0; i < 40; i++)
				m[i] = vt_frame(60 + i, (uint8_t)i);
			assert_int_equal(vio_tx_burst_packed(&t->q, m, 40), 40);
			while (k < 40 && vpdev_pop(&t->dev, &c[k]) == 0) {
				uint32_t n = chain_read(&c[k], buf, sizeof(buf));

				assert_int_equal(c[k].n, 1);	/* header in headroom */
				assert_int_equal(n, VIO_HDR_LEN + 60 + k);
				vt_check_hdr_zero(buf);
				vt_check_frame(buf + VIO_HDR_LEN, 60 + k, (uint8_t)k);
				nd += c[k].n;
				k++;
			}
			assert_int_equal(k, 40);
			if (order)
				vpdev_used(&t->dev, c[39].id, 0, nd);
			else
				for (int i = 39; i >= 0; i--)
					vpdev_used(&t->dev, c[i].id, 0, 1);
		}
		vio_tx_reclaim_packed(&t->q);
		assert_int_equal(t->q.pq.nfree, 64);
		assert_int_equal(t->q.st.packets, 800);
		assert_false(t->q.pq.broken);
		tq_free(t);
		assert_int_equal(rte_mempool_avail_count(pool), before);
	}
}

/* Shared mbuf or multi-segment: header descriptor / one descriptor per
 * segment, chained; a full ring takes nothing more until reclaimed. */
static void test_tx_chains_full(void **state)
{
	for (int order = 0; order < 2; order++) {
		unsigned int before = rte_mempool_avail_count(pool);
		struct tq *t = tq_new(false, 16, order, true);
		struct rte_mbuf *a = vt_frame(100, 1), *b = vt_frame(50, 2), *s2 = vt_frame(30, 3);
		uint8_t buf[4096];
		struct vpdev_chain c = { 0 };

		rte_mbuf_refcnt_update(a, 1);
		assert_int_equal(rte_pktmbuf_chain(b, s2), 0);
		struct rte_mbuf *v[2] = { a, b };

		assert_int_equal(vio_tx_burst_packed(&t->q, v, 2), 2);
		assert_int_equal(vpdev_pop(&t->dev, &c), 0);
		assert_int_equal(c.n, 2);
		assert_int_equal(c.d[0].len, VIO_HDR_LEN);
		assert_int_equal(chain_read(&c, buf, sizeof(buf)), VIO_HDR_LEN + 100);
		vt_check_hdr_zero(buf);
		vt_check_frame(buf + VIO_HDR_LEN, 100, 1);
		vpdev_used(&t->dev, c.id, 0, 2);
		assert_int_equal(vpdev_pop(&t->dev, &c), 0);
		assert_int_equal(c.n, 2);
		assert_int_equal(chain_read(&c, buf, sizeof(buf)), VIO_HDR_LEN + 80);
		vt_check_hdr_zero(buf);
		vt_check_frame(buf + VIO_HDR_LEN, 50, 2);
		vt_check_frame(buf + VIO_HDR_LEN + 50, 30, 3);
		vpdev_used(&t->dev, c.id, 0, 2);
		vio_tx_reclaim_packed(&t->q);
		assert_int_equal(t->q.pq.nfree, 16);
		assert_int_equal(rte_mbuf_refcnt_read(a), 1);
		rte_pktmbuf_free(a);
		assert_int_equal(t->q.st.bytes, 180);
		/* fill the ring (12 left after 4 used: the ring is at slot 4) */
		struct rte_mbuf *f[17];

		for (int i = 0; i < 17; i++)
			f[i] = vt_frame(64, 0);
		assert_int_equal(vio_tx_burst_packed(&t->q, f, 17), 16);
		assert_int_equal(vio_tx_burst_packed(&t->q, &f[16], 1), 0);
		for (int i = 0; i < 16; i++) {
			assert_int_equal(vpdev_pop(&t->dev, &c), 0);
			vpdev_used(&t->dev, c.id, 0, 1);
		}
		assert_int_equal(vio_tx_burst_packed(&t->q, &f[16], 1), 1);
		tq_free(t);
		assert_int_equal(rte_mempool_avail_count(pool), before);
	}
}

/* Many rounds on a 64-slot ring: refills and receptions across the wrap. */
static void test_rx_simple(void **state)
{
	for (int mode = 0; mode < 4; mode++) {
		bool order = mode & 1, mrg = mode & 2;
		unsigned int before = rte_mempool_avail_count(pool);
		struct tq *t = tq_new(true, 64, order, mrg);
		struct rte_mbuf *m[32];
		struct vpdev_chain c = { 0 };
		uint64_t total = 0, npk = 0;

		for (int round = 0; round < 300; round++) {
			uint16_t k = 0;

			for (; k < 20 && vpdev_pop(&t->dev, &c) == 0; k++) {
				assert_int_equal(c.n, 1);
				assert_true(c.d[0].flags & VRING_DESC_F_WRITE);
				assert_true(c.d[0].len >= VIO_HDR_LEN + 1514);
				put_hdr(&c, mrg ? 1 : 0xffff);	/* ignored without mrg */
				put_data(&c, VIO_HDR_LEN, 60 + k, (uint8_t)k);
				vpdev_used(&t->dev, c.id, VIO_HDR_LEN + 60 + k, 1);
			}
			uint16_t n = vio_rx_burst_packed(&t->q, m, 32);

			assert_int_equal(n, k);
			for (uint16_t i = 0; i < n; i++) {
				assert_int_equal(m[i]->pkt_len, 60 + i);
				assert_int_equal(m[i]->nb_segs, 1);
				vt_check_frame(rte_pktmbuf_mtod(m[i], uint8_t *), 60 + i, (uint8_t)i);
				total += m[i]->pkt_len;
			}
			npk += n;
			rte_pktmbuf_free_bulk(m, n);
		}
		assert_int_equal(t->q.st.bytes, total);
		assert_int_equal(t->q.st.packets, npk);
		assert_true(npk >= 300 * 20 - 64);
		assert_int_equal(t->q.st.errors, 0);
		assert_false(t->q.pq.broken);
		tq_free(t);
		assert_int_equal(rte_mempool_avail_count(pool), before);
	}
}

/* A 5000-byte frame over 3 buffers, the last one used only after a first
 * burst: assembled across two bursts. */
static void test_rx_mergeable(void **state)
{
	for (int order = 0; order < 2; order++) {
		struct tq *t = tq_new(true, 16, order, true);
		struct vpdev_chain c[3];
		struct rte_mbuf *m[4];
		uint32_t left = 5000, done = 0, lens[3];

		for (int i = 0; i < 3; i++) {
			assert_int_equal(vpdev_pop(&t->dev, &c[i]), 0);
			uint32_t room = c[i].d[0].len - (i == 0 ? VIO_HDR_LEN : 0);
			uint32_t n = left < room ? left : room;

			if (i == 0)
				put_hdr(&c[0], 3);
			put_data(&c[i], i == 0 ? VIO_HDR_LEN : 0, n, (uint8_t)done);
			lens[i] = n + (i == 0 ? VIO_HDR_LEN : 0);
			done += n;
			left -= n;
		}
		assert_int_equal(left, 0);
		vpdev_used(&t->dev, c[0].id, lens[0], 1);
		vpdev_used(&t->dev, c[1].id, lens[1], 1);
		assert_int_equal(vio_rx_burst_packed(&t->q, m, 4), 0);	/* incomplete */
		vpdev_used(&t->dev, c[2].id, lens[2], 1);
		assert_int_equal(vio_rx_burst_packed(&t->q, m, 4), 1);
		vt_check_merged(m[0], 5000, 3);
		assert_int_equal(t->q.st.packets, 1);
		tq_free(t);
	}
}

/* Used len over the buffer, runt, num_buffers 0 and over the ring size:
 * dropped and counted; a partial mergeable packet is dropped with the bad
 * buffer; the ring keeps going. */
static void test_rx_bad(void **state)
{
	for (int order = 0; order < 2; order++) {
		struct tq *t = tq_new(true, 16, order, true);
		struct vpdev_chain c[7];
		struct rte_mbuf *m[8];
		unsigned int before;

		for (int i = 0; i < 7; i++)
			assert_int_equal(vpdev_pop(&t->dev, &c[i]), 0);
		put_hdr(&c[0], 1);
		vpdev_used(&t->dev, c[0].id, c[0].d[0].len + 1, 1);	/* longer than buffer */
		vpdev_used(&t->dev, c[1].id, 5, 1);			/* runt */
		put_hdr(&c[2], 0);
		vpdev_used(&t->dev, c[2].id, VIO_HDR_LEN + 60, 1);	/* num_buffers 0 */
		put_hdr(&c[3], 17);
		vpdev_used(&t->dev, c[3].id, VIO_HDR_LEN + 60, 1);	/* > ring size */
		put_hdr(&c[4], 2);
		vpdev_used(&t->dev, c[4].id, VIO_HDR_LEN + 60, 1);	/* first of 2 ... */
		vpdev_used(&t->dev, c[5].id, c[5].d[0].len + 7, 1);	/* ... bad second */
		put_hdr(&c[6], 1);
		put_data(&c[6], VIO_HDR_LEN, 64, 9);
		vpdev_used(&t->dev, c[6].id, VIO_HDR_LEN + 64, 1);	/* good */
		before = rte_mempool_avail_count(pool);
		assert_int_equal(vio_rx_burst_packed(&t->q, m, 8), 1);
		vt_check_frame(rte_pktmbuf_mtod(m[0], uint8_t *), 64, 9);
		rte_pktmbuf_free(m[0]);
		assert_int_equal(t->q.st.bad_len, 3);
		assert_int_equal(t->q.st.bad_hdr, 2);
		assert_int_equal(t->q.st.errors, 6);	/* + the dropped partial packet */
		assert_int_equal(t->q.pq.err[VQP_ERR_BAD_LEN], 2);
		assert_false(t->q.pq.broken);
		assert_int_equal(rte_mempool_avail_count(pool), before + 7);
		tq_free(t);
	}
}

/* Bad id and bad flags on both paths: ring broken, bursts stop, nothing
 * leaks. */
static void test_broken(void **state)
{
	unsigned int before = rte_mempool_avail_count(pool);

	for (int order = 0; order < 2; order++) {
		for (int kind = 0; kind < 2; kind++) {
			struct tq *t = tq_new(true, 16, order, true);
			struct vpdev_chain c = { 0 };
			struct rte_mbuf *m[4];

			assert_int_equal(vpdev_pop(&t->dev, &c), 0);
			put_hdr(&c, 1);
			if (kind)
				vpdev_raw(&t->dev, 0, c.id, VIO_HDR_LEN + 10, PD_USED);
			else
				vpdev_used(&t->dev, 99, VIO_HDR_LEN + 10, 1);
			assert_int_equal(vio_rx_burst_packed(&t->q, m, 4), 0);
			assert_true(t->q.pq.broken);
			assert_int_equal(t->q.pq.err[kind ? VQP_ERR_BAD_FLAGS : VQP_ERR_BAD_ID], 1);
			assert_int_equal(vio_rx_burst_packed(&t->q, m, 4), 0);
			tq_free(t);

			t = tq_new(false, 16, order, true);
			m[0] = vt_frame(60, 0);
			m[1] = vt_frame(60, 0);
			assert_int_equal(vio_tx_burst_packed(&t->q, m, 2), 2);
			if (kind)
				vpdev_raw(&t->dev, 0, 0, 0, 0);
			else
				vpdev_used(&t->dev, 7, 0, 1);
			vio_tx_reclaim_packed(&t->q);
			assert_true(t->q.pq.broken);
			m[2] = vt_frame(60, 0);
			assert_int_equal(vio_tx_burst_packed(&t->q, &m[2], 1), 0);
			rte_pktmbuf_free(m[2]);
			tq_free(t);
		}
	}
	assert_int_equal(rte_mempool_avail_count(pool), before);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tx),
		cmocka_unit_test(test_tx_chains_full),
		cmocka_unit_test(test_rx_simple),
		cmocka_unit_test(test_rx_mergeable),
		cmocka_unit_test(test_rx_bad),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_not_ready),
	};

	return vt_run(argv[0], "viop_ut", tests);
}
