/* Offloads through the vhost port's burst functions on a split ring laid
 * out by hand (as test_vhost_datapath.c): the guest's virtio-net headers
 * taken into the mbufs on the fast path (one descriptor) and the general
 * one (a frame larger than an mbuf), a bad header dropped and counted, and
 * on enqueue a TSO frame either cut in software (the guest did not
 * negotiate GUEST_TSO4) or written with its GSO header across mergeable
 * buffers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <linux/virtio_net.h>
#include <rte_mbuf.h>

#include "vf_runtime.h"
#include "vhost/virtqueue.h"
#include "vh_testring.h"

#define RING 64
#define BUF_OFF 0x10000		/* buffer i at BUF_OFF + i * 0x4000 */

static struct rte_mempool *pool;

static int group_setup(void **state)
{
	pool = vht_eal_pool("vhtest_ol", 128, "vhol", 1024);
	return pool ? 0 : -1;
}

static int group_teardown(void **state)
{
	vht_eal_pool_free(pool);
	return 0;
}

static int setup(void **state)
{
	struct split_fx *f = calloc(1, sizeof(*f));

	if (split_fx_open(f, RING, 12, true, false, -1, pool))
		return -1;
	/* as SET_FEATURES with CSUM, GUEST_CSUM, HOST_TSO4/6 (GUEST_TSO per test) */
	vh_ol_set_features(&f->vq, (1ull << VIRTIO_NET_F_CSUM) | (1ull << VIRTIO_NET_F_GUEST_CSUM) |
			   (1ull << VIRTIO_NET_F_HOST_TSO4) | (1ull << VIRTIO_NET_F_HOST_TSO6));
	f->vq.ready = true;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct split_fx *f = *state;

	vh_mem_unmap(&f->mem);
	guest_close(&f->g);
	assert_int_equal(rte_mempool_avail_count(pool), 1024);
	free(f);
	return 0;
}

static uint8_t *buf(struct split_fx *f, uint16_t i)
{
	return f->g.va + BUF_OFF + i * 0x4000u;
}

/* Ethernet + IPv4 + TCP (20 bytes) + payload, at p; its length. */
static uint32_t tcp4(uint8_t *p, uint32_t payload)
{
	uint32_t len = 54 + payload;

	memset(p, 0, 54);
	p[12] = 0x08;
	p[14] = 0x45;
	p[16] = (uint8_t)((40 + payload) >> 8);
	p[17] = (uint8_t)(40 + payload);
	p[22] = 64;
	p[23] = 6;
	p[46] = 0x50;		/* doff 5 */
	p[47] = 0x18;		/* PSH ACK */
	for (uint32_t i = 0; i < payload; i++)
		p[54 + i] = (uint8_t)(i * 13);
	return len;
}

/* One tx descriptor at slot/buffer i: header h, then the frame. */
static void post_tx(struct split_fx *f, uint16_t i, struct virtio_net_hdr h, uint32_t payload)
{
	uint8_t *b = buf(f, i);
	uint32_t len;

	memset(b, 0, 12);
	memcpy(b, &h, sizeof(h));
	len = tcp4(b + 12, payload);
	f->d[i] = (struct vring_desc){ GUEST_GPA + BUF_OFF + i * 0x4000ull, 12 + len, 0, 0 };
	split_fx_post(f, i);
}

static struct virtio_net_hdr tso_hdr(uint16_t mss)
{
	return (struct virtio_net_hdr){ .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
					.gso_type = VIRTIO_NET_HDR_GSO_TCPV4, .gso_size = mss,
					.hdr_len = 54, .csum_start = 34, .csum_offset = 16 };
}

/* Dequeues: a 3000-byte TSO frame (general path: more than one mbuf), a
 * NEEDS_CSUM frame (fast path), a TSO header with gso_size 0 (dropped). */
static uint16_t dequeue_three(struct split_fx *f, struct rte_mbuf **pkts)
{
	struct virtio_net_hdr cs = { .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .csum_start = 34,
				     .csum_offset = 16 };

	post_tx(f, 0, tso_hdr(1448), 3000);
	post_tx(f, 1, cs, 100);
	post_tx(f, 2, tso_hdr(0), 3000);
	return vh_ol_dequeue(&f->vq, pkts, 8);
}

static void test_dequeue_headers(void **state)
{
	struct split_fx *f = *state;
	struct rte_mbuf *pkts[8];

	assert_int_equal(dequeue_three(f, pkts), 2);
	assert_int_equal(pkts[0]->pkt_len, 3054);
	assert_true(pkts[0]->nb_segs > 1);
	assert_int_equal(pkts[0]->ol_flags & (RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_L4_MASK |
					      RTE_MBUF_F_TX_IPV4),
			 RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_TCP_CKSUM | RTE_MBUF_F_TX_IPV4);
	assert_int_equal(pkts[0]->tso_segsz, 1448);
	assert_int_equal(pkts[0]->l2_len + pkts[0]->l3_len + pkts[0]->l4_len, 54);
	assert_int_equal(pkts[1]->pkt_len, 154);
	assert_int_equal(pkts[1]->ol_flags & (RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_L4_MASK),
			 RTE_MBUF_F_TX_TCP_CKSUM);
	assert_int_equal(f->vq.ol.rx.tso, 1);
	assert_int_equal(f->vq.ol.rx.csum, 1);
	assert_int_equal(f->vq.ol.rx.err[VNET_OL_BAD_GSO_SIZE], 1);
	assert_int_equal(vh_ol_rx_dropped(&f->vq), 1);
	/* the refused frame is not a received one; its buffer went back */
	assert_int_equal(f->vq.st.packets, 2);
	assert_int_equal(f->vq.st.bytes, 3054 + 154);
	assert_int_equal(f->used->idx, 3);
	rte_pktmbuf_free_bulk(pkts, 2);
	/* Not negotiated: the same TSO header is not looked at (the frame
	 * passes as plain data, as before offloads existed). */
	vh_ol_set_features(&f->vq, 0);
	post_tx(f, 3, tso_hdr(1448), 3000);
	assert_int_equal(vh_ol_dequeue(&f->vq, pkts, 8), 1);
	assert_int_equal(pkts[0]->ol_flags, 0);
	rte_pktmbuf_free(pkts[0]);
}

