/* SET_MEM_TABLE validation and mapping (hardening.md A5, B1; protocols.md
 * §1.7 and pitfall 14). */
#include "vhost_mem.h"

#include <errno.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "vf_peermem.h"

/* Fills why and evaluates to -EINVAL. */
#define FAIL(...) (snprintf(why, whylen, __VA_ARGS__), -EINVAL)

static int overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	/* both ranges are known not to wrap */
	return a < b + blen && b < a + alen;
}

static int map_all(struct vh_mem *out, const struct vhost_user_mem_table *t,
		   uint32_t msg_size, const int *fds, unsigned int nfds,
		   char *why, size_t whylen)
{
	uint32_t n;
	int rc;

	memset(out, 0, sizeof(*out));
	if (msg_size < 8)
		return FAIL("memory table of %u bytes", msg_size);
	n = t->nregions;
	if (n == 0 || n > VHOST_USER_MAX_REGIONS)
		return FAIL("memory table with %u regions", n);
	if (msg_size < 8 + n * sizeof(struct vhost_user_mem_region))
		return FAIL("memory table size %u too short", msg_size);
	if (nfds != n)
		return FAIL("memory table with %u fds", nfds);

	for (uint32_t i = 0; i < n; i++) {
		const struct vhost_user_mem_region *r = &t->regions[i];
		uint64_t end, map_len;
		struct stat st;

		if (r->memory_size == 0)
			return FAIL("region %u has size 0", i);
		if (__builtin_add_overflow(r->guest_phys_addr, r->memory_size, &end) ||
		    __builtin_add_overflow(r->userspace_addr, r->memory_size, &end) ||
		    __builtin_add_overflow(r->mmap_offset, r->memory_size, &end))
			return FAIL("region %u size overflows", i);
		for (uint32_t j = 0; j < i; j++) {
			const struct vhost_user_mem_region *o = &t->regions[j];

			if (overlap(r->guest_phys_addr, r->memory_size,
				    o->guest_phys_addr, o->memory_size) ||
			    overlap(r->userspace_addr, r->memory_size,
				    o->userspace_addr, o->memory_size))
				return FAIL("region %u overlaps another", i);
		}
		bool sealed;

		if (fds[i] < 0 || fstat(fds[i], &st) < 0)
			return FAIL("region %u: bad fd", i);
		/* A file shorter than the region would SIGBUS us later; one
		 * that shrinks after this is handled by vh_mem_watch. */
		if (vf_peermem_check_fd(fds[i], end, &sealed) != 0)
			return FAIL("region %u is larger than its file", i);
		/* Map from offset 0, length rounded to the fd's block size
		 * (hugetlbfs rejects other lengths). */
		uint64_t align = st.st_blksize > 0 ? (uint64_t)st.st_blksize : 4096;
		if (__builtin_add_overflow(end, align - 1, &map_len) || map_len > SIZE_MAX)
			return FAIL("region %u size overflows", i);
		map_len -= map_len % align;
		void *base = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_NORESERVE, fds[i], 0);
		if (base == MAP_FAILED) {
			rc = -errno;
			snprintf(why, whylen, "region %u: mmap: %s", i, strerror(-rc));
			return rc == -ENOMEM ? -ENOMEM : -EINVAL;
		}
		/* Kept for a takeover (vhost_takeover.h): a new daemon maps
		 * the same file; one fd per region is within our budget. */
		int keep = fcntl(fds[i], F_DUPFD_CLOEXEC, 0);

		if (keep < 0) {
			munmap(base, map_len);
			snprintf(why, whylen, "region %u: dup: %s", i, strerror(errno));
			return -ENOMEM;
		}
		out->r[i] = (struct vh_mem_reg){
			.gpa = r->guest_phys_addr, .size = r->memory_size,
			.uva = r->userspace_addr,
			.host = (uint8_t *)base + r->mmap_offset,
			.map_base = base, .map_len = map_len, .sealed = sealed,
			.fd = keep, .mmap_offset = r->mmap_offset,
		};
		out->nregions = i + 1;
	}
	return 0;
}

int vh_mem_map(struct vh_mem *out, const struct vhost_user_mem_table *t,
	       uint32_t msg_size, const int *fds, unsigned int nfds,
	       char *why, size_t whylen)
{
	int rc = map_all(out, t, msg_size, fds, nfds, why, whylen);

	if (rc)		/* regions mapped before the bad one go too */
		vh_mem_unmap(out);
	return rc;
}

void vh_mem_unmap(struct vh_mem *m)
{
	for (uint32_t i = 0; i < m->nregions; i++) {
		vf_peermem_unregister(m->r[i].pm);
		if (m->r[i].map_base)
			munmap(m->r[i].map_base, m->r[i].map_len);
		if (m->r[i].map_base && m->r[i].fd >= 0)
			close(m->r[i].fd);
	}
	memset(m, 0, sizeof(*m));
}

int vh_mem_watch(struct vh_mem *m, void (*cb)(void *arg, void *addr), void *arg)
{
	for (uint32_t i = 0; i < m->nregions; i++) {
		int h = vf_peermem_register(m->r[i].map_base, m->r[i].map_len, cb, arg);

		if (h < 0)
			return h;
		m->r[i].pm = h;
	}
	return 0;
}

uint8_t *vh_uva(const struct vh_mem *m, uint64_t uva, uint64_t len)
{
	uint64_t want = len ? len : 1;

	for (uint32_t i = 0; i < m->nregions; i++) {
		const struct vh_mem_reg *r = &m->r[i];
		uint64_t off = uva - r->uva;

		if (uva >= r->uva && off < r->size && want <= r->size - off)
			return r->host + off;
	}
	return NULL;
}
