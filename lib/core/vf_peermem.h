/* Peer shared memory that may shrink under us (hardening.md F11/FI15).
 *
 * A peer that hands us a memfd (vhost-user SET_MEM_TABLE, memif ADD_REGION)
 * can ftruncate it after we mapped it; the next access to a page past the
 * new end raises SIGBUS on whichever thread touches it, usually a
 * forwarding core in the middle of a burst.  Drivers register every such
 * mapping here.  A SIGBUS whose address lies in a registered mapping is
 * handled: the whole mapping is replaced (MAP_FIXED) with anonymous zero
 * pages, so the faulting access and every later one succeed, and the
 * mapping's owner is told on the control thread (its callback), where it
 * disconnects that peer with a reason.  Other ports are not touched.  A
 * SIGBUS anywhere else goes to the handler that was installed before ours
 * (ASan's in a sanitizer build) or gets the default action.
 *
 * The data path pays nothing: no check, no syscall; the cost is one
 * registry scan on a fault. */
#ifndef VF_PEERMEM_H
#define VF_PEERMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Runs on the control thread (under the control lock) once per faulted
 * mapping; addr is the registered start. */
typedef void (*vf_peermem_cb)(void *arg, void *addr);

/* The process-wide part, once: the control thread, its eventfd, the
 * handler.  Idempotent; vf_peermem_register calls it.  0 or -errno. */
int vf_peermem_init(void);

/* Watch [addr, addr+len) (what mmap returned and its length).  Installs
 * the SIGBUS handler on first use and starts the control thread.  Returns
 * a handle > 0, or -errno (-ENOSPC: registry full). */
int vf_peermem_register(void *addr, size_t len, vf_peermem_cb cb, void *arg);
/* Forget a mapping; call it before munmap.  handle <= 0 is ignored. */
void vf_peermem_unregister(int handle);

/* fstat fd: 0 when the file holds at least need bytes (or is not a
 * regular file: a shared-memory object of fixed size), -EFBIG when it is
 * shorter, -EBADF when fstat fails.  *sealed (may be NULL) tells whether
 * the file is sealed against shrinking (F_SEAL_SHRINK). */
int vf_peermem_check_fd(int fd, uint64_t need, bool *sealed);

/* SIGBUS faults handled in peer mappings since start. */
uint64_t vf_peermem_faults(void);

#endif
