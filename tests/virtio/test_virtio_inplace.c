/* virtio-net frames in place over split rings (virtio_inplace.c) against a
 * device played in plain memory: frames read where the device wrote them
 * and built where it reads them, exact lengths and bytes, what must go to
 * the mbuf bursts handed over untaken, and every pool buffer accounted
 * for (raw tx buffers back in the pool, mixed with mbuf packets). */
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

#include "vio_tq.h"
#include "virtio_inplace.h"

static const struct vf_slot_ops *ops = &vio_slots_split;

static struct tq *tq_inplace(bool rx, uint16_t size, bool in_order, bool mrg)
{
	struct tq *t = tq_new(rx, size, in_order, mrg);

	t->q.room = rte_pktmbuf_data_room_size(pool) - RTE_PKTMBUF_HEADROOM;
	return t;
}

/* The device writes k frames (lengths 60 + i, pattern seed i) into the
 * next k posted buffers and publishes them. */
static void dev_frames(struct tq *t, uint16_t k, uint16_t nbuf)
{
	struct vdev_chain c = { 0 };

	for (uint16_t i = 0; i < k; i++) {
		assert_int_equal(vdev_pop(&t->dev, &c), 0);
		put_hdr(&c, nbuf);
		put_data(&c, VIO_HDR_LEN, 60 + i, (uint8_t)i);
		vdev_used_put(&t->dev, i, c.head, VIO_HDR_LEN + 60 + i);
	}
	vdev_used_publish(&t->dev, k);
}

/* Frames read in place, bursts of 1 to 40 over a 64-slot ring: lengths
 * and bytes exact, the ring full again after each put, no buffer lost or
 * gained by the pool, the port's counters exact. */
static void test_rx(void **state)
{
	for (int mode = 0; mode < 4; mode++) {
		bool order = mode & 1, mrg = mode & 2;
		struct tq *t = tq_inplace(true, 64, order, mrg);
		unsigned int avail = rte_mempool_avail_count(pool);
		uint64_t npk = 0, bytes = 0;

		for (int round = 0; round < 200; round++) {
			uint16_t k = (uint16_t)(1 + round % 40), got = 0;
			struct vf_slot s[64];
			bool other = false;

			dev_frames(t, k, 1);
			while (got < k) {
				uint16_t n = ops->rx_get(&t->q, s, 32, &other);

				assert_false(other);
				assert_true(n > 0);
				for (uint16_t i = 0; i < n; i++) {
					assert_int_equal(s[i].len, 60 + got + i);
					vt_check_frame(s[i].data, s[i].len, (uint8_t)(got + i));
					bytes += s[i].len;
				}
				ops->rx_put(&t->q, s, n);
				got += n;
			}
			npk += k;
			assert_int_equal(t->q.vq.nfree, 0);	/* every buffer posted again */
			assert_int_equal(ops->rx_get(&t->q, s, 32, &other), 0);
			assert_false(other);
		}
		assert_int_equal(rte_mempool_avail_count(pool), avail);
		assert_int_equal(t->q.st.packets, npk);
		assert_int_equal(t->q.st.bytes, bytes);
		assert_int_equal(t->q.st.errors, 0);
		tq_free(t);
	}
}

/* What cannot be read in place stops the burst before it and is left in
 * the ring, untaken, for the mbuf burst, which counts it as it always
 * did: a length beyond the buffer, a runt, a packet over three buffers
 * (mergeable), an id that names nothing (the ring breaks there). */
