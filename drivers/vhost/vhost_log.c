/* Dirty-page log (vhost_log.h): SET_LOG_BASE validation and mapping, and
 * the marking of written guest memory.  The choice of log per ring
 * (vh_log_update) is the device's (vhost_dev.h). */
#include "vhost_log.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "vf_ctr.h"
#include "vf_peermem.h"

const struct vh_log vh_log_none;

#define PAGE (1ull << VH_LOG_PAGE_SHIFT)
#define MIB(x) ((unsigned long long)((x) >> 20))

uint64_t vh_log_need(const struct vh_mem *m)
{
	uint64_t end = 0;

	for (uint32_t i = 0; i < m->nregions; i++)
		if (m->r[i].gpa + m->r[i].size > end)
			end = m->r[i].gpa + m->r[i].size;	/* no wrap: checked at map */
	if (!end)
		return 0;
	/* pages [0, ceil(end / 4 KiB)), one bit each */
	return ((end - 1) >> VH_LOG_PAGE_SHIFT) / 8 + 1;
}

int vh_log_map(struct vh_log **out, int fd, uint64_t size, uint64_t offset,
	       const struct vh_mem *mem, char *why, size_t whylen)
{
	uint64_t end, need = vh_log_need(mem);
	struct stat st;
	struct vh_log *l;
	void *base;

	*out = NULL;
	if (size == 0) {
		snprintf(why, whylen, "log of 0 bytes");
		return -EINVAL;
	}
	if (__builtin_add_overflow(size, offset, &end) || end > SIZE_MAX) {
		snprintf(why, whylen, "log size 0x%llx + offset 0x%llx overflows",
			 (unsigned long long)size, (unsigned long long)offset);
		return -EINVAL;
	}
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(why, whylen, "bad log fd");
		return -EINVAL;
	}
	/* Past the end of the file every access would SIGBUS. */
	if (vf_peermem_check_fd(fd, end, NULL) != 0) {
		snprintf(why, whylen, "log [0x%llx, 0x%llx) lies beyond its file of %lld bytes",
			 (unsigned long long)offset, (unsigned long long)end,
			 (long long)st.st_size);
		return -EINVAL;
	}
	if (size < need) {
		snprintf(why, whylen, "log of %llu bytes covers %llu MiB of guest memory; "
			 "the memory table reaches %llu MiB (%llu bytes needed)",
			 (unsigned long long)size, MIB(size * 8 * PAGE),
			 MIB(need * 8 * PAGE), (unsigned long long)need);
		return -EINVAL;
	}
	l = calloc(1, sizeof(*l));
	if (!l) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	/* From offset 0 (mmap offsets must be page aligned, the log's need
	 * not be). */
	base = mmap(NULL, (size_t)end, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
	if (base == MAP_FAILED) {
		int rc = -errno;

		free(l);
		snprintf(why, whylen, "log mmap of %llu bytes: %s", (unsigned long long)end,
			 strerror(-rc));
		return rc == -ENOMEM ? -ENOMEM : -EINVAL;
	}
	l->map_base = base;
	l->map_len = (size_t)end;
	l->bits = (uint8_t *)base + offset;
	l->size = size;
	l->offset = offset;
	/* Kept for a takeover (vhost_takeover.h); -1: the log works without. */
	l->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	*out = l;
	return 0;
}

void vh_log_free(struct vh_log *l)
{
	if (!l || l == &vh_log_none)
		return;
	vf_peermem_unregister(l->pm);
	munmap(l->map_base, l->map_len);
	if (l->fd >= 0)
		close(l->fd);
	free(l);
}

/* ---- data path --------------------------------------------------------- */

static void mark(struct vh_vq *vq, const struct vh_log *l, uint64_t gpa, uint64_t len)
{
	uint64_t last, p;

	if (!len)
		return;
	if (__builtin_add_overflow(gpa, len - 1, &last)) {
		vf_ctr_add(vq->st.log_miss, 1);
		return;
	}
	last >>= VH_LOG_PAGE_SHIFT;
	for (p = gpa >> VH_LOG_PAGE_SHIFT; p <= last; p++) {
		uint64_t byte = p >> 3;
		uint8_t bit = (uint8_t)(1u << (p & 7));

		if (byte >= l->size) {
			vf_ctr_add(vq->st.log_miss, last - p + 1);
			return;
		}
		vf_ctr_add(vq->st.log_pages, 1);
		/* Atomic OR: the front-end clears bits concurrently, and other
		 * cores mark the same bytes.  The write it records came first. */
		if (!(__atomic_load_n(&l->bits[byte], __ATOMIC_RELAXED) & bit))
			__atomic_fetch_or(&l->bits[byte], bit, __ATOMIC_RELEASE);
	}
}

