/* Quiescence between the control thread and the forwarding cores.
 *
 * A driver that is about to unmap peer memory (disconnect, new memory table)
 * first marks its queues as not ready, then calls vf_sync_wait(): when it
 * returns, every forwarding core has finished the burst it was in, so none
 * still holds a pointer into the old mapping. */
#ifndef VF_SYNC_H
#define VF_SYNC_H

#include <stdbool.h>
#include <stdint.h>

void vf_sync_wait(void);

/* vf_sync_wait() in two halves, for a caller that must not spin: a
 * token, then whether every forwarding core has reported a quiescent
 * state (finished one more pass over its streams) since it was taken. */
uint64_t vf_sync_token(void);
bool vf_sync_passed(uint64_t token);

/* Engine side: a forwarding core registers, reports a quiescent state
 * between bursts, and goes offline when it stops. */
void vf_sync_thread_online(unsigned int lcore);
void vf_sync_thread_offline(unsigned int lcore);
void vf_sync_quiescent(unsigned int lcore);
int vf_sync_init(void);

/* Drain: the control thread lets the forwarding cores go on taking what a
 * peer already published, and returns once none of the n counters (each
 * written by one core, e.g. a queue's packet count) moved for idle_us, or
 * after max_us in all.  Returns how many of them moved. */
uint64_t vf_sync_idle(const uint64_t *const *ctr, unsigned int n,
		      unsigned int idle_us, unsigned int max_us);

#endif
