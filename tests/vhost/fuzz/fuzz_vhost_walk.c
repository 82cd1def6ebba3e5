/* libFuzzer target: the split- and packed-ring descriptor walkers.  The input becomes
 * the front-end's memory (descriptor table, avail ring, indirect tables and
 * buffers all in one memfd region); every head in the avail ring (split) or
 * every ring slot in both laps (packed, selected by bit 7 of the first
 * byte) is walked in both directions.  The walker must terminate, and every segment it
 * hands out must lie inside the region (checked here; a stray one traps). */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vhost/virtqueue.h"

#define GPA 0x10000ull
#define UVA 0x7f0000000000ull
#define MEM (64u * 1024)

static int fd = -1;
static uint8_t *va;
static struct vh_mem mem;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every segment handed out lies inside the region and is not empty. */
static void check_segs(const struct vh_chain *c)
{
	for (unsigned int s = 0; s < c->nseg; s++) {
		const uint8_t *lo = mem.r[0].host, *p = c->seg[s].p;

		if (p < lo || c->seg[s].len > MEM || p + c->seg[s].len > lo + MEM ||
		    c->seg[s].len == 0)
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vh_vq vq;
	const char *why;

	if (fd < 0) {
		struct vhost_user_mem_table t = { .nregions = 1 };
		char w[96];

		fd = memfd_create("fuzz-ring", MFD_CLOEXEC);
		if (ftruncate(fd, MEM))
			return 0;
		va = mmap(NULL, MEM, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		t.regions[0] = (struct vhost_user_mem_region){ GPA, MEM, UVA, 0 };
		if (vh_mem_map(&mem, &t, 40, &fd, 1, w, sizeof(w)))
			return 0;
	}
	if (size < 1)
		return 0;
	memset(&vq, 0, sizeof(vq));
	vq.size = (uint16_t)(1u << ((data[0] & 0x7f) % 9));	/* 1..256 */
	vq.mask = vq.size - 1;
	vq.callfd = vq.kickfd = -1;
	vq.addr.desc_user_addr = UVA;
	vq.addr.avail_user_addr = UVA + 16 * 256;
	vq.addr.used_user_addr = UVA + 16 * 256 + 4096;
	memset(va, 0, MEM);
	memcpy(va, data + 1, size - 1 < MEM ? size - 1 : MEM);
	vq.packed = data[0] & 0x80;
	if (vq.packed) {
		if (vh_packed_map(&vq, &mem, &why))
			return 0;
		for (uint16_t i = 0; i < vq.size; i++)
			for (int lap = 0; lap < 2; lap++)
				for (int w = 0; w < 2; w++) {
					struct vh_chain c;
					uint32_t len;
					uint16_t id = 0xffff, nd = 0;

					c.nseg = 0;
					if (vh_packed_walk(&vq, i, lap, w, &c, &len, &id, &nd) != VH_WALK_OK)
						continue;
					if (id >= vq.size || nd == 0 || nd > vq.size)
						__builtin_trap();
					check_segs(&c);
				}
		return 0;
	}
	if (vh_split_map(&vq, &mem, &why))
		return 0;
	for (uint16_t i = 0; i < vq.size; i++) {
		uint16_t head = vq.avail->ring[i];
		struct vh_chain c;
		uint32_t len;

		for (int w = 0; w < 2; w++) {
			c.nseg = 0;
			if (vh_split_walk(&vq, head, w, &c, &len) == VH_WALK_OK)
				check_segs(&c);
		}
	}
	return 0;
}
