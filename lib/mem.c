#include "vf_mem.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>

#include <rte_fbarray.h>
#include <rte_memory.h>

struct walk_ctx {
	struct vf_mem_region *out;
	int max, n, err;
};

static int walk_list(const struct rte_memseg_list *msl, void *arg)
{
	struct walk_ctx *c = arg;
	const struct rte_fbarray *arr = &msl->memseg_arr;
	struct rte_memseg *first;
	size_t off;
	int fidx, lidx, fd;

	if (msl->external)
		return 0;
	fidx = rte_fbarray_find_next_used((struct rte_fbarray *)arr, 0);
	if (fidx < 0)
		return 0;	/* nothing allocated in this list */
	lidx = rte_fbarray_find_prev_used((struct rte_fbarray *)arr, arr->len - 1);
	first = rte_fbarray_get(arr, (unsigned int)fidx);
	fd = rte_memseg_get_fd_thread_unsafe(first);
	if (fd < 0 || rte_memseg_get_fd_offset_thread_unsafe(first, &off) < 0) {
		c->err = -ENOTSUP;
		return -1;
	}
	if (c->n == c->max) {
		c->err = -E2BIG;
		return -1;
	}
	/* With single-file segments one fd backs the whole list and a page's
	 * offset in it equals its offset from the list base. */
	c->out[c->n].addr = first->addr;
	c->out[c->n].len = (size_t)(lidx - fidx + 1) * msl->page_sz;
	c->out[c->n].fd = fd;
	c->out[c->n].offset = off;
	c->n++;
	return 0;
}

int vf_mem_regions(struct vf_mem_region *out, int max)
{
	struct walk_ctx c = { .out = out, .max = max };

	if (rte_memseg_list_walk(walk_list, &c) < 0)
		return c.err ? c.err : -ENOTSUP;
	return c.n;
}

const struct vf_mem_region *vf_mem_find(const struct vf_mem_region *regs, int n,
					const void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr;

	for (int i = 0; i < n; i++) {
		uintptr_t b = (uintptr_t)regs[i].addr;
		if (a >= b && a - b <= regs[i].len && len <= regs[i].len - (a - b))
			return &regs[i];
	}
	return NULL;
}

void *vf_mem_shared_alloc(size_t len, const char *name, int *fd)
{
	void *p;
	int f = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (f < 0)
		return NULL;
	if (ftruncate(f, (off_t)len) < 0) {
		int e = errno;
		close(f);
		errno = e;
		return NULL;
	}
	/* The size is final: a peer that maps it can rely on that. */
	(void)fcntl(f, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
	if (p == MAP_FAILED) {
		int e = errno;
		close(f);
		errno = e;
		return NULL;
	}
	memset(p, 0, len);
	*fd = f;
	return p;
}

void vf_mem_shared_free(void *addr, size_t len, int fd)
{
	if (addr)
		munmap(addr, len);
	if (fd >= 0)
		close(fd);
}
