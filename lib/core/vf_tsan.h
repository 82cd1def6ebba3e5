/* ThreadSanitizer hand-off annotations (tests/tsan/run.sh).
 *
 * DPDK is not built with -fsanitize=thread, so TSan cannot see the
 * synchronisation inside it: rte_eal_remote_launch()/rte_eal_wait_lcore()
 * order the main thread's start-up writes against the forwarding lcore
 * with atomics in DPDK's own code (lib/fwd/engine.c annotates both).  A
 * mempool's ring hands mbufs between threads the same way; no annotation
 * there so far: each such recycle is followed by a ring's `ready` release
 * that the taking core acquires (tests/tsan/FINDINGS.md).  These
 * macros state such a hand-off to TSan: vf_tsan_release(p) on the giving
 * side, vf_tsan_acquire(p) on the taking side, on the same address.
 * Outside a TSan build they compile to nothing: no code on the data path. */
#ifndef VF_TSAN_H
#define VF_TSAN_H

#if defined(__SANITIZE_THREAD__)
#define VF_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define VF_TSAN 1
#endif
#endif

#ifdef VF_TSAN
#include <sanitizer/tsan_interface.h>
#define vf_tsan_release(p) __tsan_release((void *)(p))
#define vf_tsan_acquire(p) __tsan_acquire((void *)(p))
#else
#define vf_tsan_release(p) ((void)0)
#define vf_tsan_acquire(p) ((void)0)
#endif

#endif
