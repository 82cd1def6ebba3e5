/* Packed virtqueue core without any peer: the test plays the device in
 * plain memory (vdev_emu_packed.h).  Ring sizes 64, 256 and 1024; bursts
 * and chains that straddle the wrap; in-order batches; hostile used
 * descriptors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#define VR_PACKED	/* the fixture's layout (vring_fixture.h) */
#include "vring_fixture.h"

static struct ring *ring_new(uint16_t size, bool in_order, bool event_idx)
{
	struct ring *r = ring_alloc(size);

	assert_int_equal(vqp_init(&r->vq, r->mem, size, in_order, event_idx, r->slots), 0);
	vpdev_init(&r->dev, &r->vq);
	return r;
}

static const uint16_t sizes[] = { 64, 256, 1024 };

static void test_init(void **state)
{
	static char mem[1 << 16] __attribute__((aligned(64)));
	struct vqp_slot slots[64];
	struct vq_packed vq;

	assert_int_equal(vqp_init(&vq, mem, 0, true, false, slots), -EINVAL);
	assert_int_equal(vqp_init(&vq, mem, 32769, true, false, slots), -EINVAL);
	assert_int_equal(vqp_init(&vq, mem, 48, true, false, slots), 0);	/* any size */
	assert_int_equal(vqp_init(&vq, mem, 64, true, false, slots), 0);
	assert_int_equal(vq.nfree, 64);
	assert_true(vq.avail_wrap && vq.used_wrap);
	assert_int_equal(vqp_base(&vq), 0x8000);
	assert_int_equal(vq.drv->flags, VRING_PACKED_EVENT_FLAG_DISABLE);
	/* areas after the descriptors, inside the block, 4-byte aligned,
	 * not sharing a cache line */
	assert_ptr_equal((char *)vq.drv, mem + 16 * 64);
	assert_true((char *)vq.dev >= (char *)vq.drv + 64);
	assert_true((char *)(vq.dev + 1) <= mem + vqp_mem_size(64));
	assert_int_equal((uintptr_t)vq.dev % 4, 0);
}

static void test_post_complete(void **state)
{
	for (int order = 0; order < 2; order++) {
		struct ring *r = ring_new(64, order, false);
		struct vpdev_chain c = { 0 };
		void *ck = NULL;
		uint32_t len;

		vqp_post1(&r->vq, 0x1000, 100, VRING_DESC_F_WRITE, CK(7));
		/* not visible before publish */
		assert_int_equal(vpdev_pop(&r->dev, &c), -1);
		assert_int_equal(vqp_get(&r->vq, &ck, &len), -EAGAIN);
		assert_false(r->vq.broken);
		vqp_publish(&r->vq);
		assert_int_equal(vpdev_pop(&r->dev, &c), 0);
		assert_int_equal(c.n, 1);
		assert_int_equal(c.d[0].addr, 0x1000);
		assert_int_equal(c.d[0].len, 100);
		assert_int_equal(c.d[0].flags, VRING_DESC_F_WRITE | PD_AVAIL);
		assert_int_equal(vpdev_pop(&r->dev, &c), -1);
		assert_int_equal(r->vq.nfree, 63);
		assert_int_equal(vqp_get(&r->vq, &ck, &len), -EAGAIN);
		vpdev_used(&r->dev, c.id, 60, 1);
		assert_int_equal(vqp_get(&r->vq, &ck, &len), 0);
		assert_ptr_equal(ck, CK(7));
		assert_int_equal(len, 60);
		assert_int_equal(r->vq.nfree, 64);
		assert_int_equal(r->vq.inflight, 0);
		assert_int_equal(vqp_get(&r->vq, &ck, &len), -EAGAIN);
		assert_false(r->vq.broken);
		ring_free(r);
	}
}

/* Bursts of odd sizes through several laps: every burst that straddles
 * the end of the ring is seen whole, with the right flag pattern on each
 * side of the wrap; out of order, each burst completes in reverse. */