/* rx buffers of 2048 bytes, one descriptor each, from slot `from` */
static void post_rx(struct split_fx *f, uint16_t from, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		uint16_t s = (uint16_t)(from + i);

		f->d[s] = (struct vring_desc){ GUEST_GPA + BUF_OFF + s * 0x4000ull, 2048,
					       VRING_DESC_F_WRITE, 0 };
		split_fx_post(f, s);
	}
}

static void test_enqueue_software_tso(void **state)
{
	struct split_fx *f = *state;
	struct rte_mbuf *pkts[8];
	uint16_t u0;

	assert_int_equal(dequeue_three(f, pkts), 2);
	/* the guest has GUEST_CSUM but not GUEST_TSO4: cut in software,
	 * 1448 + 1448 + 104 payload bytes, each frame in its own buffer with
	 * an all-zero header (checksums done) */
	u0 = f->used->idx;
	post_rx(f, 10, 8);
	assert_int_equal(vh_ol_enqueue(&f->vq, pkts, 1), 1);
	assert_int_equal(f->vq.ol.tx.st.sw_tso, 1);
	assert_int_equal(f->vq.ol.tx.st.sw_tso_segs, 3);
	assert_int_equal((uint16_t)(f->used->idx - u0), 3);
	for (int i = 0; i < 3; i++) {
		struct vring_used_elem *e = &f->used->ring[(u0 + i) % RING];
		const struct virtio_net_hdr_mrg_rxbuf *h = (const void *)buf(f, (uint16_t)e->id);
		uint32_t plen = i < 2 ? 1448 : 104;
		const uint8_t *ip = buf(f, (uint16_t)e->id) + 12 + 14;

		assert_int_equal(e->len, 12 + 54 + plen);
		assert_int_equal(h->hdr.flags, 0);
		assert_int_equal(h->hdr.gso_type, 0);
		assert_int_equal(h->num_buffers, 1);
		assert_int_equal(ip[2] << 8 | ip[3], 40 + plen);
	}
	/* the NEEDS_CSUM frame: the guest takes partial checksums, so it
	 * goes with NEEDS_CSUM at 34/16 */
	u0 = f->used->idx;
	assert_int_equal(vh_ol_enqueue(&f->vq, pkts + 1, 1), 1);
	{
		struct vring_used_elem *e = &f->used->ring[u0 % RING];
		const struct virtio_net_hdr_mrg_rxbuf *h = (const void *)buf(f, (uint16_t)e->id);

		assert_int_equal(h->hdr.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
		assert_int_equal(h->hdr.csum_start, 34);
		assert_int_equal(h->hdr.csum_offset, 16);
		assert_int_equal(f->vq.ol.tx.st.sw_csum, 0);
	}
}

static void test_enqueue_gso_header(void **state)
{
	struct split_fx *f = *state;
	struct rte_mbuf *pkts[8];
	uint16_t u0;

	assert_int_equal(dequeue_three(f, pkts), 2);
	rte_pktmbuf_free(pkts[1]);
	/* the guest takes TSO: the 3054-byte frame goes as it is, over two
	 * mergeable buffers, with its GSO header in the first */
	vh_ol_set_features(&f->vq, (1ull << VIRTIO_NET_F_CSUM) | (1ull << VIRTIO_NET_F_GUEST_CSUM) |
			   (1ull << VIRTIO_NET_F_HOST_TSO4) | (1ull << VIRTIO_NET_F_GUEST_TSO4));
	u0 = f->used->idx;
	post_rx(f, 10, 4);
	assert_int_equal(vh_ol_enqueue(&f->vq, pkts, 1), 1);
	assert_int_equal(f->vq.ol.tx.st.sw_tso, 0);
	assert_int_equal((uint16_t)(f->used->idx - u0), 2);
	{
		struct vring_used_elem *e = &f->used->ring[u0 % RING];
		const struct virtio_net_hdr_mrg_rxbuf *h = (const void *)buf(f, (uint16_t)e->id);

		assert_int_equal(h->hdr.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
		assert_int_equal(h->hdr.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
		assert_int_equal(h->hdr.gso_size, 1448);
		assert_int_equal(h->hdr.hdr_len, 54);
		assert_int_equal(h->hdr.csum_start, 34);
		assert_int_equal(h->hdr.csum_offset, 16);
		assert_int_equal(h->num_buffers, 2);
		assert_int_equal(e->len + f->used->ring[(u0 + 1) % RING].len, 12 + 3054);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dequeue_headers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enqueue_software_tso, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enqueue_gso_header, setup, teardown),
	};

	return cmocka_run_group_tests_name("vhost_offload", tests, group_setup, group_teardown);
}
