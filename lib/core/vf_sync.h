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

/* Drain handshake: the control thread raises *req on each ring once the
 * peer said it stopped publishing; the ring's core copies it to *ack on a
 * burst that read the request before it looked at the ring and found
 * nothing there (so everything published before has been taken).
 * vf_sync_drain() waits for every ack, for at most max_us; a ring whose
 * core shows no ack and none of its counters moving over two full passes
 * of every forwarding core (no core polls it) is left as it is, and so is
 * one that broke.  Returns how many rings were left undrained. */
struct vf_drain_ring {
	uint32_t *req;
	const uint32_t *ack;
	const uint64_t *moved[3];	/* the core still takes: NULL unused */
	const bool *broken;		/* NULL: cannot break */
};
unsigned int vf_sync_drain(struct vf_drain_ring *r, unsigned int n, unsigned int max_us);

static inline void vf_drain_ack(uint32_t *ack, uint32_t dreq)
{
	if (__builtin_expect(dreq != *ack, 0))
		__atomic_store_n(ack, dreq, __ATOMIC_RELEASE);
}

/* Engine side: a forwarding core registers, reports a quiescent state
 * between bursts, and goes offline when it stops. */
void vf_sync_thread_online(unsigned int lcore);
void vf_sync_thread_offline(unsigned int lcore);
void vf_sync_quiescent(unsigned int lcore);
/* A core that sleeps (rx modes) is offline meanwhile, so that the control
 * thread does not wait for it; back online it reads the queues' state
 * afresh before it touches a ring. */
void vf_sync_sleep(unsigned int lcore);
void vf_sync_wake(unsigned int lcore);
/* Wakes every sleeping forwarding core (the engine installs how, once it
 * has wake fds).  A driver calls it from its control thread when a queue
 * became ready or its event fd changed, so that a core asleep on the old
 * state arms the new one now and not at its sleep's timeout; a drain
 * calls it so that a sleeping core answers.  Any thread; a no-op before
 * the engine ran. */
void vf_sync_set_kick(void (*fn)(void));
void vf_sync_kick(void);
int vf_sync_init(void);

#endif