static void test_wrap_bursts(void **state)
{
	for (unsigned si = 0; si < 3; si++) {
		for (int order = 0; order < 2; order++) {
			uint16_t size = sizes[si];
			struct ring *r = ring_new(size, order, false);
			unsigned next = 0, back = 0, laps_seen = 0;
			bool last_wrap = true;

			while (next < 4u * size) {
				uint16_t burst = (uint16_t)(1 + (next * 7 + 13) % 37), i;
				struct vpdev_chain c[64];

				if (burst > r->vq.nfree)
					burst = r->vq.nfree;
				for (i = 0; i < burst; i++)
					vqp_post1(&r->vq, 0x1000 + next + i, 200, VRING_DESC_F_WRITE,
						  CK(next + i));
				vqp_publish(&r->vq);
				for (i = 0; i < burst; i++) {
					bool w = r->dev.avail_wrap;

					assert_int_equal(vpdev_pop(&r->dev, &c[i]), 0);
					assert_int_equal(c[i].d[0].addr, 0x1000 + next + i);
					assert_int_equal(c[i].d[0].flags & (PD_AVAIL | PD_USED),
							 w ? PD_AVAIL : PD_USED);
					if (w != last_wrap) {
						laps_seen++;
						last_wrap = w;
					}
				}
				assert_int_equal(vpdev_pop(&r->dev, &c[0]), -1);
				for (i = 0; i < burst; i++) {
					uint16_t k = order ? i : (uint16_t)(burst - 1 - i);

					vpdev_used(&r->dev, c[k].id, 100 + k, 1);
				}
				for (i = 0; i < burst; i++) {
					void *ck = NULL;
					uint32_t len;
					uint16_t k = order ? i : (uint16_t)(burst - 1 - i);

					assert_int_equal(vqp_get(&r->vq, &ck, &len), 0);
					assert_int_equal(UNCK(ck), next + k);
					assert_int_equal(len, 100 + k);
					back++;
				}
				assert_int_equal(r->vq.nfree, size);
				next += burst;
			}
			assert_int_equal(back, next);
			assert_true(laps_seen >= 3);
			assert_false(r->vq.broken);
			ring_free(r);
		}
	}
}

/* Chains of 3 that straddle the wrap: the device sees them whole, in
 * order, with NEXT on all but the last, the id in the last, and each
 * descriptor's flags in the pattern of its own lap. */
static void test_wrap_chains(void **state)
{
	for (unsigned si = 0; si < 3; si++) {
		for (int order = 0; order < 2; order++) {
			uint16_t size = sizes[si];
			struct ring *r = ring_new(size, order, false);
			struct vqp_seg seg[3] = { { 0xa0, 12 }, { 0xb0, 500 }, { 0xc0, 900 } };
			unsigned straddled = 0, n;

			/* shift the start so chains hit the wrap at every offset */
			for (n = 0; n < 3u * size; n++) {
				struct vpdev_chain c = { 0 };
				void *ck = NULL;
				uint32_t len;

				if (n == 0 || n == 1) {
					vqp_post1(&r->vq, 1, 1, 0, CK(900000 + n));
					vqp_publish(&r->vq);
					assert_int_equal(vpdev_pop(&r->dev, &c), 0);
					vpdev_used(&r->dev, c.id, 0, 1);
					assert_int_equal(vqp_get(&r->vq, &ck, &len), 0);
					continue;
				}
				vqp_postv(&r->vq, seg, 3, CK(n));
				vqp_publish(&r->vq);
				assert_int_equal(vpdev_pop(&r->dev, &c), 0);
				assert_int_equal(c.n, 3);
				if ((uint16_t)(c.slot + 3) > size) {
					uint16_t first = c.d[0].flags & (PD_AVAIL | PD_USED);
					uint16_t last = c.d[2].flags & (PD_AVAIL | PD_USED);

					assert_int_not_equal(first, last);
					straddled++;
				}
				for (int k = 0; k < 3; k++) {
					assert_int_equal(c.d[k].addr, seg[k].addr);
					assert_int_equal(c.d[k].len, seg[k].len);
					assert_int_equal(!!(c.d[k].flags & VRING_DESC_F_NEXT), k < 2);
					assert_false(c.d[k].flags & VRING_DESC_F_WRITE);
				}
				vpdev_used(&r->dev, c.id, 0, 3);
				if (order) {
					assert_int_equal(vqp_inorder_count(&r->vq), 1);
					vqp_inorder_take(&r->vq, 1, &ck);
				} else {
					assert_int_equal(vqp_get(&r->vq, &ck, &len), 0);
				}
				assert_int_equal(UNCK(ck), n);
				assert_int_equal(r->vq.nfree, size);
			}
			assert_true(straddled >= 4);
			assert_false(r->vq.broken);
			ring_free(r);
		}
	}
}

