/* Instructions per packet of the vhost data path, without a second core:
 * a front-end laid out by hand in memfd memory (as the unit tests do)
 * posts BURST 64-byte frames on the tx ring and BURST rx buffers, and
 * vh_vq_dequeue() + vh_vq_enqueue() move them, as a mac loop's back-end
 * does.  Only the two burst calls are counted (a user-space instruction
 * counter enabled around them, where the machine has one; else run it
 * under valgrind --tool=callgrind --toggle-collect=vh_vq_dequeue
 * --toggle-collect=vh_vq_enqueue and divide Ir by the packets), so the
 * figure is deterministic and compares changes to drivers/vhost/ on a
 * shared machine where wall-clock rates are noise.  Beside it, always, the
 * TSC time of the two calls per packet: one core, no peer, so two builds
 * run alternately on the same machine compare within a few per cent
 * (the median of several runs; a host that changes speed moves both).
 * With `ol` the port's offload bursts run instead (vh_ol_dequeue() and
 * vh_ol_enqueue(), as a vhost port starts them) with CSUM, GUEST_CSUM and
 * HOST/GUEST_TSO4/6 negotiated and no frame asking: the fast-path cost of
 * offloads (issue 15).
 *   vhost_micro [packed] [mrg] [in_order] [ol] [ITER]   (default split, 100000) */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/virtio_net.h>
#include <rte_mbuf.h>

#include "vf_runtime.h"
#include "vhost/virtqueue.h"
#include "vh_testmem.h"

#define RING 256u
#define BURST 32u
#define FRAME 64u
#define BUF_SZ 2048u
/* per ring: descriptors, avail/driver area, used/device area, buffers */
#define RING_BYTES 0x100000u

struct ring {
	struct vh_vq vq;
	uint8_t *base;		/* our view */
	uint64_t gpa;
	/* driver side */
	uint16_t avail_idx;	/* split: free-running; packed: slot */
	bool wrap;
	uint16_t next_id;
};

static bool packed, mrg, in_order, ol;

static void ring_init(struct ring *r, struct guest *g, const struct vh_mem *mem, unsigned int k,
		      struct rte_mempool *pool)
{
	const char *why;

	r->base = g->va + (size_t)k * RING_BYTES;
	r->gpa = GUEST_GPA + (uint64_t)k * RING_BYTES;
	r->vq.packed = packed;
	r->vq.size = RING;
	r->vq.hdr_len = 12;
	r->vq.mrg_rxbuf = mrg;
	r->vq.in_order = in_order;
	r->vq.pool = pool;
	r->vq.kickfd = -1;
	r->vq.callfd = -1;
	r->vq.addr = (struct vhost_vring_addr){
		.desc_user_addr = GUEST_UVA + (uint64_t)k * RING_BYTES,
		.avail_user_addr = GUEST_UVA + (uint64_t)k * RING_BYTES + 0x1000,
		.used_user_addr = GUEST_UVA + (uint64_t)k * RING_BYTES + 0x4000,
	};
	r->vq.last_avail = 0;
	r->vq.avail_wrap = true;
	r->wrap = true;
	if (vh_vq_map(&r->vq, mem, &why)) {
		fprintf(stderr, "map: %s\n", why);
		exit(1);
	}
	vh_vq_start(&r->vq);
	r->vq.ready = true;
	if (packed)	/* the front-end polls: no calls */
		((struct vring_packed_desc_event *)(r->base + 0x1000))->flags =
			VRING_PACKED_EVENT_FLAG_DISABLE;
	else
		((struct vring_avail *)(r->base + 0x1000))->flags = VRING_AVAIL_F_NO_INTERRUPT;
}

/* Posts n single-descriptor buffers of len bytes. */
static void post(struct ring *r, unsigned int n, uint32_t len, bool write)
{
	if (packed) {
		struct vring_packed_desc *d = (struct vring_packed_desc *)r->base;

		for (unsigned int i = 0; i < n; i++) {
			uint16_t s = r->avail_idx;
			uint16_t fl = (r->wrap ? 1u << VRING_PACKED_DESC_F_AVAIL
					       : 1u << VRING_PACKED_DESC_F_USED) |
				      (write ? VRING_DESC_F_WRITE : 0);

			d[s].addr = r->gpa + 0x10000 + (uint64_t)s * BUF_SZ;
			d[s].len = len;
			d[s].id = s;
			__atomic_store_n(&d[s].flags, fl, __ATOMIC_RELEASE);
			if (++r->avail_idx == RING) {
				r->avail_idx = 0;
				r->wrap = !r->wrap;
			}
		}
		return;
	}
	struct vring_desc *d = (struct vring_desc *)r->base;
	struct vring_avail *a = (struct vring_avail *)(r->base + 0x1000);

	for (unsigned int i = 0; i < n; i++) {
		uint16_t s = r->avail_idx % RING;

		d[s] = (struct vring_desc){ r->gpa + 0x10000 + (uint64_t)s * BUF_SZ, len,
					    write ? VRING_DESC_F_WRITE : 0, 0 };
		a->ring[s] = s;
		r->avail_idx++;
	}
	__atomic_store_n(&a->idx, r->avail_idx, __ATOMIC_RELEASE);
}

