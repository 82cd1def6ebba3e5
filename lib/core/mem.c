/* rte_pktmbuf_pool_create_extbuf (vf_mem_pool_create) is experimental in
 * DPDK 22.11 and the one way to pin each mbuf's data room outside its
 * header; this file alone opts in. */
#define ALLOW_EXPERIMENTAL_API 1

#include "vf_mem.h"

#include <errno.h>
#include <pthread.h>
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
#define PEER_BLOCKS 1024

static struct vf_mem_region peer = { .fd = -1 };
/* The peer heap's blocks in use, sorted by offset (vf_mem_share_alloc). */
static struct { size_t off, len; } blk[PEER_BLOCKS];
static unsigned int nblk;
static pthread_mutex_t peer_lock = PTHREAD_MUTEX_INITIALIZER;
/* Pools with their data rooms in the peer heap (vf_mem_pool_in). */
static struct {
	struct rte_mempool *mp;
	void *addr;
	size_t len;
} pools[8];
static unsigned int npools;

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
	int fd;

	if (peer.addr != NULL)
		return 0;
	fd = sealed_memfd(&len, &pgsz, &p, hugepages);
	if (fd < 0)
		return fd;
	peer.addr = p;
	peer.len = len;
	peer.fd = fd;
	peer.offset = 0;
	VF_DEBUG("peer heap: %zu MiB in a sealed memfd, %zu KiB pages", len >> 20, pgsz >> 10);
	return 0;
}

bool vf_mem_peer_heap(void)
{
	return peer.addr != NULL;
}

/* The peer heap's allocator: first fit over a sorted array of the blocks
 * in use, kept here, in private memory.  A handful of allocations a port
 * (rings, headers) and one a pool; only control paths allocate. */
void *vf_mem_share_alloc(size_t len, size_t align, int socket)
{
	size_t at = 0;
	void *r = NULL;

	if (peer.addr == NULL)
		return rte_zmalloc_socket("vf_share", len, align, socket);
	if (align < 64)
		align = 64;
	if (len == 0 || (align & (align - 1)) || align > 4096 || len > peer.len)
		return NULL;
	len = (len + 63) & ~(size_t)63;
	pthread_mutex_lock(&peer_lock);
	for (unsigned int i = 0; i <= nblk && nblk < PEER_BLOCKS; i++) {
		size_t start = (at + align - 1) & ~(align - 1);
		size_t end = i < nblk ? blk[i].off : peer.len;

		if (start <= end && end - start >= len) {
			memmove(&blk[i + 1], &blk[i], (nblk - i) * sizeof(blk[0]));
			blk[i].off = start;
			blk[i].len = len;
			nblk++;
			r = (char *)peer.addr + start;
			break;
		}
		if (i < nblk)
			at = blk[i].off + blk[i].len;
	}
	pthread_mutex_unlock(&peer_lock);
	if (r != NULL)
		memset(r, 0, len);	/* a peer may have written there */
	return r;
}

void vf_mem_share_free(void *p)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)peer.addr;

	if (p == NULL)
		return;
	if (peer.addr == NULL || a < b || a >= b + peer.len) {
		rte_free(p);
		return;
	}
	pthread_mutex_lock(&peer_lock);
	for (unsigned int i = 0; i < nblk; i++) {
		if (blk[i].off == a - b) {
			memmove(&blk[i], &blk[i + 1], (nblk - i - 1) * sizeof(blk[0]));
			nblk--;
			break;
		}
	}
	pthread_mutex_unlock(&peer_lock);
}

struct rte_mempool *vf_mem_pool_create(const char *name, unsigned int n, unsigned int cache,
				       uint16_t data_room, int socket)
{
	struct rte_pktmbuf_extmem ext = { .buf_iova = RTE_BAD_IOVA };
	struct rte_mempool *mp;

	if (peer.addr == NULL)
		return rte_pktmbuf_pool_create(name, n, cache, 0, data_room, socket);
	if (npools == RTE_DIM(pools)) {
		rte_errno = ENOSPC;
		return NULL;
	}
	/* Data rooms back to back, a cache line each at least: no mbuf header
	 * between them (the header is DPDK's heap, which no peer maps). */
	ext.elt_size = (uint16_t)((data_room + RTE_CACHE_LINE_SIZE - 1) &
				  ~(RTE_CACHE_LINE_SIZE - 1));
	ext.buf_len = (size_t)n * ext.elt_size;
	ext.buf_ptr = vf_mem_share_alloc(ext.buf_len, 4096, socket);
	if (ext.buf_ptr == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	mp = rte_pktmbuf_pool_create_extbuf(name, n, cache, 0, data_room, socket, &ext, 1);
	if (mp == NULL) {
		int e = rte_errno;

		vf_mem_share_free(ext.buf_ptr);
		rte_errno = e;
		return NULL;
	}
	pools[npools].mp = mp;
	pools[npools].addr = ext.buf_ptr;
	pools[npools].len = ext.buf_len;
	npools++;
	return mp;
}

struct pool_chk {
	const struct vf_mem_region *regs;
	int n;
	bool ok;
};

static void pool_chunk(struct rte_mempool *mp, void *arg, struct rte_mempool_memhdr *mh,
		       unsigned int idx)
{
	struct pool_chk *c = arg;

	(void)mp;
	(void)idx;
	if (vf_mem_find(c->regs, c->n, mh->addr, mh->len) == NULL)
		c->ok = false;
}

bool vf_mem_pool_in(const struct vf_mem_region *regs, int n, struct rte_mempool *mp)
{
	struct pool_chk c = { regs, n, true };

	if (mp == NULL)
		return false;
	for (unsigned int i = 0; i < npools; i++)
		if (pools[i].mp == mp)
			return vf_mem_find(regs, n, pools[i].addr, pools[i].len) != NULL;
	/* Pinned buffers elsewhere: not ours to say where they lie. */
	if (rte_pktmbuf_priv_flags(mp) & RTE_PKTMBUF_POOL_F_PINNED_EXT_BUF)
		return false;
	rte_mempool_mem_iter(mp, pool_chunk, &c);
	return c.ok;
}

int vf_mem_regions(struct vf_mem_region *out, int max)
{
	struct walk_ctx c = { .out = out, .max = max };

	if (peer.addr != NULL) {
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