/* In-order tx: the device reports a whole batch (singles and chains mixed)
 * with one used descriptor naming the last buffer, at the batch's first
 * slot; batches straddle the wrap. */
static void test_inorder_batch(void **state)
{
	for (unsigned si = 0; si < 3; si++) {
		uint16_t size = sizes[si];
		struct ring *r = ring_new(size, true, false);
		struct vqp_seg seg[2] = { { 1, 10 }, { 2, 20 } };
		unsigned next = 0, back = 0;

		for (unsigned round = 0; round < 40; round++) {
			uint16_t burst = (uint16_t)(5 + round % 11), i, ndesc = 0, last_id = 0;
			bool mixed = round % 3 == 0;
			void *ck[64];

			for (i = 0; i < burst; i++) {
				if (mixed && i % 2)
					vqp_postv(&r->vq, seg, 2, CK(next + i));
				else
					vqp_post1(&r->vq, 1, 64, 0, CK(next + i));
			}
			vqp_publish(&r->vq);
			for (i = 0; i < burst; i++) {
				struct vpdev_chain c = { 0 };

				assert_int_equal(vpdev_pop(&r->dev, &c), 0);
				ndesc += c.n;
				last_id = c.id;
			}
			/* nothing used yet */
			assert_int_equal(vqp_inorder_count(&r->vq), 0);
			/* the batch in two used descriptors: first 2 buffers,
			 * then the rest */
			if (round % 2) {
				vpdev_used(&r->dev, last_id, 0, ndesc);
				assert_int_equal(vqp_inorder_count(&r->vq), burst);
			} else {
				uint16_t first2 = mixed ? 3 : 2;
				/* buffer 1's id: its head slot, right after buffer 0 */
				uint16_t id2 = (uint16_t)((r->vq.used_slot + 1) % size);

				vpdev_used(&r->dev, id2, 0, first2);
				assert_int_equal(vqp_inorder_count(&r->vq), 2);
				vpdev_used(&r->dev, last_id, 0, (uint16_t)(ndesc - first2));
				assert_int_equal(vqp_inorder_count(&r->vq), burst);
			}
			/* taken in two steps, oldest first */
			vqp_inorder_take(&r->vq, 3, ck);
			vqp_inorder_take(&r->vq, (uint16_t)(burst - 3), ck + 3);
			for (i = 0; i < burst; i++)
				assert_int_equal(UNCK(ck[i]), next + i);
			back += burst;
			next += burst;
			assert_int_equal(r->vq.nfree, size);
			assert_int_equal(r->vq.inflight, 0);
			assert_int_equal(r->vq.done, 0);
		}
		assert_int_equal(back, next);
		assert_false(r->vq.broken);
		ring_free(r);
	}
}

/* Out of order: ids are recycled through the free list; a slot's id is
 * not its position. */
static void test_out_of_order_ids(void **state)
{
	struct ring *r = ring_new(64, false, false);
	struct vpdev_chain c[4];
	void *ck = NULL;
	uint32_t len;

	for (int i = 0; i < 4; i++)
		vqp_post1(&r->vq, 1, 10, VRING_DESC_F_WRITE, CK(i));
	vqp_publish(&r->vq);
	for (int i = 0; i < 4; i++)
		assert_int_equal(vpdev_pop(&r->dev, &c[i]), 0);
	vpdev_used(&r->dev, c[2].id, 1, 1);
	assert_int_equal(vqp_get(&r->vq, &ck, &len), 0);
	assert_int_equal(UNCK(ck), 2);
	/* the freed id is reused by the next buffer, at a new slot */
	vqp_post1(&r->vq, 1, 10, VRING_DESC_F_WRITE, CK(4));
	vqp_publish(&r->vq);
	assert_int_equal(vpdev_pop(&r->dev, &c[2]), 0);
	assert_int_equal(c[2].slot, 4);
	assert_int_equal(c[2].id, 2);
	for (int k = 3; k >= 0; k--)
		vpdev_used(&r->dev, c[k].id, 1, 1);
	for (int k = 3; k >= 0; k--) {
		assert_int_equal(vqp_get(&r->vq, &ck, &len), 0);
		assert_int_equal(UNCK(ck), k == 2 ? 4 : (unsigned)k);
	}
	assert_int_equal(r->vq.nfree, 64);
	ring_free(r);
}