static int counter(void)
{
	struct perf_event_attr pa = {
		.type = PERF_TYPE_HARDWARE, .size = sizeof(pa),
		.config = PERF_COUNT_HW_INSTRUCTIONS, .disabled = 1,
		.exclude_kernel = 1, .exclude_hv = 1,
	};

	return (int)syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0);
}

int main(int argc, char **argv)
{
	struct vf_runtime_opts o = { .tool = "vhmicro", .lcores = "0", .main_lcore = -1,
				     .eal_args = "", .mem_mb = 256 };
	struct vhost_user_mem_table t = { .nregions = 1 };
	unsigned long iter = 100000;
	struct rte_mbuf *pkts[BURST];
	struct ring tx = { 0 }, rx = { 0 };
	struct vh_mem mem;
	struct guest g;
	uint64_t moved = 0, ins = 0, tsc = 0;
	char w[96];
	int fd;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "packed"))
			packed = true;
		else if (!strcmp(argv[i], "mrg"))
			mrg = true;
		else if (!strcmp(argv[i], "in_order"))
			in_order = true;
		else if (!strcmp(argv[i], "ol"))
			ol = true;
		else
			iter = strtoul(argv[i], NULL, 0);
	}
	if (vf_runtime_start(&o))
		return 1;
	struct rte_mempool *pool = rte_pktmbuf_pool_create("vhmicro", 4096, 256, 0,
							   RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (!pool || guest_open(&g, 2 * RING_BYTES))
		return 1;
	t.regions[0] = (struct vhost_user_mem_region){ GUEST_GPA, 2 * RING_BYTES, GUEST_UVA, 0 };
	if (vh_mem_map(&mem, &t, 40, &g.fd, 1, w, sizeof(w)))
		return 1;
	ring_init(&tx, &g, &mem, 0, pool);
	ring_init(&rx, &g, &mem, 1, pool);
	if (ol) {
		uint64_t f = VH_OL_FEATURES;

		vh_ol_set_features(&tx.vq, f);
		vh_ol_set_features(&rx.vq, f);
	}
	uint16_t (*deq)(void *, struct rte_mbuf **, uint16_t) = ol ? vh_ol_dequeue : vh_vq_dequeue;
	uint16_t (*enq)(void *, struct rte_mbuf **, uint16_t) = ol ? vh_ol_enqueue : vh_vq_enqueue;
	fd = counter();
	for (unsigned long it = 0; it < iter; it++) {
		uint64_t c0 = 0, c1 = 0, t0;

		post(&tx, BURST, 12 + FRAME, false);
		post(&rx, BURST, BUF_SZ, true);
		if (fd >= 0) {
			if (read(fd, &c0, sizeof(c0)) != sizeof(c0))
				return 1;
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		}
		t0 = rte_rdtsc();
		uint16_t n = deq(&tx.vq, pkts, BURST);
		uint16_t m = enq(&rx.vq, pkts, n);
		tsc += rte_rdtsc() - t0;
		if (fd >= 0) {
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			if (read(fd, &c1, sizeof(c1)) != sizeof(c1))
				return 1;
		}
		if (n != BURST || m != BURST) {
			fprintf(stderr, "iteration %lu: dequeued %u, enqueued %u\n", it, n, m);
			return 1;
		}
		moved += n;
		ins += c1 - c0;
	}
	printf("%s%s%s%s: %lu packets", packed ? "packed" : "split", mrg ? " mrg" : "",
	       in_order ? " in_order" : "", ol ? " ol" : "", (unsigned long)moved);
	if (fd >= 0) {
		printf(", %.1f instructions/packet (dequeue + enqueue)", (double)ins / (double)moved);
		close(fd);
	}
	printf(", %.2f ns/packet (dequeue + enqueue, TSC)\n",
	       (double)tsc * 1e9 / (double)rte_get_tsc_hz() / (double)moved);
	vh_mem_unmap(&mem);
	guest_close(&g);
	rte_mempool_free(pool);
	vf_runtime_stop();
	return 0;
}
