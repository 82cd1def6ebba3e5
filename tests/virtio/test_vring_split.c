/* Split virtqueue core without any peer: the test plays the device in plain
 * memory (vdev_emu.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "vring_fixture.h"

static struct ring *ring_new(uint16_t size, bool in_order)
{
	struct ring *r = ring_alloc(size);

	assert_int_equal(vqs_init(&r->vq, r->mem, size, in_order, r->slots), 0);
	vdev_init(&r->dev, &r->vq);
	return r;
}

static void test_init(void **state)
{
	struct vq_split vq;
	struct vqs_slot slots[8];
	static char mem[4096] __attribute__((aligned(64)));

	assert_int_equal(vqs_init(&vq, mem, 0, true, slots), -EINVAL);
	assert_int_equal(vqs_init(&vq, mem, 6, true, slots), -EINVAL);
	assert_int_equal(vqs_init(&vq, mem, 8, true, slots), 0);
	assert_int_equal(vq.nfree, 8);
	assert_int_equal(vq.avail->flags, VRING_AVAIL_F_NO_INTERRUPT);
	/* used ring after avail, inside the block, 4-byte aligned */
	assert_true((char *)vq.used >= (char *)&vq.avail->ring[8] + 2);
	assert_true((char *)&vq.used->ring[8] + 2 <= mem + vqs_mem_size(8));
	assert_int_equal((uintptr_t)vq.used % 4, 0);
}

static void test_post_complete(void **state)
{
	for (int order = 0; order < 2; order++) {
		struct ring *r = ring_new(8, order);
		struct vdev_chain c = { 0 };
		void *ck = NULL;
		uint32_t len;

		vqs_post1(&r->vq, 0x1000, 100, VRING_DESC_F_WRITE, CK(7));
		/* not visible before publish */
		assert_int_equal(vdev_avail(&r->dev), 0);
		vqs_publish(&r->vq);
		assert_int_equal(vdev_avail(&r->dev), 1);
		assert_int_equal(vdev_pop(&r->dev, &c), 0);
		assert_int_equal(c.n, 1);
		assert_int_equal(c.d[0].addr, 0x1000);
		assert_int_equal(c.d[0].len, 100);
		assert_int_equal(c.d[0].flags, VRING_DESC_F_WRITE);
		assert_int_equal(r->vq.nfree, 7);
		assert_int_equal(vqs_used_count(&r->vq), 0);
		vdev_used(&r->dev, c.head, 60);
		assert_int_equal(vqs_used_count(&r->vq), 1);
		assert_int_equal(vqs_get(&r->vq, &ck, &len), 0);
		assert_ptr_equal(ck, CK(7));
		assert_int_equal(len, 60);
		assert_int_equal(r->vq.nfree, 8);
		assert_int_equal(r->vq.inflight, 0);
		assert_false(r->vq.broken);
		ring_free(r);
	}
}

static void test_chain(void **state)
{
	for (int order = 0; order < 2; order++) {
		struct ring *r = ring_new(8, order);
		struct vqs_seg seg[3] = { { 0x100, 12 }, { 0x200, 20 }, { 0x300, 30 } };
		struct vdev_chain c = { 0 };
		void *ck = NULL;
		uint32_t len;

		vqs_postv(&r->vq, seg, 3, CK(1));
		vqs_publish(&r->vq);
		assert_int_equal(r->vq.nfree, 5);
		assert_int_equal(vdev_pop(&r->dev, &c), 0);
		assert_int_equal(c.n, 3);
		for (int i = 0; i < 3; i++) {
			assert_int_equal(c.d[i].addr, seg[i].addr);
			assert_int_equal(c.d[i].len, seg[i].len);
			assert_int_equal(c.d[i].flags, i < 2 ? VRING_DESC_F_NEXT : 0);
		}
		vdev_used(&r->dev, c.head, 0);
		assert_int_equal(vqs_used_count(&r->vq), 1);
		assert_int_equal(vqs_get(&r->vq, &ck, &len), 0);
		assert_ptr_equal(ck, CK(1));
		assert_int_equal(r->vq.nfree, 8);
		ring_free(r);
	}
}

