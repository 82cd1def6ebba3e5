/* Memory ordering between us and a peer on another core, for shared rings
 * (virtio split/packed, memif).  C11 orders, one place; every use says what
 * it pairs with. */
#ifndef VRING_SYNC_H
#define VRING_SYNC_H

#include <stdint.h>

/* Read an index/flags word the peer publishes; later reads of the data it
 * guards (descriptors, buffers) are ordered after it. */
static inline uint16_t vf_load_acq16(const volatile uint16_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
static inline uint32_t vf_load_acq32(const volatile uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
/* Publish an index/flags word; earlier writes of what it guards become
 * visible to the peer first. */
static inline void vf_store_rel16(volatile uint16_t *p, uint16_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}
static inline void vf_store_rel32(volatile uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}
/* Store->load fence: after publishing an index, before reading the peer's
 * notification-suppression field (lost wake-ups otherwise, even on x86). */
static inline void vf_mb(void)
{
#if defined(__x86_64__)
	/* A locked add to the stack orders store->load as mfence does, at
	 * about half the cost (mfence also waits for non-temporal and
	 * write-combining stores, which rings never use). */
	__asm__ volatile("lock addl $0, -128(%%rsp)" ::: "memory", "cc");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

#endif
