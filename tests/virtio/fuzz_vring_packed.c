/* libFuzzer: the packed ring core (driver side) against a device whose
 * every write is fuzzer-chosen: used descriptors (slot, id, len, flags) and
 * scribbles over the whole ring block, including the device event area.
 * Whatever it does: no out-of-bounds access (ASan), no cookie returned that
 * is not outstanding or returned twice, the descriptor and chain counts stay
 * consistent, and a drain returns every cookie still held. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "virtqueue_packed.h"
#include "fuzz_cookies.h"

#define MAXQ 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t mem[16 * MAXQ + 128] __attribute__((aligned(64)));
	struct vqp_slot slots[MAXQ];
	struct vq_packed vq;
	struct vqp_seg seg[4] = { { 1, 1 }, { 2, 2 }, { 3, 3 }, { 4, 4 } };
	uint16_t qsize, dev_slot = 0;
	unsigned int next = 0, out = 0, back = 0;
	size_t i = 1;

	if (size < 1)
		return 0;
	qsize = (uint16_t)(1 + (data[0] & 0x3f));	/* 1..64, any size */
	if (vqp_init(&vq, mem, qsize, data[0] & 0x80, data[0] & 0x40, slots) != 0)
		__builtin_trap();
	memset(held, 0, sizeof(held));
	while (i < size && next < MAXC - 8) {
		uint8_t b = data[i++];

		switch (b & 3) {
		case 0: {	/* driver posts a chain of 1..4, maybe publishes */
			uint16_t n = 1 + ((b >> 2) & 3);

			if (vq.nfree >= n && !vq.broken) {
				held[next] = 1;
				out++;
				if (n == 1)
					vqp_post1(&vq, 9, 100, (b & 0x40) ? VRING_DESC_F_WRITE : 0,
						  (void *)(uintptr_t)(next + 1));
				else
					vqp_postv(&vq, seg, n, (void *)(uintptr_t)(next + 1));
				next++;
			}
			if (!(b & 0x80)) {
				vqp_publish(&vq);
				(void)vqp_need_kick(&vq);
			}
			break;
		}
		case 1:	/* device writes a used descriptor near its position */
			if (i + 4 <= size) {
				uint16_t slot = (uint16_t)((dev_slot + (b >> 5)) % qsize);
				struct vring_packed_desc *d = &vq.desc[slot];

				d->id = (uint16_t)(data[i] | data[i + 1] << 8);
				d->len = (uint32_t)data[i + 2] << ((b >> 2) & 7);
				__atomic_store_n(&d->flags, (uint16_t)(data[i + 3] << 8 | data[i + 3]),
						 __ATOMIC_RELEASE);
				i += 4;
			}
			break;
		case 2:	/* device moves on, or scribbles anywhere in the block */
			if (b & 0x80) {
				if (i + 2 <= size) {
					size_t off = ((size_t)data[i] << 8 | data[i + 1]) % vqp_mem_size(qsize);

					mem[off] ^= (uint8_t)(b | 1);
					i += 2;
				}
			} else {
				dev_slot = (uint16_t)((dev_slot + ((b >> 2) & 0x1f)) % qsize);
			}
			break;
		case 3: {	/* driver reaps */
			if (vq.in_order && !(b & 4)) {
				uint16_t n = vqp_inorder_count(&vq), k = (b >> 3) % (n + 1);
				void *ck[MAXQ];

				if (n > vq.inflight || k > MAXQ)
					__builtin_trap();
				vqp_inorder_take(&vq, k, ck);
				for (uint16_t j = 0; j < k; j++)
					give_back(ck[j], &back);
			} else {
				for (;;) {
					void *c;
					uint32_t len;
					int r = vqp_get(&vq, &c, &len);

					if (r == -EAGAIN || r == -EPROTO)
						break;
					give_back(c, &back);
				}
			}
			break;
		}
		}
		if (vq.nfree > vq.size || vq.inflight > vq.size || vq.done > vq.inflight ||
		    (uint16_t)(vq.size - vq.nfree) < vq.inflight || vq.avail_slot >= vq.size ||
		    vq.used_slot >= vq.size)
			__builtin_trap();
	}
	vqp_drain(&vq, give_back, &back);
	if (back != out || vq.nfree != vq.size || vq.inflight != 0)
		__builtin_trap();
	return 0;
}
