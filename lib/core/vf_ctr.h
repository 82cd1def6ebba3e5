/* Counters with a single writer (a forwarding core, a driver queue's
 * burst function) that other threads read (stats, the shell, the control
 * thread).  A plain `c += n` against such a read is a data race in C terms
 * (and ThreadSanitizer reports it); these are relaxed atomic loads and
 * stores instead, plain movs on x86-64 and arm64.  No locked
 * read-modify-write: the one writer loads, adds and stores, so a reader
 * sees some recent value, never a torn one.  A second writer would lose
 * updates: a counter two threads bump needs __atomic_fetch_add instead. */
#ifndef VF_CTR_H
#define VF_CTR_H

#define vf_ctr_read(c) __atomic_load_n(&(c), __ATOMIC_RELAXED)
#define vf_ctr_set(c, v) __atomic_store_n(&(c), (v), __ATOMIC_RELAXED)
#define vf_ctr_add(c, n) vf_ctr_set(c, vf_ctr_read(c) + (n))

#endif