/* 16-bit free-running indices wrap many times; chains of 1-3 descriptors
 * so descriptor positions and ring positions drift apart. */
static void test_wrap(void **state)
{
	for (int order = 0; order < 2; order++) {
		struct ring *r = ring_new(8, order);
		unsigned int sent = 0, got = 0;

		for (unsigned int it = 0; it < 100000; it++) {
			uint16_t n = 1 + it % 3;
			struct vqs_seg seg[3] = { { 1, 1 }, { 2, 2 }, { 3, 3 } };
			struct vdev_chain c = { 0 };

			while (r->vq.nfree >= n) {
				vqs_postv(&r->vq, seg, n, CK(sent));
				sent++;
			}
			vqs_publish(&r->vq);
			/* device completes everything available */
			uint16_t k = 0;

			while (vdev_pop(&r->dev, &c) == 0)
				vdev_used_put(&r->dev, k++, c.head, 0);
			vdev_used_publish(&r->dev, k);
			uint16_t u = vqs_used_count(&r->vq);

			assert_int_equal(u, k);
			for (uint16_t i = 0; i < u; i++) {
				void *ck = NULL;
				uint32_t len;

				assert_int_equal(vqs_get(&r->vq, &ck, &len), 0);
				assert_int_equal(UNCK(ck), got);
				got++;
			}
		}
		assert_true(sent > 65536 * 2);
		assert_int_equal(sent, got);
		assert_int_equal(r->vq.avail_idx, (uint16_t)sent);
		assert_int_equal(r->vq.used_idx, (uint16_t)got);
		assert_false(r->vq.broken);
		ring_free(r);
	}
}

/* In-order: the device publishes a batch with only its last entry written. */
static void test_inorder_batch(void **state)
{
	struct ring *r = ring_new(16, true);
	struct vqs_seg seg[3] = { { 1, 1 }, { 2, 2 }, { 3, 3 } };
	struct vdev_chain c = { 0 };
	void *ck[8];
	uint16_t last = 0;

	for (int round = 0; round < 50; round++) {
		uint16_t n = 0;

		for (int i = 0; i < 5; i++) {
			vqs_postv(&r->vq, seg, 1 + (i + round) % 3, CK(i));
		}
		vqs_publish(&r->vq);
		while (vdev_pop(&r->dev, &c) == 0) {
			last = c.head;
			n++;
		}
		assert_int_equal(n, 5);
		/* scribble stale ids into the skipped slots: must not matter */
		for (int i = 0; i < 4; i++)
			vdev_used_put(&r->dev, i, 0xdead, 0xbeef);
		vdev_used_put(&r->dev, 4, last, 0);
		vdev_used_publish(&r->dev, 5);
		assert_int_equal(vqs_used_count(&r->vq), 5);
		assert_true(vqs_inorder_check(&r->vq, 5));
		vqs_inorder_take(&r->vq, 2, ck);
		vqs_inorder_take(&r->vq, 3, ck + 2);
		for (int i = 0; i < 5; i++)
			assert_ptr_equal(ck[i], CK(i));
		assert_int_equal(r->vq.nfree, 16);
		assert_int_equal(r->vq.inflight, 0);
	}
	/* a batch whose last id is not the last chain's head: broken (D1) */
	vqs_post1(&r->vq, 1, 1, 0, CK(0));
	vqs_post1(&r->vq, 1, 1, 0, CK(1));
	vqs_publish(&r->vq);
	vdev_pop(&r->dev, &c);
	vdev_used_put(&r->dev, 1, c.head, 0);	/* first head in the last slot */
	vdev_used_publish(&r->dev, 2);
	assert_false(vqs_inorder_check(&r->vq, vqs_used_count(&r->vq)));
	assert_true(r->vq.broken);
	assert_int_equal(r->vq.err[VQS_ERR_BAD_ID], 1);
	assert_int_equal(vqs_used_count(&r->vq), 0);
	ring_free(r);
}

