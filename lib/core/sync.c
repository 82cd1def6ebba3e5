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

void vf_sync_sleep(unsigned int lcore)
{
	rte_rcu_qsbr_thread_offline(qs, lcore);
}

void vf_sync_wake(unsigned int lcore)
{
	rte_rcu_qsbr_thread_online(qs, lcore);
}

static void (*kick_fn)(void);

void vf_sync_set_kick(void (*fn)(void))
{
	__atomic_store_n(&kick_fn, fn, __ATOMIC_RELEASE);
}

void vf_sync_kick(void)
{
	void (*fn)(void) = __atomic_load_n(&kick_fn, __ATOMIC_ACQUIRE);

	if (fn)
		fn();
}

void vf_sync_quiescent(unsigned int lcore)
{
	rte_rcu_qsbr_quiescent(qs, lcore);
}

void vf_sync_wait(void)
{
	/* Threads that are offline (not forwarding) count as quiescent.
	 * rte_rcu_qsbr_synchronize() without its own-thread case: the start
	 * and the check are inline here, so their acquire loads of the
	 * cores' quiescent-state stores are our code's, which
	 * ThreadSanitizer sees (the library's copy it does not). */
	if (qs)
		rte_rcu_qsbr_check(qs, rte_rcu_qsbr_start(qs), true);
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

static uint64_t drain_moves(const struct vf_drain_ring *r)
{
	uint64_t m = 0;

	for (unsigned int k = 0; k < 3; k++)
		if (r->moved[k])
			m += __atomic_load_n(r->moved[k], __ATOMIC_RELAXED);
	return m;
}

static bool drain_done(const struct vf_drain_ring *r, uint32_t want)
{
	return __atomic_load_n(r->ack, __ATOMIC_ACQUIRE) == want ||
	       (r->broken && __atomic_load_n(r->broken, __ATOMIC_RELAXED));
}

unsigned int vf_sync_drain(struct vf_drain_ring *r, unsigned int n, unsigned int max_us)
{
	uint32_t want[64];
	uint64_t moved[64], start = mono_us();
	unsigned int still = 0, left = 0;

	if (n > 64)
		n = 64;
	for (unsigned int i = 0; i < n; i++) {
		want[i] = __atomic_load_n(r[i].req, __ATOMIC_RELAXED) + 1;
		moved[i] = drain_moves(&r[i]);
		__atomic_store_n(r[i].req, want[i], __ATOMIC_RELEASE);
	}
	/* A core asleep on these rings (rx modes) wakes and answers. */
	vf_sync_kick();
	while (still < 2 && mono_us() - start < max_us) {
		uint64_t tok = vf_sync_token();
		bool progress = false;

		left = 0;
		while (!vf_sync_passed(tok) && mono_us() - start < max_us)
			usleep(20);
		for (unsigned int i = 0; i < n; i++) {
			uint64_t m;

			if (drain_done(&r[i], want[i]))
				continue;
			left++;
			m = drain_moves(&r[i]);
			progress |= m != moved[i];
			moved[i] = m;
		}
		if (left == 0)
			break;
		still = progress ? 0 : still + 1;
	}
	return left;
}
