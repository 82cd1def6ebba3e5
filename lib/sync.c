#include "vf_sync.h"

#include <errno.h>
#include <stdlib.h>

#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

static struct rte_rcu_qsbr *qs;

int vf_sync_init(void)
{
	size_t sz;

	if (qs)
		return 0;
	sz = rte_rcu_qsbr_get_memsize(RTE_MAX_LCORE);
	qs = rte_zmalloc("vf_sync", sz, RTE_CACHE_LINE_SIZE);
	if (!qs)
		return -ENOMEM;
	return rte_rcu_qsbr_init(qs, RTE_MAX_LCORE);
}

void vf_sync_thread_online(unsigned int lcore)
{
	rte_rcu_qsbr_thread_register(qs, lcore);
	rte_rcu_qsbr_thread_online(qs, lcore);
}

void vf_sync_thread_offline(unsigned int lcore)
{
	rte_rcu_qsbr_thread_offline(qs, lcore);
	rte_rcu_qsbr_thread_unregister(qs, lcore);
}

void vf_sync_quiescent(unsigned int lcore)
{
	rte_rcu_qsbr_quiescent(qs, lcore);
}

void vf_sync_wait(void)
{
	/* Threads that are offline (not forwarding) count as quiescent. */
	if (qs)
		rte_rcu_qsbr_synchronize(qs, RTE_QSBR_THRID_INVALID);
}