static uint64_t pages_of(uintptr_t p, uint64_t len)
{
	return len ? ((p + len - 1) >> VH_LOG_PAGE_SHIFT) - (p >> VH_LOG_PAGE_SHIFT) + 1 : 0;
}

void vh_log_host(struct vh_vq *vq, const struct vh_log *l, const void *ptr, uint64_t len)
{
	const struct vh_mem *m = vq->mem;
	uintptr_t p = (uintptr_t)ptr;

	while (len) {
		uint32_t i;

		for (i = 0; i < m->nregions; i++) {
			const struct vh_mem_reg *r = &m->r[i];
			uintptr_t lo = (uintptr_t)r->host;

			if (p >= lo && p - lo < r->size) {
				uint64_t off = p - lo, part = r->size - off;

				if (part > len)
					part = len;
				mark(vq, l, r->gpa + off, part);
				p += part;
				len -= part;
				break;
			}
		}
		if (i == m->nregions) {	/* not guest memory: cannot be logged */
			vf_ctr_add(vq->st.log_miss, pages_of(p, len));
			return;
		}
	}
}

void vh_log_chain(struct vh_vq *vq, const struct vh_log *l, const struct vh_chain *c,
		  uint64_t len)
{
	for (unsigned int s = 0; s < c->nseg && len; s++) {
		uint64_t part = c->seg[s].len < len ? c->seg[s].len : len;

		vh_log_host(vq, l, c->seg[s].p, part);
		len -= part;
	}
}

/* Bytes of the split used ring: at the address SET_VRING_ADDR gave for the
 * log when it gave one (VHOST_VRING_F_LOG), else translated. */
static void log_used(struct vh_vq *vq, const struct vh_log *l, const void *p, uint64_t len)
{
	uint64_t base = __atomic_load_n(&vq->log_used_gpa, __ATOMIC_RELAXED);

	if (base == VH_LOG_NO_GPA)
		vh_log_host(vq, l, p, len);
	else
		mark(vq, l, base + (uint64_t)((const uint8_t *)p - (const uint8_t *)vq->used), len);
}

void vh_log_split_used(struct vh_vq *vq, const struct vh_log *l, uint16_t old, uint16_t new_used)
{
	uint32_t n = (uint16_t)(new_used - old), first = old & vq->mask;

	if (n > vq->size)
		n = vq->size;
	if (first + n > vq->size) {
		log_used(vq, l, &vq->used->ring[first], (uint64_t)(vq->size - first) * 8);
		n -= vq->size - first;
		first = 0;
	}
	log_used(vq, l, &vq->used->ring[first], (uint64_t)n * 8);
	if (vq->event_idx)	/* avail_event, after the entries */
		log_used(vq, l, &vq->used->ring[vq->size], 2);
}

void vh_log_split_idx(struct vh_vq *vq, const struct vh_log *l)
{
	log_used(vq, l, vq->used, 4);	/* flags and idx */
}

void vh_log_packed_used(struct vh_vq *vq, const struct vh_log *l, uint16_t slot, uint32_t n)
{
	if (n > vq->size)
		n = vq->size;
	if ((uint32_t)slot + n > vq->size) {
		vh_log_host(vq, l, &vq->pdesc[slot], (uint64_t)(vq->size - slot) * 16);
		n -= vq->size - slot;
		slot = 0;
	}
	vh_log_host(vq, l, &vq->pdesc[slot], (uint64_t)n * 16);
}

void vh_log_ring_start(struct vh_vq *vq)
{
	const struct vh_log *l = __atomic_load_n(&vq->dirty_log, __ATOMIC_ACQUIRE);

	if (!l)
		return;
	if (vq->packed) {
		vh_log_host(vq, l, vq->dev_ev, sizeof(*vq->dev_ev));
	} else {
		vh_log_split_idx(vq, l);
		if (vq->event_idx)
			log_used(vq, l, &vq->used->ring[vq->size], 2);
	}
}