static void test_rx_handover(void **state)
{
	for (int order = 0; order < 2; order++) {
		struct tq *t = tq_inplace(true, 16, order, true);
		unsigned int avail = rte_mempool_avail_count(pool);
		struct vdev_chain c[8];
		struct rte_mbuf *m[8];
		struct vf_slot s[8];
		bool other = false;

		for (int i = 0; i < 8; i++)
			assert_int_equal(vdev_pop(&t->dev, &c[i]), 0);
		for (int i = 0; i < 8; i++) {
			put_hdr(&c[i], 1);
			put_data(&c[i], VIO_HDR_LEN, 64, (uint8_t)i);
		}
		vdev_used_put(&t->dev, 0, c[0].head, VIO_HDR_LEN + 64);	/* good */
		vdev_used_put(&t->dev, 1, c[1].head, c[1].d[0].len + 1);	/* beyond */
		vdev_used_put(&t->dev, 2, c[2].head, 5);			/* runt */
		vdev_used_put(&t->dev, 3, c[3].head, VIO_HDR_LEN + 64);	/* good */
		put_hdr(&c[4], 3);					/* 3 buffers */
		vdev_used_put(&t->dev, 4, c[4].head, VIO_HDR_LEN + 64);
		vdev_used_put(&t->dev, 5, c[5].head, 64);
		vdev_used_put(&t->dev, 6, c[6].head, 64);
		vdev_used_put(&t->dev, 7, c[7].head, VIO_HDR_LEN + 64);	/* good */
		vdev_used_publish(&t->dev, 8);

		assert_int_equal(ops->rx_get(&t->q, s, 8, &other), 1);
		assert_false(other);
		vt_check_frame(s[0].data, 64, 0);
		ops->rx_put(&t->q, s, 1);
		/* the bad length: not taken, the caller is told */
		assert_int_equal(ops->rx_get(&t->q, s, 8, &other), 0);
		assert_true(other);
		assert_int_equal(t->q.st.bad_len, 0);
		/* the mbuf burst drops both bad ones and takes the good one */
		assert_int_equal(vio_rx_burst(&t->q, m, 1), 1);
		vt_check_frame(rte_pktmbuf_mtod(m[0], uint8_t *), 64, 3);
		rte_pktmbuf_free(m[0]);
		assert_int_equal(t->q.st.bad_len, 2);
		/* the three-buffer packet: handed over too */
		other = false;
		assert_int_equal(ops->rx_get(&t->q, s, 8, &other), 0);
		assert_true(other);
		assert_int_equal(vio_rx_burst(&t->q, m, 1), 1);
		assert_int_equal(m[0]->nb_segs, 3);
		rte_pktmbuf_free(m[0]);
		other = false;
		assert_int_equal(ops->rx_get(&t->q, s, 8, &other), 1);
		vt_check_frame(s[0].data, 64, 7);
		ops->rx_put(&t->q, s, 1);
		assert_false(t->q.vq.broken);

		/* an id that names no buffer: handed over, the burst breaks it */
		vdev_used(&t->dev, 16 + 3, VIO_HDR_LEN + 64);
		other = false;
		assert_int_equal(ops->rx_get(&t->q, s, 8, &other), 0);
		assert_true(other);
		assert_false(t->q.vq.broken);
		assert_int_equal(vio_rx_burst(&t->q, m, 1), 0);
		assert_true(t->q.vq.broken);
		other = false;
		assert_int_equal(ops->rx_get(&t->q, s, 8, &other), 0);	/* broken: nothing */
		tq_free(t);
		assert_int_equal(rte_mempool_avail_count(pool), avail + 16);
	}
}

/* Frames built in place go out as one descriptor each, header all zero
 * whatever the pool buffer held; what tx_get handed out beyond tx_put's
 * count goes back; raw buffers and mbuf packets on one ring complete into
 * the pool alike, and a reset returns the ones still posted. */
