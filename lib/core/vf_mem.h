/* Memory a driver can hand to a peer by file descriptor.
 *
 * The runtime starts DPDK so that every memseg list is backed by one file
 * (memfd without hugepages, one hugetlbfs file per list with them), so all
 * mbuf pools live in at most a handful of fd-backed regions. */
#ifndef VF_MEM_H
#define VF_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VF_MEM_MAX_REGIONS 8

struct vf_mem_region {
	void *addr;		/* our virtual address of the region start */
	size_t len;		/* bytes */
	int fd;			/* owned by DPDK: do not close */
	uint64_t offset;	/* offset of addr inside fd */
};

/* The peer heap: memory we hand to peers (virtio_user's SET_MEM_TABLE,
 * memif zero-copy regions) in a memfd of our own, sealed against shrinking
 * and growing, so a peer that ftruncates the fd it got is refused (EPERM)
 * instead of making our next access to the mbuf pool raise SIGBUS.  DPDK's
 * own heap memfd cannot be sealed (it is created without
 * MFD_ALLOW_SEALING).  It is an external DPDK malloc heap: allocate from it
 * by its socket id (mempools, rings).  With hugepages the memfd is a
 * hugetlb one when that works.  Call once, after the EAL; returns the
 * socket id (>= 0) or -errno (DPDK's heap stays the shared one). */
int vf_mem_peer_heap_create(size_t len, bool hugepages);
/* Its socket id, or -1 when there is none. */
int vf_mem_peer_socket(void);

/* A packet mbuf pool as rte_pktmbuf_pool_create() makes, but with objects
 * packed across page boundaries (RTE_MEMPOOL_F_NO_IOVA_CONTIG): in the peer
 * heap (external memory, no IOVAs) DPDK would otherwise give every 2.4 KiB
 * mbuf a 4 KiB page of its own.  Our software ports address buffers by
 * virtual address only; a dpdk: port's pool stays on DPDK's heap and
 * rte_pktmbuf_pool_create().  NULL with rte_errno set on failure. */
struct rte_mempool *vf_mem_pool_create(const char *name, unsigned int n, unsigned int cache,
				       uint16_t data_room, int socket);

/* Lists the regions that hold the memory we hand to peers: the peer heap
 * when there is one, else the DPDK heap (where mempools live).
 * Returns the count (<= max), or -errno (-ENOTSUP when the memory cannot be
 * shared, e.g. legacy hugepages without single-file segments). */
int vf_mem_regions(struct vf_mem_region *out, int max);

struct rte_mempool;

/* The region holding [addr, addr+len), or NULL. */
const struct vf_mem_region *vf_mem_find(const struct vf_mem_region *regs, int n,
					const void *addr, size_t len);

/* A fresh memfd of len bytes mapped shared (rings, private regions).
 * Returns the address (fd in *fd) or NULL with errno set. */
void *vf_mem_shared_alloc(size_t len, const char *name, int *fd);
void vf_mem_shared_free(void *addr, size_t len, int fd);

#endif
