/* Test helpers: rings laid out by hand in the guest memfd (vh_testmem.h)
 * and mapped through the real memory-table and ring code, with the EAL
 * and mbuf pool the burst functions need.  Internal header of the vhost
 * data-path tests. */
#ifndef VH_TESTRING_H
#define VH_TESTRING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_mbuf.h>

#include "vf_runtime.h"
#include "vhost/virtqueue.h"
#include "vh_testmem.h"

/* Split ring areas at the start of guest memory. */
#define SPLIT_DESC_OFF 0x0
#define SPLIT_AVAIL_OFF 0x1000
#define SPLIT_USED_OFF 0x2000

/* Group set-up of the burst tests: EAL on lcore 0, one mbuf pool of n. */
static inline struct rte_mempool *vht_eal_pool(const char *tool, size_t mem_mb,
					       const char *pool_name, unsigned int n)
{
	struct vf_runtime_opts o = { .tool = tool, .lcores = "0", .main_lcore = -1,
				     .eal_args = "", .mem_mb = mem_mb };

	if (vf_runtime_start(&o))
		return NULL;
	return rte_pktmbuf_pool_create(pool_name, n, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
}

/* Group teardown matching vht_eal_pool. */
static inline void vht_eal_pool_free(struct rte_mempool *pool)
{
	rte_mempool_free(pool);
	vf_runtime_stop();
}

/* The whole guest memfd as one region, mapped as SET_MEM_TABLE would. */
static inline int vht_map_guest(struct vh_mem *mem, struct guest *g, size_t size)
{
	struct vhost_user_mem_table t = { .nregions = 1 };
	char w[96];

	t.regions[0] = (struct vhost_user_mem_region){ GUEST_GPA, size, GUEST_UVA, 0 };
	return vh_mem_map(mem, &t, 40, &g->fd, 1, w, sizeof(w));
}

/* Points vq at the split ring areas above and maps and starts it. */
static inline int vht_split_attach(struct vh_vq *vq, struct vh_mem *mem)
{
	const char *why;

	vq->addr = (struct vhost_vring_addr){
		.desc_user_addr = GUEST_UVA + SPLIT_DESC_OFF,
		.avail_user_addr = GUEST_UVA + SPLIT_AVAIL_OFF,
		.used_user_addr = GUEST_UVA + SPLIT_USED_OFF,
	};
	if (vh_split_map(vq, mem, &why))
		return -1;
	vh_split_start(vq);
	return 0;
}

/* Drains the call eventfd: how many interrupts the device raised. */
static inline uint64_t vht_calls(int callfd)
{
	uint64_t v = 0;

	if (read(callfd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/* A split ring in guest memory and the driver's view of it (for the
 * tests that play the driver: datapath, offload). */
struct split_fx {
	struct guest g;
	struct vh_mem mem;
	struct vh_vq vq;
	struct vring_desc *d;
	struct vring_avail *avail;
	struct vring_used *used;
	uint16_t avail_idx;
	int fds_before;
};

/* Guest memory, one region, a started split ring of size ring: the part
 * of every split data-path fixture that does not vary. */
static inline int split_fx_open(struct split_fx *f, uint16_t ring, uint8_t hdr_len, bool mrg,
				bool event_idx, int callfd, struct rte_mempool *pool)
{
	if (guest_open(&f->g, GUEST_SIZE) || vht_map_guest(&f->mem, &f->g, GUEST_SIZE))
		return -1;
	f->vq.size = ring;
	f->vq.hdr_len = hdr_len;
	f->vq.mrg_rxbuf = mrg;
	f->vq.event_idx = event_idx;
	f->vq.pool = pool;
	f->vq.kickfd = -1;
	f->vq.callfd = callfd;
	if (vht_split_attach(&f->vq, &f->mem))
		return -1;
	f->d = (struct vring_desc *)(f->g.va + SPLIT_DESC_OFF);
	f->avail = (struct vring_avail *)(f->g.va + SPLIT_AVAIL_OFF);
	f->used = (struct vring_used *)(f->g.va + SPLIT_USED_OFF);
	return 0;
}

/* The driver makes chain head available and publishes the new index. */
static inline void split_fx_post(struct split_fx *f, uint16_t head)
{
	f->avail->ring[f->avail_idx % f->vq.size] = head;
	f->avail_idx++;
	__atomic_store_n(&f->avail->idx, f->avail_idx, __ATOMIC_RELEASE);
}

#endif
