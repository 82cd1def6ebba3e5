/* The fast mbuf helpers against real DPDK mbufs (EAL without hugepages):
 * every field a PMD relies on, and the pool's in-use count after frees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "vf_mbuf.h"
#include "vf_runtime.h"

static struct rte_mempool *mp, *mp2;

static int setup(void **state)
{
	struct vf_runtime_opts o = { .tool = "test_mbuf", .lcores = "0", .main_lcore = -1,
				     .eal_args = "", .mem_mb = 128 };

	if (vf_runtime_start(&o))
		return -1;
	mp = rte_pktmbuf_pool_create("t1", 1023, 32, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	mp2 = rte_pktmbuf_pool_create("t2", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	return mp && mp2 ? 0 : -1;
}

static int teardown(void **state)
{
	rte_mempool_free(mp);
	rte_mempool_free(mp2);
	vf_runtime_stop();
	return 0;
}

static void test_alloc_fields(void **state)
{
	struct rte_mbuf *m[64];

	/* dirty some mbufs first so that stale fields would show */
	for (int round = 0; round < 3; round++) {
		assert_int_equal(vf_mbuf_alloc_bulk_len(mp, m, 64, 7, 60 + round), 0);
		for (int i = 0; i < 64; i++) {
			assert_int_equal(m[i]->data_off, RTE_PKTMBUF_HEADROOM);
			assert_int_equal(rte_mbuf_refcnt_read(m[i]), 1);
			assert_int_equal(m[i]->nb_segs, 1);
			assert_int_equal(m[i]->port, 7);
			assert_null(m[i]->next);
			assert_int_equal(m[i]->pkt_len, 60 + round);
			assert_int_equal(m[i]->data_len, 60 + round);
			assert_int_equal(m[i]->ol_flags, 0);
			assert_int_equal(m[i]->packet_type, 0);
			assert_int_equal(m[i]->vlan_tci, 0);
			assert_int_equal(m[i]->tx_offload, 0);
			assert_int_equal(rte_pktmbuf_pkt_len(m[i]), 60 + round);
			m[i]->ol_flags = RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_IP_CKSUM_BAD;
			m[i]->packet_type = ~0u;
			m[i]->vlan_tci = 0xffff;
		}
		vf_mbuf_free_bulk(m, 64);
		assert_int_equal(rte_mempool_in_use_count(mp), 0);
	}
	assert_int_equal(vf_mbuf_alloc_bulk_len(mp, m, 64, 0, 64), 0);
	assert_int_equal(rte_mempool_in_use_count(mp), 64);
	vf_mbuf_free_bulk(m, 64);
}

static void test_free_general_cases(void **state)
{
	struct rte_mbuf *m[8], *seg;

	/* mixed pools, a chain, a shared mbuf: the general path frees right */
	assert_int_equal(vf_mbuf_alloc_bulk_len(mp, m, 4, 0, 64), 0);
	assert_int_equal(vf_mbuf_alloc_bulk_len(mp2, m + 4, 2, 0, 64), 0);
	seg = rte_pktmbuf_alloc(mp);
	assert_non_null(seg);
	assert_int_equal(rte_pktmbuf_chain(m[1], seg), 0);
	rte_mbuf_refcnt_update(m[2], 1);	/* a second owner keeps it */
	m[6] = m[2];
	vf_mbuf_free_bulk(m, 7);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
	assert_int_equal(rte_mempool_in_use_count(mp2), 0);
	vf_mbuf_free_bulk(m, 0);
}

static void test_exhaustion(void **state)
{
	struct rte_mbuf *m[256];

	assert_int_equal(vf_mbuf_alloc_bulk_len(mp2, m, 255, 0, 64), 0);
	assert_int_not_equal(vf_mbuf_alloc_bulk_len(mp2, m + 255, 1, 0, 64), 0);
	vf_mbuf_free_bulk(m, 255);
	assert_int_equal(rte_mempool_in_use_count(mp2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_fields),
		cmocka_unit_test(test_free_general_cases),
		cmocka_unit_test(test_exhaustion),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
