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

struct rte_mempool;

#define VF_MEM_MAX_REGIONS 8

struct vf_mem_region {
	void *addr;		/* our virtual address of the region start */
	size_t len;		/* bytes */
	int fd;			/* owned by DPDK: do not close */
	uint64_t offset;	/* offset of addr inside fd */
};

/* The peer heap: the only memory we hand to peers (virtio_user's
 * SET_MEM_TABLE, memif zero-copy regions), a memfd of our own, sealed
 * against shrinking and growing, so a peer that ftruncates the fd it got is
 * refused (EPERM) instead of making our next access raise SIGBUS.  It holds
 * what the protocols need a peer to reach and nothing else: packet data
 * buffers (vf_mem_pool_create), virtio rings and tx headers
 * (vf_mem_share_alloc).  Its bookkeeping is private (issue 31): no mbuf
 * header, no mempool ring or header, no allocator header and no queue state
 * lives in it, so a peer that overwrites every byte of it can corrupt
 * packets and ring entries (which we validate) but not a pointer we follow.
 * With hugepages the memfd is a hugetlb one when that works.  Call once,
 * after the EAL; 0 or -errno (then peers get DPDK's heap, see
 * vf_mem_regions). */
int vf_mem_peer_heap_create(size_t len, bool hugepages);
/* Whether there is one. */
bool vf_mem_peer_heap(void);

/* Zeroed memory a peer will map (rings, headers), align a power of two <=
 * 4096: from the peer heap when there is one, else from DPDK's heap on
 * socket (which vf_mem_regions then shares whole).  NULL when full. */
void *vf_mem_share_alloc(size_t len, size_t align, int socket);
void vf_mem_share_free(void *p);

/* A packet mbuf pool.  With a peer heap: mbuf headers and the mempool
 * (header, ring, caches) in DPDK's heap, which no peer gets; each mbuf's
 * data room pinned to it in the peer heap (DPDK's pinned external buffers,
 * RTE_MBUF_F_EXTERNAL: see vf_mbuf_owned).  Without one:
 * rte_pktmbuf_pool_create() on socket.  NULL with rte_errno set. */
struct rte_mempool *vf_mem_pool_create(const char *name, unsigned int n, unsigned int cache,
				       uint16_t data_room, int socket);

/* Lists the regions that hold the memory we hand to peers: the peer heap
 * when there is one, else the DPDK heap (where mempools live: then a peer
 * reaches every mbuf header and DPDK's heap metadata, as with DPDK's own
 * virtio_user; the case with a dpdk: port, whose DMA needs IOVAs).
 * Returns the count (<= max), or -errno (-ENOTSUP when the memory cannot be
 * shared, e.g. legacy hugepages without single-file segments). */
int vf_mem_regions(struct vf_mem_region *out, int max);

/* Whether every packet buffer of mp lies in regs (its pinned data area,
 * or its memory chunks for a pool of direct mbufs). */
bool vf_mem_pool_in(const struct vf_mem_region *regs, int n, struct rte_mempool *mp);

/* The region holding [addr, addr+len), or NULL. */
const struct vf_mem_region *vf_mem_find(const struct vf_mem_region *regs, int n,
					const void *addr, size_t len);

/* A fresh memfd of len bytes mapped shared (rings, private regions).
 * Returns the address (fd in *fd) or NULL with errno set. */
void *vf_mem_shared_alloc(size_t len, const char *name, int *fd);
void vf_mem_shared_free(void *addr, size_t len, int fd);

#endif