static void test_out_of_order(void **state)
{
	struct ring *r = ring_new(8, false);
	struct vdev_chain c[4];
	struct vqs_seg seg[2] = { { 1, 1 }, { 2, 2 } };
	int order[4] = { 2, 0, 3, 1 };
	void *ck = NULL;
	uint32_t len;

	for (int round = 0; round < 100; round++) {
		for (int i = 0; i < 4; i++)
			vqs_postv(&r->vq, seg, 2, CK(i));
		vqs_publish(&r->vq);
		assert_int_equal(r->vq.nfree, 0);
		for (int i = 0; i < 4; i++)
			assert_int_equal(vdev_pop(&r->dev, &c[i]), 0);
		for (int i = 0; i < 4; i++)
			vdev_used_put(&r->dev, i, c[order[i]].head, 0);
		vdev_used_publish(&r->dev, 4);
		assert_int_equal(vqs_used_count(&r->vq), 4);
		for (int i = 0; i < 4; i++) {
			assert_int_equal(vqs_get(&r->vq, &ck, &len), 0);
			assert_int_equal(UNCK(ck), order[i]);
		}
		assert_int_equal(r->vq.nfree, 8);
	}
	ring_free(r);
}

/* D1: ids out of range, not outstanding, completed twice. */
static void test_bad_id(void **state)
{
	uint32_t bad[3] = { 8, 0xffffffff, 5 };

	for (int i = 0; i < 3; i++) {
		struct ring *r = ring_new(8, false);
		void *ck = NULL;
		uint32_t len;

		vqs_post1(&r->vq, 1, 10, VRING_DESC_F_WRITE, CK(0));	/* head 0 */
		vqs_publish(&r->vq);
		vdev_used(&r->dev, bad[i], 1);
		assert_int_equal(vqs_used_count(&r->vq), 1);
		assert_int_equal(vqs_get(&r->vq, &ck, &len), -EPROTO);
		assert_true(r->vq.broken);
		assert_int_equal(r->vq.err[VQS_ERR_BAD_ID], 1);
		assert_int_equal(r->vq.inflight, 1);	/* nothing completed */
		assert_int_equal(vqs_used_count(&r->vq), 0);
		ring_free(r);
	}
	/* twice the same id */
	struct ring *r = ring_new(8, false);
	void *ck = NULL;
	uint32_t len;

	vqs_post1(&r->vq, 1, 10, VRING_DESC_F_WRITE, CK(0));
	vqs_post1(&r->vq, 1, 10, VRING_DESC_F_WRITE, CK(1));
	vqs_publish(&r->vq);
	vdev_used_put(&r->dev, 0, 0, 1);
	vdev_used_put(&r->dev, 1, 0, 1);
	vdev_used_publish(&r->dev, 2);
	assert_int_equal(vqs_used_count(&r->vq), 2);
	assert_int_equal(vqs_get(&r->vq, &ck, &len), 0);
	assert_int_equal(vqs_get(&r->vq, &ck, &len), -EPROTO);
	assert_true(r->vq.broken);
	ring_free(r);
	/* in-order: an id that is not the oldest head */
	r = ring_new(8, true);
	vqs_post1(&r->vq, 1, 10, VRING_DESC_F_WRITE, CK(0));
	vqs_post1(&r->vq, 1, 10, VRING_DESC_F_WRITE, CK(1));
	vqs_publish(&r->vq);
	vdev_used(&r->dev, 1, 1);
	assert_int_equal(vqs_used_count(&r->vq), 1);
	assert_int_equal(vqs_get(&r->vq, &ck, &len), -EPROTO);
	assert_true(r->vq.broken);
	ring_free(r);
}

