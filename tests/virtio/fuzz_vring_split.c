/* libFuzzer: the split ring core against a device whose every write is
 * fuzzer-chosen (used entries, used index, and scribbles over the whole
 * ring block).  Whatever it does: no out-of-bounds access (ASan), no cookie
 * returned that is not outstanding or returned twice, the descriptor count
 * stays consistent, and a drain returns every cookie still held. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "virtqueue_split.h"
#include "fuzz_cookies.h"

#define MAXQ 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t mem[65536] __attribute__((aligned(64)));
	struct vqs_slot slots[MAXQ];
	struct vq_split vq;
	struct vqs_seg seg[4] = { { 1, 1 }, { 2, 2 }, { 3, 3 }, { 4, 4 } };
	uint16_t qsize, dev_used = 0;
	unsigned int next = 0, out = 0, back = 0;
	size_t i = 1;

	if (size < 1)
		return 0;
	qsize = (uint16_t)(1u << (data[0] % 7));	/* 1..64 */
	if (vqs_init(&vq, mem, qsize, data[0] & 0x80, slots) != 0)
		__builtin_trap();
	memset(held, 0, sizeof(held));
	while (i < size && next < MAXC - 8) {
		uint8_t b = data[i++];

		switch (b & 3) {
		case 0: {	/* driver posts a chain of 1..4 */
			uint16_t n = 1 + ((b >> 2) & 3);

			if (vq.nfree >= n && !vq.broken) {
				held[next] = 1;
				out++;
				if (n == 1)
					vqs_post1(&vq, 9, 100, (b & 0x40) ? VRING_DESC_F_WRITE : 0,
						  (void *)(uintptr_t)(next + 1));
				else
					vqs_postv(&vq, seg, n, (void *)(uintptr_t)(next + 1));
				next++;
				vqs_publish(&vq);
			}
			break;
		}
		case 1:	/* device writes a used entry */
			if (i + 3 <= size) {
				struct vring_used_elem *e =
					&vq.used->ring[(uint16_t)(dev_used + (b >> 2)) & vq.mask];

				e->id = (uint32_t)data[i] | (uint32_t)data[i + 1] << 8;
				e->len = (uint32_t)data[i + 2] << (b >> 5);
				i += 3;
			}
			break;
		case 2:	/* device publishes (any jump), or scribbles */
			if (b & 0x80) {
				if (i + 2 <= size) {
					size_t off = ((size_t)data[i] << 8 | data[i + 1]) % vqs_mem_size(qsize);

					/* never the used ring's idx/entries: those are case 1/2 */
					if ((uint8_t *)mem + off < (uint8_t *)vq.used)
						mem[off] ^= 0xff;
					i += 2;
				}
			} else {
				dev_used += (b >> 2) & 0x1f;
				__atomic_store_n(&vq.used->idx, dev_used, __ATOMIC_RELEASE);
			}
			break;
		case 3: {	/* driver reaps */
			uint16_t n = vqs_used_count(&vq);

			if (vq.in_order && !(b & 4)) {
				void *ck[MAXQ];

				if (n && vqs_inorder_check(&vq, n)) {
					vqs_inorder_take(&vq, n, ck);
					for (uint16_t k = 0; k < n; k++)
						give_back(ck[k], &back);
				}
			} else {
				while (n--) {
					void *c;
					uint32_t len;

					if (vqs_get(&vq, &c, &len) == -EPROTO)
						break;
					give_back(c, &back);
				}
			}
			break;
		}
		}
		if (vq.nfree > vq.size || vq.inflight > vq.size ||
		    (uint16_t)(vq.size - vq.nfree) < vq.inflight)
			__builtin_trap();
	}
	vqs_drain(&vq, give_back, &back);
	if (back != out || vq.nfree != vq.size || vq.inflight != 0)
		__builtin_trap();
	return 0;
}
