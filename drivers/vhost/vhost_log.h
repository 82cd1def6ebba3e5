/* Dirty-page logging for live migration (VHOST_F_LOG_ALL, protocol
 * feature LOG_SHMFD): the front-end's log bitmap, one bit per 4 KiB page
 * of guest-physical memory (bit p%8 of byte p/8 for page p), and the
 * marking of every byte we write into guest memory while it is on
 * (protocols.md §1.11).
 *
 * The data path reads vq->dirty_log once per burst: NULL (logging off)
 * costs one predictable branch per burst.  When LOG_ALL is negotiated but
 * no usable log was given, the ring points at vh_log_none (no bytes):
 * pages are then counted in log_miss, never written anywhere. */
#ifndef VH_LOG_H
#define VH_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "vhost_mem.h"
#include "vq_types.h"

#define VH_LOG_PAGE_SHIFT 12	/* VHOST_LOG_PAGE 0x1000 */
/* vq->log_used_gpa when SET_VRING_ADDR gave no VHOST_VRING_F_LOG address. */
#define VH_LOG_NO_GPA UINT64_MAX

struct vh_log {
	uint8_t *bits;		/* mapping + mmap_offset */
	uint64_t size;		/* bytes of bitmap: pages 0 .. 8*size-1 */
	void *map_base;
	size_t map_len;
	int pm;			/* vf_peermem handle, 0: none */
	int fd;			/* our copy of the fd (takeover), -1: none */
	uint64_t offset;	/* mmap_offset as received */
};

extern const struct vh_log vh_log_none;

/* Bitmap bytes the memory table m needs (0 without a table). */
uint64_t vh_log_need(const struct vh_mem *m);

/* Validates a SET_LOG_BASE (mmap_size, mmap_offset, fd) against the file
 * and the memory table and maps it: *out gets a new log.  The fd is not
 * closed.  0, or -EINVAL/-ENOMEM with the reason in why. */
int vh_log_map(struct vh_log **out, int fd, uint64_t size, uint64_t offset,
	       const struct vh_mem *mem, char *why, size_t whylen);
void vh_log_free(struct vh_log *l);	/* NULL ignored */

/* Data path (called only when vq->dirty_log is set).  Each marks the pages
 * of what was just written; pages the log cannot hold are added to
 * vq->st.log_miss. */
void vh_log_host(struct vh_vq *vq, const struct vh_log *l, const void *p, uint64_t len);
/* The first len bytes of the segments of c. */
void vh_log_chain(struct vh_vq *vq, const struct vh_log *l, const struct vh_chain *c,
		  uint64_t len);
/* Split: used entries [old, new) and avail_event (before the used index
 * is published), then the used flags and index (after). */
void vh_log_split_used(struct vh_vq *vq, const struct vh_log *l, uint16_t old, uint16_t new_used);
void vh_log_split_idx(struct vh_vq *vq, const struct vh_log *l);
/* Packed: n descriptor slots from slot (wrapping), and the device event
 * area. */
void vh_log_packed_used(struct vh_vq *vq, const struct vh_log *l, uint16_t slot, uint32_t n);
/* A ring (re)started: what vh_vq_start wrote (used flags, event areas). */
void vh_log_ring_start(struct vh_vq *vq);

#endif