/* D2: length larger than the buffer: completed, reported, counted. */
static void test_bad_len(void **state)
{
	for (int order = 0; order < 2; order++) {
		struct ring *r = ring_new(8, order);
		void *ck = NULL;
		uint32_t len;

		vqs_post1(&r->vq, 1, 100, VRING_DESC_F_WRITE, CK(0));
		vqs_post1(&r->vq, 1, 100, VRING_DESC_F_WRITE, CK(1));
		vqs_publish(&r->vq);
		vdev_used(&r->dev, 0, 101);
		vdev_used(&r->dev, 1, 100);
		assert_int_equal(vqs_used_count(&r->vq), 2);
		assert_int_equal(vqs_get(&r->vq, &ck, &len), -EMSGSIZE);
		assert_ptr_equal(ck, CK(0));
		assert_int_equal(vqs_get(&r->vq, &ck, &len), 0);
		assert_int_equal(len, 100);
		assert_false(r->vq.broken);
		assert_int_equal(r->vq.err[VQS_ERR_BAD_LEN], 1);
		assert_int_equal(r->vq.nfree, 8);
		ring_free(r);
	}
}

/* D3: used idx moves further than what is outstanding. */
static void test_idx_jump(void **state)
{
	struct ring *r = ring_new(8, true);

	vqs_post1(&r->vq, 1, 100, VRING_DESC_F_WRITE, CK(0));
	vqs_post1(&r->vq, 1, 100, VRING_DESC_F_WRITE, CK(1));
	vqs_publish(&r->vq);
	vdev_used_publish(&r->dev, 3);
	assert_int_equal(vqs_used_count(&r->vq), 0);
	assert_true(r->vq.broken);
	assert_int_equal(r->vq.err[VQS_ERR_IDX_JUMP], 1);
	ring_free(r);
	/* backwards is a jump too (mod 2^16) */
	r = ring_new(8, false);
	vqs_post1(&r->vq, 1, 100, VRING_DESC_F_WRITE, CK(0));
	vqs_publish(&r->vq);
	vdev_used_publish(&r->dev, 0xffff);
	assert_int_equal(vqs_used_count(&r->vq), 0);
	assert_true(r->vq.broken);
	ring_free(r);
}

static void count_cookie(void *c, void *arg)
{
	*(unsigned int *)arg += UNCK(c) + 1;
}

static void test_drain(void **state)
{
	for (int order = 0; order < 2; order++) {
		struct ring *r = ring_new(8, order);
		struct vqs_seg seg[2] = { { 1, 1 }, { 2, 2 } };
		unsigned int sum = 0;

		vqs_post1(&r->vq, 1, 100, 0, CK(0));
		vqs_postv(&r->vq, seg, 2, CK(1));
		vqs_post1(&r->vq, 1, 100, 0, CK(2));
		vqs_publish(&r->vq);
		vdev_used_publish(&r->dev, 7);	/* breaks it */
		assert_int_equal(vqs_used_count(&r->vq), 0);
		vqs_drain(&r->vq, count_cookie, &sum);
		assert_int_equal(sum, 1 + 2 + 3);
		assert_int_equal(r->vq.nfree, 8);
		assert_int_equal(r->vq.inflight, 0);
		assert_false(r->vq.broken);
		assert_int_equal(r->vq.err[VQS_ERR_IDX_JUMP], 1);	/* kept */
		assert_int_equal(r->vq.avail->idx, 0);
		assert_int_equal(r->vq.used->idx, 0);
		ring_free(r);
	}
}

static void test_kick(void **state)
{
	struct ring *r = ring_new(8, true);

	vqs_post1(&r->vq, 1, 100, 0, CK(0));
	vqs_publish(&r->vq);
	assert_true(vqs_need_kick(&r->vq));
	r->vq.used->flags = VRING_USED_F_NO_NOTIFY;
	assert_false(vqs_need_kick(&r->vq));
	ring_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_post_complete),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_inorder_batch),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_bad_id),
		cmocka_unit_test(test_bad_len),
		cmocka_unit_test(test_idx_jump),
		cmocka_unit_test(test_drain),
		cmocka_unit_test(test_kick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