static void test_bad_id(void **state)
{
	for (int order = 0; order < 2; order++) {
		/* id out of range, id never posted, id already completed */
		for (int kind = 0; kind < 3; kind++) {
			struct ring *r = ring_new(64, order, false);
			struct vpdev_chain c = { 0 };
			void *ck = NULL;
			uint32_t len;

			vqp_post1(&r->vq, 1, 10, VRING_DESC_F_WRITE, CK(0));
			vqp_post1(&r->vq, 1, 10, VRING_DESC_F_WRITE, CK(1));
			vqp_publish(&r->vq);
			assert_int_equal(vpdev_pop(&r->dev, &c), 0);
			assert_int_equal(vpdev_pop(&r->dev, &c), 0);
			if (kind == 2) {
				vpdev_used(&r->dev, c.id - 1, 5, 1);
				assert_int_equal(vqp_get(&r->vq, &ck, &len), 0);
			}
			vpdev_used(&r->dev, kind == 0 ? 64 : kind == 1 ? 40 : c.id - 1, 5, 1);
			assert_int_equal(vqp_get(&r->vq, &ck, &len), -EPROTO);
			assert_true(r->vq.broken);
			assert_int_equal(r->vq.err[VQP_ERR_BAD_ID], 1);
			/* latched: nothing more is read */
			assert_int_equal(vqp_get(&r->vq, &ck, &len), -EPROTO);
			assert_int_equal(vqp_inorder_count(&r->vq), 0);
			ring_free(r);
		}
	}
	/* in-order: a used id that is outstanding but not the oldest (rx
	 * path: one used descriptor per buffer) */
	struct ring *r = ring_new(64, true, false);
	void *ck = NULL;
	uint32_t len;

	vqp_post1(&r->vq, 1, 10, VRING_DESC_F_WRITE, CK(0));
	vqp_post1(&r->vq, 1, 10, VRING_DESC_F_WRITE, CK(1));
	vqp_publish(&r->vq);
	vpdev_used(&r->dev, 1, 5, 1);
	assert_int_equal(vqp_get(&r->vq, &ck, &len), -EPROTO);
	assert_true(r->vq.broken);
	ring_free(r);
	/* in-order batch naming a head beyond what is outstanding, and a
	 * slot that is inside a chain (not a head) */
	for (int kind = 0; kind < 2; kind++) {
		struct vqp_seg seg[2] = { { 1, 10 }, { 2, 20 } };

		r = ring_new(64, true, false);
		vqp_postv(&r->vq, seg, 2, CK(0));
		vqp_post1(&r->vq, 1, 10, 0, CK(1));
		vqp_publish(&r->vq);
		vpdev_used(&r->dev, kind ? 1 : 5, 0, 3);
		assert_int_equal(vqp_inorder_count(&r->vq), 0);
		assert_true(r->vq.broken);
		assert_int_equal(r->vq.err[VQP_ERR_BAD_ID], 1);
		ring_free(r);
	}
}

/* Flags at our next used slot that are neither what we wrote nor "used in
 * this lap": the ring is broken, nothing is completed. */
