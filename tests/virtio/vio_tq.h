/* The rx/tx burst tests' queue fixture, written once for both ring
 * layouts: a driver queue (virtio_rxtx.h) with its device played in plain
 * memory (vdev_emu.h, vdev_emu_packed.h), the tx chain's bytes as the
 * device reads them, and the main that runs a test group over the tests'
 * EAL and pool.  A test file defines VT_PACKED before including this for
 * packed rings; without it the rings are split.  Include after cmocka.h. */
#ifndef VIO_TQ_H
#define VIO_TQ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "virtio_rxtx.h"
#include "vio_testframes.h"

/* The layout's names, so that one fixture and one test serve both. */
#ifdef VT_PACKED
#include "vdev_emu_packed.h"
typedef struct vpdev vt_dev;
typedef struct vpdev_chain vt_chain;
#define vt_alloc vio_queue_alloc_packed
#define vt_reset(q, in_order, mrg) vio_queue_reset_packed(q, in_order, mrg, false)
#define vt_fill vio_rx_fill_packed
#define vt_dev_init(d, q) vpdev_init(d, &(q)->pq)
#define vt_tx_burst vio_tx_burst_packed
#define vt_rx_burst vio_rx_burst_packed
#else
#include "vdev_emu.h"
typedef struct vdev vt_dev;
typedef struct vdev_chain vt_chain;
#define vt_alloc vio_queue_alloc
#define vt_reset(q, in_order, mrg) vio_queue_reset(q, in_order, mrg)
#define vt_fill vio_rx_fill
#define vt_dev_init(d, q) vdev_init(d, &(q)->vq)
#define vt_tx_burst vio_tx_burst
#define vt_rx_burst vio_rx_burst
#endif

struct tq {
	struct vio_queue q;
	vt_dev dev;
};

/* A ready queue of size slots on the tests' pool; an rx queue is filled. */
static struct tq *tq_new(bool rx, uint16_t size, bool in_order, bool mrg)
{
	struct tq *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	assert_int_equal(vt_alloc(&t->q, size, rx, (int)rte_socket_id()), 0);
	vt_reset(&t->q, in_order, mrg);
	t->q.pool = pool;
	t->q.kickfd = eventfd(0, EFD_NONBLOCK);
	vt_dev_init(&t->dev, &t->q);
	if (rx)
		assert_int_equal(vt_fill(&t->q), size);
	vio_set_ready(&t->q, true);
	return t;
}

/* The reset returns every mbuf the queue held to the pool. */
static void tq_free(struct tq *t)
{
	vio_set_ready(&t->q, false);
	vt_reset(&t->q, true, false);
	close(t->q.kickfd);
	vio_queue_free(&t->q);
	free(t);
}

/* Copies a tx chain's bytes out (device view) and returns the length. */
static uint32_t chain_read(const vt_chain *c, uint8_t *out, uint32_t max)
{
	uint32_t n = 0;

	for (uint16_t i = 0; i < c->n; i++)
		n = vt_desc_append(out, n, max, c->d[i].addr, c->d[i].len);
	return n;
}

/* Device side of rx: the header (num_buffers nbuf) and frame bytes
 * seed, seed+1, ... at off in a chain's first buffer. */
static void put_hdr(const vt_chain *c, uint16_t nbuf)
{
	vt_put_rx_hdr(c->d[0].addr, nbuf);
}

static void put_data(const vt_chain *c, uint32_t off, uint32_t len, uint8_t seed)
{
	vt_put_pattern(c->d[0].addr, off, len, seed);
}

/* A queue that is not ready takes nothing and gives nothing. */
static void test_not_ready(void **state)
{
	struct tq *t = tq_new(false, 16, true, true);
	struct rte_mbuf *m = vt_frame(60, 0);

	vio_set_ready(&t->q, false);
	assert_int_equal(vt_tx_burst(&t->q, &m, 1), 0);
	assert_int_equal(vt_rx_burst(&t->q, &m, 1), 0);
	rte_pktmbuf_free(m);
	tq_free(t);
}

/* Runs the group over the tests' EAL and pool (file prefix tag), then
 * frees both; cmocka's status, or 1 when the EAL did not start. */
#define vt_run(argv0, tag, tests) \
	vt_run_group(argv0, tag, tests, sizeof(tests) / sizeof((tests)[0]))

static inline int vt_run_group(char *argv0, const char *tag,
			       const struct CMUnitTest *tests, size_t n)
{
	pool = vt_eal_pool(argv0, tag);
	if (pool == NULL)
		return 1;
	/* the group's name as cmocka_run_group_tests(tests, ...) gives it */
	int rc = _cmocka_run_group_tests("tests", tests, n, NULL, NULL);

	rte_mempool_free(pool);
	vf_runtime_stop();
	return rc;
}

#endif
