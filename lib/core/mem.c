#include "vf_mem.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_fbarray.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_mempool.h>
#include <rte_memory.h>

#include "vf_log.h"

#define PEER_HEAP "vf_peer"

static struct vf_mem_region peer = { .fd = -1 };
static int peer_socket = -1;

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

static size_t huge_page_size(void)
{
	char line[128];
	size_t kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Hugepagesize: %zu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/* A sealed memfd of at least len bytes (rounded up in *len), mapped
 * shared at *addr, in pages of *pgsz: hugetlb first when asked (its mmap
 * reserves the pages, so a machine without enough free ones falls back
 * here, not to a SIGBUS later), else normal pages.  fd or -errno. */
static int sealed_memfd(size_t *len, size_t *pgsz, void **addr, bool huge)
{
	int err = ENOMEM;

	for (int try = huge ? 0 : 1; try < 2; try++) {
		size_t pg = try == 0 ? huge_page_size() : (size_t)sysconf(_SC_PAGESIZE);
		unsigned int fl = MFD_CLOEXEC | MFD_ALLOW_SEALING | (try == 0 ? MFD_HUGETLB : 0);
		size_t l;
		void *p;
		int fd;

		if (pg == 0)
			continue;
		l = (*len + pg - 1) / pg * pg;
		fd = memfd_create(PEER_HEAP, fl);
		if (fd < 0) {
			err = errno;
			continue;
		}
		if (ftruncate(fd, (off_t)l) < 0 ||
		    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0 ||
		    (p = mmap(NULL, l, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
			err = errno;
			close(fd);
			continue;
		}
		*len = l;
		*pgsz = pg;
		*addr = p;
		return fd;
	}
	return -err;
}

int vf_mem_peer_heap_create(size_t len, bool hugepages)
{
	size_t pgsz = 0;
	void *p = NULL;
	int fd, rc;

	if (peer_socket >= 0)
		return peer_socket;
	fd = sealed_memfd(&len, &pgsz, &p, hugepages);
	if (fd < 0)
		return fd;
	if (rte_malloc_heap_create(PEER_HEAP) != 0 ||
	    rte_malloc_heap_memory_add(PEER_HEAP, p, len, NULL, (unsigned int)(len / pgsz),
				       pgsz) != 0) {
		rc = -rte_errno;
		rte_malloc_heap_destroy(PEER_HEAP);
		munmap(p, len);
		close(fd);
		return rc ? rc : -ENOMEM;
	}
	peer.addr = p;
	peer.len = len;
	peer.fd = fd;
	peer.offset = 0;
	peer_socket = rte_malloc_heap_get_socket(PEER_HEAP);
	VF_DEBUG("peer heap: %zu MiB in a sealed memfd, %zu KiB pages, socket %d",
		 len >> 20, pgsz >> 10, peer_socket);
	return peer_socket;
}

struct rte_mempool *vf_mem_pool_create(const char *name, unsigned int n, unsigned int cache,
				       uint16_t data_room, int socket)
{
	struct rte_pktmbuf_pool_private priv = { .mbuf_data_room_size = data_room };
	struct rte_mempool *mp;
	int rc;

	mp = rte_mempool_create_empty(name, n, sizeof(struct rte_mbuf) + data_room, cache,
				      sizeof(priv), socket, RTE_MEMPOOL_F_NO_IOVA_CONTIG);
	if (mp == NULL)
		return NULL;
	rc = rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), NULL);
	if (rc == 0) {
		rte_pktmbuf_pool_init(mp, &priv);
		rc = rte_mempool_populate_default(mp);
		rc = rc < 0 ? rc : 0;
	}
	if (rc != 0) {
		rte_mempool_free(mp);
		rte_errno = -rc;
		return NULL;
	}
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;
}

int vf_mem_peer_socket(void)
{
	return peer_socket;
}

int vf_mem_regions(struct vf_mem_region *out, int max)
{
	struct walk_ctx c = { .out = out, .max = max };

	if (peer_socket >= 0) {
		if (max < 1)
			return -E2BIG;
		out[0] = peer;
		return 1;
	}

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