static void test_bad_flags(void **state)
{
	static const uint16_t bad[] = { 0, PD_USED };	/* lap 1: both clear; USED only */

	for (unsigned b = 0; b < 2; b++) {
		for (int order = 0; order < 2; order++) {
			struct ring *r = ring_new(64, order, false);
			void *ck = NULL;
			uint32_t len;

			vqp_post1(&r->vq, 1, 10, 0, CK(0));
			vqp_publish(&r->vq);
			vpdev_raw(&r->dev, 0, 0, 0, bad[b]);
			if (order)
				assert_int_equal(vqp_inorder_count(&r->vq), 0);
			else
				assert_int_equal(vqp_get(&r->vq, &ck, &len), -EPROTO);
			assert_true(r->vq.broken);
			assert_int_equal(r->vq.err[VQP_ERR_BAD_FLAGS], 1);
			assert_int_equal(r->vq.inflight, 1);
			ring_free(r);
		}
	}
	/* second lap: "used" in the first lap's pattern is stale, not used */
	struct ring *r = ring_new(64, false, false);
	void *ck = NULL;
	uint32_t len;

	for (int i = 0; i < 64; i++) {
		struct vpdev_chain c = { 0 };

		vqp_post1(&r->vq, 1, 10, 0, CK(i));
		vqp_publish(&r->vq);
		assert_int_equal(vpdev_pop(&r->dev, &c), 0);
		vpdev_used(&r->dev, c.id, 0, 1);
		assert_int_equal(vqp_get(&r->vq, &ck, &len), 0);
	}
	assert_false(r->vq.used_wrap);
	vqp_post1(&r->vq, 1, 10, 0, CK(99));
	vqp_publish(&r->vq);
	vpdev_raw(&r->dev, 0, 0, 0, PD_AVAIL | PD_USED);
	assert_int_equal(vqp_get(&r->vq, &ck, &len), -EPROTO);
	assert_int_equal(r->vq.err[VQP_ERR_BAD_FLAGS], 1);
	ring_free(r);
}

/* The held-back head of an unpublished burst is never read as used, even
 * though the slot still holds the previous lap's contents. */
static void test_unpublished(void **state)
{
	struct ring *r = ring_new(64, false, false);
	void *ck = NULL;
	uint32_t len;

	vqp_post1(&r->vq, 1, 10, 0, CK(0));
	assert_int_equal(vqp_get(&r->vq, &ck, &len), -EAGAIN);
	assert_false(r->vq.broken);
	vqp_publish(&r->vq);
	assert_int_equal(vqp_get(&r->vq, &ck, &len), -EAGAIN);
	assert_false(r->vq.broken);
	ring_free(r);
}

/* vqp_post1 hands the device each completed cache line of descriptors
 * (four) at once and the rest at vqp_publish(); a chain posted in between
 * is never seen in part. */
static void test_publish_per_line(void **state)
{
	for (int order = 0; order < 2; order++) {
		struct ring *r = ring_new(64, order, false);
		struct vpdev_chain c = { 0 };
		struct vqp_seg seg[3] = { { 1, 10 }, { 2, 20 }, { 3, 30 } };

		for (int i = 0; i < 3; i++) {
			vqp_post1(&r->vq, 1, 10, 0, CK(i));
			assert_int_equal(vpdev_pop(&r->dev, &c), -1);	/* line 0 not complete */
		}
		vqp_post1(&r->vq, 1, 10, 0, CK(3));
		for (int i = 0; i < 4; i++) {
			assert_int_equal(vpdev_pop(&r->dev, &c), 0);
			assert_int_equal(c.slot, i);
			assert_int_equal(c.n, 1);
		}
		assert_int_equal(vpdev_pop(&r->dev, &c), -1);
		/* slot 4 single, slots 5-7 a chain: vqp_postv leaves the line to
		 * vqp_publish(), nothing of it is visible before */
		vqp_post1(&r->vq, 1, 10, 0, CK(4));
		vqp_postv(&r->vq, seg, 3, CK(5));
		assert_int_equal(r->vq.avail_slot, 8);
		assert_int_equal(vpdev_pop(&r->dev, &c), -1);
		vqp_post1(&r->vq, 1, 10, 0, CK(6));	/* slot 8: line 2 open */
		assert_int_equal(vpdev_pop(&r->dev, &c), -1);
		vqp_publish(&r->vq);
		assert_int_equal(vpdev_pop(&r->dev, &c), 0);
		assert_int_equal(c.slot, 4);
		assert_int_equal(vpdev_pop(&r->dev, &c), 0);
		assert_int_equal(c.slot, 5);
		assert_int_equal(c.n, 3);
		assert_int_equal(c.d[0].len, 10);
		assert_int_equal(c.d[2].len, 30);
		assert_int_equal(vpdev_pop(&r->dev, &c), 0);
		assert_int_equal(c.slot, 8);
		/* a chain across lines 2 and 3 goes out whole with line 3 */
		vqp_post1(&r->vq, 1, 10, 0, CK(7));	/* slot 9 */
		vqp_postv(&r->vq, seg, 3, CK(8));	/* slots 10-12 */
		vqp_post1(&r->vq, 1, 10, 0, CK(9));	/* slot 13 */
		assert_int_equal(vpdev_pop(&r->dev, &c), -1);	/* line 3 open */
		vqp_post1(&r->vq, 1, 10, 0, CK(10));	/* 14 */
		vqp_post1(&r->vq, 1, 10, 0, CK(11));	/* 15: line 3 complete */
		assert_int_equal(vpdev_pop(&r->dev, &c), 0);
		assert_int_equal(c.slot, 9);
		assert_int_equal(vpdev_pop(&r->dev, &c), 0);
		assert_int_equal(c.slot, 10);
		assert_int_equal(c.n, 3);
		for (int i = 13; i < 16; i++) {
			assert_int_equal(vpdev_pop(&r->dev, &c), 0);
			assert_int_equal(c.slot, i);
		}
		assert_int_equal(vpdev_pop(&r->dev, &c), -1);
		ring_free(r);
	}
}

