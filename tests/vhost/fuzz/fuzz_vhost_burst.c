/* libFuzzer target: the burst functions (dequeue and enqueue, split and
 * packed, with their batched fast paths) over front-end memory that is
 * the fuzz input: descriptor ring, avail/driver area, used/device area and
 * buffers all in one memfd region, ring size and features from the first
 * two bytes.  Each input runs three dequeue bursts and one enqueue burst
 * of packets of input-chosen lengths (one of two mbufs).  The region has
 * inaccessible guard pages on both sides where the address space allows,
 * so a read or write past it traps; every mbuf must be back in the pool
 * afterwards.  With offloads (a length byte's low bit) the guest's
 * virtio-net headers are parsed and TSO frames cut on enqueue. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_mbuf.h>

#include "vf_runtime.h"
#include "vhost/virtqueue.h"

#define GPA 0x10000ull
#define UVA 0x7f0000000000ull
#define MEM (64u * 1024)
#define POOL_N 512u

static int fd = -1;
static struct vh_mem mem;
static struct rte_mempool *pool;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void guard(void *at)
{
	/* best effort: only where nothing is mapped yet */
	mmap(at, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct vf_runtime_opts o = { .tool = "vhfuzz", .lcores = "0", .main_lcore = -1,
				     .eal_args = "", .mem_mb = 64 };
	struct vhost_user_mem_table t = { .nregions = 1 };
	char w[96];

	(void)argc;
	(void)argv;
	if (vf_runtime_start(&o))
		__builtin_trap();
	pool = rte_pktmbuf_pool_create("vhfuzz", POOL_N, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	fd = memfd_create("fuzz-burst", MFD_CLOEXEC);
	if (!pool || fd < 0 || ftruncate(fd, MEM))
		__builtin_trap();
	t.regions[0] = (struct vhost_user_mem_region){ GPA, MEM, UVA, 0 };
	if (vh_mem_map(&mem, &t, 40, &fd, 1, w, sizeof(w)))
		__builtin_trap();
	guard(mem.r[0].host - 4096);
	guard(mem.r[0].host + MEM);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_mbuf *pkts[64];
	struct vh_vq vq;
	const char *why;

	if (size < 2 + 8)
		return 0;
	memset(&vq, 0, sizeof(vq));
	vq.packed = data[0] & 0x80;
	vq.size = (uint16_t)(1u << ((data[0] & 0x7f) % 9));	/* 1..256 */
	vq.mrg_rxbuf = data[1] & 1;
	vq.in_order = data[1] & 2;
	vq.event_idx = data[1] & 4;
	vq.hdr_len = data[1] & 8 ? 10 : 12;
	vq.callfd = vq.kickfd = -1;
	vq.pool = pool;
	vq.addr.desc_user_addr = UVA;
	vq.addr.avail_user_addr = UVA + 16 * 256;
	vq.addr.used_user_addr = UVA + 16 * 256 + 4096;
	vq.avail_wrap = true;
	vq.last_avail = (uint16_t)(data[1] >> 4) % vq.size;	/* start mid-ring too */
	uint8_t lens[8];

	memcpy(lens, data + 2, 8);
	data += 10;
	size -= 10;
	memset(mem.r[0].host, 0, MEM);
	memcpy(mem.r[0].host, data, size < MEM ? size : MEM);
	if (vh_vq_map(&vq, &mem, &why))
		return 0;
	vh_vq_start(&vq);
	vq.ready = true;

	/* Offloads (issue 15): the headers in the input are taken into the
	 * mbufs, and the last round's packets go back through the enqueue
	 * wrapper, which finishes in software what the "guest" did not
	 * negotiate (TSO cut into segments from the pool). */
	bool ol = lens[0] & 1;

	if (ol) {
		vq.ol.rx_allowed = VF_OL_CAP_CSUM | VF_OL_CAP_TSO4 | VF_OL_CAP_TSO6;
		vq.ol.tx.caps = (lens[1] & 1) ? vq.ol.rx_allowed : 0;
	}
	for (int round = 0; round < 3; round++) {
		uint16_t n = ol ? vh_ol_dequeue(&vq, pkts, 64) : vh_vq_dequeue(&vq, pkts, 64);

		if (n > 64)
			__builtin_trap();
		for (uint16_t i = 0; i < n; i++)
			if (rte_pktmbuf_pkt_len(pkts[i]) == 0 || rte_pktmbuf_pkt_len(pkts[i]) > 65535)
				__builtin_trap();
		if (ol && round == 2) {
			uint16_t k = vh_ol_enqueue(&vq, pkts, n);

			if (k > n)
				__builtin_trap();
			rte_pktmbuf_free_bulk(pkts + k, n - k);
			continue;
		}
		rte_pktmbuf_free_bulk(pkts, n);
	}
	for (int i = 0; i < 8; i++) {
		uint32_t len = 1 + lens[i] * 7u;

		pkts[i] = rte_pktmbuf_alloc(pool);
		if (!pkts[i] || !rte_pktmbuf_append(pkts[i], (uint16_t)len))
			__builtin_trap();
		memset(rte_pktmbuf_mtod(pkts[i], void *), i, len);
		if (i == 5) {	/* one packet of two mbufs */
			struct rte_mbuf *t = rte_pktmbuf_alloc(pool);

			if (!t || !rte_pktmbuf_append(t, 100) || rte_pktmbuf_chain(pkts[i], t))
				__builtin_trap();
		}
	}
	uint16_t done = vh_vq_enqueue(&vq, pkts, 8);

	if (done > 8)
		__builtin_trap();
	rte_pktmbuf_free_bulk(pkts + done, 8 - done);
	if (rte_mempool_avail_count(pool) != POOL_N)
		__builtin_trap();
	return 0;
}
