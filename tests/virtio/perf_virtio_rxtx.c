/* Steady-state cost of the virtio_user burst functions, split and packed,
 * against a device played in the same thread that keeps up (vdev_emu*.h):
 * run under callgrind, the inclusive Ir of vio_{rx,tx}_burst[_packed]
 * divided by the packets printed here is the driver's cost per packet,
 * free of the polling and scheduling noise of a two-process run.
 *
 *   valgrind --tool=callgrind build/tests/virtio/perf_virtio_rxtx \
 *       ROUNDS split|packed IN_ORDER
 *   (bench/virtio_packed_ir.sh does it and prints Ir/packet.) */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "vf_runtime.h"
#include "virtio_rxtx.h"
#include "vdev_emu.h"
#include "vdev_emu_packed.h"

#define BURST 32
#define RING 256

static struct rte_mempool *pool;

static void q_init(struct vio_queue *q, bool packed, bool rx, bool in_order)
{
	if (packed) {
		if (vio_queue_alloc_packed(q, RING, rx, (int)rte_socket_id()) < 0)
			exit(1);
		vio_queue_reset_packed(q, in_order, true, false);
	} else {
		if (vio_queue_alloc(q, RING, rx, (int)rte_socket_id()) < 0)
			exit(1);
		vio_queue_reset(q, in_order, true);
	}
	q->pool = pool;
	q->kickfd = -1;
	/* the device polls: no kicks (packed area / split flags say so) */
	if (packed)
		q->pq.dev->flags = VRING_PACKED_EVENT_FLAG_DISABLE;
	else
		q->vq.used->flags = VRING_USED_F_NO_NOTIFY;
	vio_set_ready(q, true);
}

/* After the device looked at the empty ring. */
static void q_fill(struct vio_queue *q)
{
	if ((q->packed ? vio_rx_fill_packed(q) : vio_rx_fill(q)) != RING)
		exit(1);
}

static void q_fini(struct vio_queue *q)
{
	vio_set_ready(q, false);
	if (q->packed)
		vio_queue_reset_packed(q, true, false, false);
	else
		vio_queue_reset(q, true, false);
	vio_queue_free(q);
}

static void hdr1(uint64_t addr)
{
	struct virtio_net_hdr_mrg_rxbuf *h = (void *)(uintptr_t)addr;

	memset(h, 0, sizeof(*h));
	h->num_buffers = 1;
}

static uint64_t run_tx(bool packed, bool in_order, unsigned rounds)
{
	static struct vio_queue q;
	struct vdev sd = { 0 };
	struct vpdev pd = { 0 };
	struct rte_mbuf *m[BURST];
	uint64_t sent = 0;

	q_init(&q, packed, false, in_order);
	if (packed)
		vpdev_init(&pd, &q.pq);
	else
		vdev_init(&sd, &q.vq);
	for (unsigned r = 0; r < rounds; r++) {
		uint16_t k = 0, nd = 0, last = 0;

		if (rte_pktmbuf_alloc_bulk(pool, m, BURST) != 0)
			exit(1);
		for (int i = 0; i < BURST; i++) {
			m[i]->data_len = m[i]->pkt_len = 64;
		}
		sent += packed ? vio_tx_burst_packed(&q, m, BURST) : vio_tx_burst(&q, m, BURST);
		/* the device takes everything and completes it, one used entry
		 * per burst with in-order (as DPDK and vhostd do) */
		if (packed) {
			struct vpdev_chain c;

			while (vpdev_pop(&pd, &c) == 0) {
				if (!in_order)
					vpdev_used(&pd, c.id, 0, c.n);
				nd += c.n;
				last = c.id;
			}
			if (in_order && nd)
				vpdev_used(&pd, last, 0, nd);
		} else {
			struct vdev_chain c;

			while (vdev_pop(&sd, &c) == 0)
				vdev_used_put(&sd, k++, c.head, 0);
			vdev_used_publish(&sd, k);
		}
	}
	q_fini(&q);
	return sent;
}

static uint64_t run_rx(bool packed, bool in_order, unsigned rounds)
{
	static struct vio_queue q;
	struct vdev sd = { 0 };
	struct vpdev pd = { 0 };
	struct rte_mbuf *m[BURST];
	uint64_t got = 0;

	q_init(&q, packed, true, in_order);
	if (packed)
		vpdev_init(&pd, &q.pq);
	else
		vdev_init(&sd, &q.vq);
	q_fill(&q);
	for (unsigned r = 0; r < rounds; r++) {
		uint16_t n;

		for (uint16_t k = 0; k < BURST; k++) {
			if (packed) {
				struct vpdev_chain c;

				if (vpdev_pop(&pd, &c) != 0)
					break;
				hdr1(c.d[0].addr);
				vpdev_used(&pd, c.id, VIO_HDR_LEN + 64, 1);
			} else {
				struct vdev_chain c;

				if (vdev_pop(&sd, &c) != 0)
					break;
				hdr1(c.d[0].addr);
				vdev_used(&sd, c.head, VIO_HDR_LEN + 64);
			}
		}
		n = packed ? vio_rx_burst_packed(&q, m, BURST) : vio_rx_burst(&q, m, BURST);
		got += n;
		rte_pktmbuf_free_bulk(m, n);
	}
	q_fini(&q);
	return got;
}

int main(int argc, char **argv)
{
	struct vf_runtime_opts o = { .tool = "vioperf", .lcores = "0", .main_lcore = -1,
				     .eal_args = "--no-shconf --no-telemetry", .mem_mb = 128 };
	unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 20000;
	bool packed = argc > 2 && strcmp(argv[2], "packed") == 0;
	bool io = argc > 3 && atoi(argv[3]) != 0;

	if (vf_runtime_start(&o))
		return 1;
	pool = rte_pktmbuf_pool_create("perf", 4095, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
	if (pool == NULL)
		return 1;
	printf("%s in_order=%d tx %llu rx %llu\n", packed ? "packed" : "split", io,
	       (unsigned long long)run_tx(packed, io, rounds),
	       (unsigned long long)run_rx(packed, io, rounds));
	rte_mempool_free(pool);
	vf_runtime_stop();
	return 0;
}