static void test_bad_len(void **state)
{
	struct ring *r = ring_new(64, false, false);
	struct vpdev_chain c = { 0 };
	void *ck = NULL;
	uint32_t len;

	vqp_post1(&r->vq, 1, 100, VRING_DESC_F_WRITE, CK(0));
	vqp_post1(&r->vq, 1, 100, 0, CK(1));	/* device-readable: 0 writable */
	vqp_publish(&r->vq);
	assert_int_equal(vpdev_pop(&r->dev, &c), 0);
	vpdev_used(&r->dev, c.id, 101, 1);
	assert_int_equal(vpdev_pop(&r->dev, &c), 0);
	vpdev_used(&r->dev, c.id, 1, 1);
	assert_int_equal(vqp_get(&r->vq, &ck, &len), -EMSGSIZE);
	assert_int_equal(UNCK(ck), 0);
	assert_int_equal(len, 101);
	assert_int_equal(vqp_get(&r->vq, &ck, &len), -EMSGSIZE);
	assert_int_equal(r->vq.err[VQP_ERR_BAD_LEN], 2);
	assert_false(r->vq.broken);		/* counted, not fatal */
	assert_int_equal(r->vq.nfree, 64);
	ring_free(r);
}

static void count_back(void *c, void *arg)
{
	(*(unsigned *)arg)++;
}

static void test_drain(void **state)
{
	struct ring *r = ring_new(64, true, false);
	unsigned back = 0;

	for (int i = 0; i < 50; i++)
		vqp_post1(&r->vq, 1, 10, 0, CK(i));
	vqp_publish(&r->vq);
	r->vq.err[VQP_ERR_BAD_LEN] = 3;
	r->vq.broken = true;
	vqp_drain(&r->vq, count_back, &back);
	assert_int_equal(back, 50);
	assert_int_equal(r->vq.nfree, 64);
	assert_int_equal(r->vq.inflight, 0);
	assert_false(r->vq.broken);
	assert_int_equal(r->vq.err[VQP_ERR_BAD_LEN], 3);
	assert_int_equal(vqp_base(&r->vq), 0x8000);
	assert_int_equal(r->vq.desc[0].flags, 0);	/* zeroed ring */
	ring_free(r);
}

/* Posts n, publishes, asks; then the device completes them all. */
static bool kick_after(struct ring *r, uint16_t n)
{
	struct vpdev_chain c = { 0 };
	void *ck[64];
	bool kick;

	for (uint16_t i = 0; i < n; i++)
		vqp_post1(&r->vq, 1, 10, 0, CK(i));
	vqp_publish(&r->vq);
	kick = vqp_need_kick(&r->vq);
	for (uint16_t i = 0; i < n; i++)
		assert_int_equal(vpdev_pop(&r->dev, &c), 0);
	vpdev_used(&r->dev, c.id, 0, n);
	assert_int_equal(vqp_inorder_count(&r->vq), n);
	vqp_inorder_take(&r->vq, n, ck);
	return kick;
}

