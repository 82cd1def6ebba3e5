#include "vf_sync.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

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

uint64_t vf_sync_token(void)
{
	return qs ? rte_rcu_qsbr_start(qs) : 0;
}

bool vf_sync_passed(uint64_t token)
{
	return qs == NULL || rte_rcu_qsbr_check(qs, token, false) == 1;
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t vf_sync_idle(const uint64_t *const *ctr, unsigned int n,
		      unsigned int idle_us, unsigned int max_us)
{
	uint64_t first[64], seen[64], start = mono_us(), moved = start, sum = 0;

	if (n > 64)
		n = 64;
	for (unsigned int i = 0; i < n; i++)
		first[i] = seen[i] = __atomic_load_n(ctr[i], __ATOMIC_RELAXED);
	for (;;) {
		uint64_t t;

		for (unsigned int i = 0; i < n; i++) {
			uint64_t v = __atomic_load_n(ctr[i], __ATOMIC_RELAXED);

			if (v != seen[i]) {
				seen[i] = v;
				moved = mono_us();
			}
		}
		t = mono_us();
		if (t - moved >= idle_us || t - start >= max_us)
			break;
		usleep(50);
	}
	for (unsigned int i = 0; i < n; i++)
		sum += seen[i] - first[i];
	return sum;
}