static void test_tx(void **state)
{
	for (int order = 0; order < 2; order++) {
		unsigned int avail = rte_mempool_avail_count(pool);
		struct tq *t = tq_inplace(false, 32, order, false);
		struct vdev_chain c = { 0 };
		struct vf_slot s[32];
		struct rte_mbuf **junk, *m;
		uint8_t out[2048];
		bool other = false;

		/* every free pool buffer's header room holds junk */
		junk = calloc(avail, sizeof(*junk));
		assert_non_null(junk);
		assert_int_equal(rte_mempool_get_bulk(pool, (void **)junk, avail), 0);
		for (unsigned int i = 0; i < avail; i++)
			memset((uint8_t *)junk[i]->buf_addr + RTE_PKTMBUF_HEADROOM - VIO_HDR_LEN, 0x5a,
			       VIO_HDR_LEN);
		rte_mempool_put_bulk(pool, (void **)junk, avail);
		free(junk);

		assert_int_equal(ops->tx_get(&t->q, s, 8, 100, &other), 8);
		assert_false(other);
		for (int i = 0; i < 5; i++) {
			vt_put_pattern((uint64_t)(uintptr_t)s[i].data, 0, 60 + i, (uint8_t)i);
			s[i].len = 60 + i;
		}
		ops->tx_put(&t->q, s, 5);	/* three unused: back to the pool */
		assert_int_equal(rte_mempool_avail_count(pool), avail - 5);
		m = vt_frame(70, 9);		/* an mbuf packet after them */
		assert_int_equal(vio_tx_burst(&t->q, &m, 1), 1);
		for (int i = 0; i < 6; i++) {
			uint32_t n;

			assert_int_equal(vdev_pop(&t->dev, &c), 0);
			n = chain_read(&c, out, sizeof(out));
			assert_int_equal(n, VIO_HDR_LEN + (i < 5 ? 60 + i : 70));
			for (int b = 0; b < 10; b++)
				assert_int_equal(out[b], 0);
			vt_check_frame(out + VIO_HDR_LEN, n - VIO_HDR_LEN, (uint8_t)(i < 5 ? i : 9));
			if (i < 5)
				assert_int_equal(c.n, 1);
			vdev_used(&t->dev, c.head, 0);
		}
		assert_int_equal(vdev_pop(&t->dev, &c), -1);
		assert_int_equal(t->q.st.packets, 6);
		vio_tx_reclaim(&t->q);
		assert_int_equal(rte_mempool_avail_count(pool), avail);
		assert_int_equal(t->q.vq.nfree, 32);

		/* the pool empty, its buffers done in this ring: the get
		 * reclaims them (before, it waited for a reclaim that only a
		 * get could start) */
		assert_int_equal(ops->tx_get(&t->q, s, 8, 100, &other), 8);
		for (int i = 0; i < 8; i++)
			s[i].len = 60;
		ops->tx_put(&t->q, s, 8);
		for (int i = 0; i < 8; i++) {
			assert_int_equal(vdev_pop(&t->dev, &c), 0);
			vdev_used(&t->dev, c.head, 0);
		}
		{
			unsigned int left = rte_mempool_avail_count(pool);

			junk = calloc(left, sizeof(*junk));
			assert_non_null(junk);
			assert_int_equal(rte_mempool_get_bulk(pool, (void **)junk, left), 0);
			assert_int_equal(ops->tx_get(&t->q, s, 8, 100, &other), 8);
			ops->tx_put(&t->q, s, 0);
			rte_mempool_put_bulk(pool, (void **)junk, left);
			free(junk);
		}
		assert_int_equal(rte_mempool_avail_count(pool), avail);

		/* a ring of 32 takes 32; the rest of the ask goes back */
		assert_int_equal(ops->tx_get(&t->q, s, 40, 100, &other), 32);
		for (int i = 0; i < 32; i++)
			s[i].len = 60;
		ops->tx_put(&t->q, s, 32);
		assert_int_equal(ops->tx_get(&t->q, s, 8, 100, &other), 0);	/* full */
		assert_false(other);
		assert_int_equal(rte_mempool_avail_count(pool), avail - 32);
		/* the device completes 10: the next get reclaims them */
		for (int i = 0; i < 10; i++) {
			assert_int_equal(vdev_pop(&t->dev, &c), 0);
			vdev_used(&t->dev, c.head, 0);
		}
		assert_int_equal(ops->tx_get(&t->q, s, 16, 100, &other), 10);
		ops->tx_put(&t->q, s, 0);
		assert_int_equal(rte_mempool_avail_count(pool), avail - 22);

		/* longer than a buffer: the mbuf burst's */
		assert_int_equal(ops->tx_get(&t->q, s, 1, t->q.room + 1, &other), 0);
		assert_true(other);
		tq_free(t);	/* the reset returns the 22 still posted */
		assert_int_equal(rte_mempool_avail_count(pool), avail);
	}
}

/* A queue that is not ready hands out nothing and says nothing. */
static void test_inplace_not_ready(void **state)
{
	struct tq *r = tq_inplace(true, 16, true, true), *x = tq_inplace(false, 16, true, true);
	struct vf_slot s[4];
	bool other = false;

	dev_frames(r, 2, 1);
	vio_set_ready(&r->q, false);
	vio_set_ready(&x->q, false);
	assert_int_equal(ops->rx_get(&r->q, s, 4, &other), 0);
	assert_int_equal(ops->tx_get(&x->q, s, 4, 100, &other), 0);
	assert_false(other);
	tq_free(r);
	tq_free(x);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rx),
		cmocka_unit_test(test_rx_handover),
		cmocka_unit_test(test_tx),
		cmocka_unit_test(test_inplace_not_ready),
		cmocka_unit_test(test_not_ready),
	};

	return vt_run(argv[0], "vio_ip", tests);
}