static void test_kick(void **state)
{
	struct ring *r = ring_new(64, true, true);
	struct vring_packed_desc_event *dev = r->vq.dev;

	dev->flags = VRING_PACKED_EVENT_FLAG_DISABLE;
	assert_false(kick_after(r, 1));
	dev->flags = VRING_PACKED_EVENT_FLAG_ENABLE;
	assert_true(kick_after(r, 1));
	/* DESC: kick iff the published range [old, new) passed off */
	dev->flags = VRING_PACKED_EVENT_FLAG_DESC;
	dev->off_wrap = 0x8000 | 5;		/* avail at 2 now */
	assert_false(kick_after(r, 3));		/* 2..4 */
	assert_true(kick_after(r, 1));		/* 5 */
	assert_false(kick_after(r, 1));		/* 6 */
	/* across the wrap: avail at 7, publish 60 -> 3 (wrap 0) */
	dev->off_wrap = 1;			/* slot 1 of the next lap */
	assert_true(kick_after(r, 60));
	dev->off_wrap = 5;			/* slot 5, lap 0: not reached */
	assert_false(kick_after(r, 1));
	dev->off_wrap = 0x8000 | 63;		/* previous lap: long passed */
	assert_false(kick_after(r, 1));
	/* without EVENT_IDX, DESC is treated as ENABLE */
	r->vq.event_idx = false;
	dev->off_wrap = 0;
	assert_true(kick_after(r, 1));
	ring_free(r);
}

/* The four-at-a-time rx path: taken only when all four are simple and
 * right; otherwise nothing is taken and vqp_get() sees the problem. */
static void test_get4(void **state)
{
	for (int kind = 0; kind < 5; kind++) {
		struct ring *r = ring_new(64, true, false);
		struct vpdev_chain c[8];
		void *ck[4];
		uint32_t len[4];

		for (int i = 0; i < 8; i++)
			vqp_post1(&r->vq, 1, 100, VRING_DESC_F_WRITE, CK(i));
		vqp_publish(&r->vq);
		for (int i = 0; i < 8; i++)
			assert_int_equal(vpdev_pop(&r->dev, &c[i]), 0);
		for (int i = 0; i < 8; i++) {
			uint16_t id = c[i].id;
			uint32_t l = 10 + i;

			if (kind == 1 && i == 2)
				id = 3;			/* out of order */
			if (kind == 2 && i == 3)
				l = 101;		/* over the buffer */
			if (kind == 3 && i == 1)
				continue;		/* not used yet */
			vpdev_used(&r->dev, id, l, 1);
			if (kind == 3 && i == 0)
				vpdev_adv(&r->dev, &r->dev.used_slot, &r->dev.used_wrap, 1);
		}
		if (kind == 4) {
			/* start off a 4-slot boundary */
			assert_int_equal(vqp_get(&r->vq, &ck[0], &len[0]), 0);
			assert_int_equal(vqp_get4_inorder(&r->vq, ck, len), 0);
			ring_free(r);
			continue;
		}
		if (kind == 0) {
			assert_int_equal(vqp_get4_inorder(&r->vq, ck, len), 4);
			for (int i = 0; i < 4; i++) {
				assert_int_equal(UNCK(ck[i]), i);
				assert_int_equal(len[i], 10 + i);
			}
			assert_int_equal(vqp_get4_inorder(&r->vq, ck, len), 4);
			assert_int_equal(UNCK(ck[3]), 7);
			assert_int_equal(r->vq.nfree, 64);
			assert_int_equal(vqp_get4_inorder(&r->vq, ck, len), 0);	/* < 4 inflight */
		} else {
			assert_int_equal(vqp_get4_inorder(&r->vq, ck, len), 0);
			assert_int_equal(r->vq.nfree, 56);	/* nothing taken */
			assert_int_equal(r->vq.used_slot, 0);
		}
		assert_false(r->vq.broken);
		ring_free(r);
	}
}

/* The four-at-a-time path without in-order: any order of four distinct
 * outstanding one-descriptor buffers is taken at once; anything else
 * (a repeated id, one out of range or not outstanding, a length over the
 * buffer, one not yet used, a misaligned start, a chain) takes nothing
 * and leaves it to vqp_get(). */
