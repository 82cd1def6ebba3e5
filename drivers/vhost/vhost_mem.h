/* The front-end's memory as we see it: one mapping per SET_MEM_TABLE region,
 * and bounded translation of the two address spaces a front-end uses
 * (guest-physical in descriptors, its own virtual addresses for rings). */
#ifndef VH_MEM_H
#define VH_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/vhost_user_proto.h"

struct vh_mem_reg {
	uint64_t gpa;		/* guest-physical start */
	uint64_t size;		/* bytes, > 0 */
	uint64_t uva;		/* front-end virtual start */
	uint8_t *host;		/* our address of gpa */
	void *map_base;		/* what mmap returned */
	size_t map_len;
	bool sealed;		/* the file cannot shrink (F_SEAL_SHRINK) */
	int pm;			/* peer mapping handle (vf_peermem), 0: none */
	int fd;			/* our copy of the region's fd, for a takeover */
	uint64_t mmap_offset;	/* as received */
};

struct vh_mem {
	uint32_t nregions;	/* 0: no table */
	struct vh_mem_reg r[VHOST_USER_MAX_REGIONS];
};

/* Validates and maps a SET_MEM_TABLE payload of msg_size bytes with its fds
 * into out (which must be empty).  The fds are not closed (the caller owns
 * them).  Returns 0, or -EINVAL / -ENOMEM with a reason in why and out left
 * empty. */
int vh_mem_map(struct vh_mem *out, const struct vhost_user_mem_table *t,
	       uint32_t msg_size, const int *fds, unsigned int nfds,
	       char *why, size_t whylen);
void vh_mem_unmap(struct vh_mem *m);	/* idempotent */
/* Registers every mapping of m with vf_peermem: a front-end that truncates
 * its file later costs a SIGBUS that is survived, and cb(arg) runs on the
 * control thread.  0 or -errno. */
int vh_mem_watch(struct vh_mem *m, void (*cb)(void *arg, void *addr), void *arg);

/* Host address of guest-physical gpa, with *len clamped to the bytes that
 * are contiguous from there inside the same region.  NULL (and *len 0) when
 * gpa is in no region.  A zero *len on entry is treated as one byte. */
static inline uint8_t *vh_gpa_part(const struct vh_mem *m, uint64_t gpa,
				   uint64_t *len)
{
	for (uint32_t i = 0; i < m->nregions; i++) {
		const struct vh_mem_reg *r = &m->r[i];
		uint64_t off = gpa - r->gpa;

		if (gpa >= r->gpa && off < r->size) {
			uint64_t room = r->size - off;

			if (*len > room)
				*len = room;
			return r->host + off;
		}
	}
	*len = 0;
	return NULL;
}

/* Host address of [gpa, gpa+len) when the whole range lies in one region
 * (len 0 is checked as one byte), else NULL. */
static inline uint8_t *vh_gpa(const struct vh_mem *m, uint64_t gpa, uint64_t len)
{
	uint64_t want = len ? len : 1, got = want;
	uint8_t *p = vh_gpa_part(m, gpa, &got);

	return got == want ? p : NULL;
}

/* The same for a front-end virtual address (ring addresses). */
uint8_t *vh_uva(const struct vh_mem *m, uint64_t uva, uint64_t len);

#endif