static void test_get4_ooo(void **state)
{
	for (int kind = 0; kind < 8; kind++) {
		struct ring *r = ring_new(64, false, false);
		struct vpdev_chain c[8];
		void *ck[4];
		uint32_t len[4];
		uint16_t posted = 0;

		if (kind == 7) {
			/* a two-descriptor chain where slot 0's buffer would be */
			const struct vqp_seg seg[2] = { { 1, 10 }, { 2, 10 } };

			vqp_postv(&r->vq, seg, 2, CK(0));
			posted = 2;
		}
		for (int i = kind == 7 ? 1 : 0; i < 8; i++, posted++)
			vqp_post1(&r->vq, 1, 100, VRING_DESC_F_WRITE, CK(i));
		vqp_publish(&r->vq);
		for (int i = 0; i < 8; i++)
			assert_int_equal(vpdev_pop(&r->dev, &c[i]), 0);
		for (int i = 0; i < 8; i++) {
			/* used in reverse order within each group of four */
			uint16_t id = c[(i & ~3) + 3 - (i & 3)].id;
			uint32_t l = 10 + i;

			if (kind == 7) {
				id = c[i].id;
				vpdev_used(&r->dev, id, i ? l : 0, c[i].n);
				continue;
			}
			if (kind == 1 && i == 2)
				id = c[(i & ~3) + 3 - 1].id;	/* the same id as i == 1 */
			if (kind == 2 && i == 3)
				id = 64;			/* out of the ring */
			if (kind == 3 && i == 0)
				id = 9;				/* never posted */
			if (kind == 4 && i == 3)
				l = 101;			/* over the buffer */
			if (kind == 5 && i == 1)
				continue;			/* not used yet */
			vpdev_used(&r->dev, id, l, 1);
			if (kind == 5 && i == 0)
				vpdev_adv(&r->dev, &r->dev.used_slot, &r->dev.used_wrap, 1);
		}
		if (kind == 6) {
			/* start off a 4-slot boundary */
			assert_int_equal(vqp_get(&r->vq, &ck[0], &len[0]), 0);
			assert_int_equal(vqp_get4(&r->vq, ck, len), 0);
			ring_free(r);
			continue;
		}
		if (kind == 0) {
			assert_int_equal(vqp_get4(&r->vq, ck, len), 4);
			for (int i = 0; i < 4; i++) {
				assert_int_equal(UNCK(ck[i]), 3 - i);
				assert_int_equal(len[i], 10 + i);
			}
			assert_int_equal(vqp_get4(&r->vq, ck, len), 4);
			assert_int_equal(UNCK(ck[0]), 7);
			assert_int_equal(UNCK(ck[3]), 4);
			assert_int_equal(r->vq.nfree, 64);
			assert_int_equal(r->vq.inflight, 0);
			assert_int_equal(vqp_get4(&r->vq, ck, len), 0);	/* < 4 outstanding */
			/* the freed ids post again */
			for (int i = 0; i < 64; i++)
				vqp_post1(&r->vq, 1, 100, VRING_DESC_F_WRITE, CK(i));
			assert_int_equal(r->vq.nfree, 0);
		} else {
			assert_int_equal(vqp_get4(&r->vq, ck, len), 0);
			assert_int_equal(r->vq.nfree, 64 - posted);	/* nothing taken */
			assert_int_equal(r->vq.used_slot, 0);
		}
		assert_false(r->vq.broken);
		ring_free(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_post_complete),
		cmocka_unit_test(test_wrap_bursts),
		cmocka_unit_test(test_wrap_chains),
		cmocka_unit_test(test_inorder_batch),
		cmocka_unit_test(test_out_of_order_ids),
		cmocka_unit_test(test_bad_id),
		cmocka_unit_test(test_bad_flags),
		cmocka_unit_test(test_unpublished),
		cmocka_unit_test(test_publish_per_line),
		cmocka_unit_test(test_bad_len),
		cmocka_unit_test(test_drain),
		cmocka_unit_test(test_kick),
		cmocka_unit_test(test_get4),
		cmocka_unit_test(test_get4_ooo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
