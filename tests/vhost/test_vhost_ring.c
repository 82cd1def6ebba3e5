/* The split-ring descriptor walker and the ring-level checks of the data
 * path, fed crafted descriptor tables in memfd-backed "front-end" memory
 * mapped through the real memory-table code. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vhost/virtqueue.h"
#include "vh_testring.h"

#define RING 8
#define BUF_OFF 0x10000		/* packet buffers from here */

struct fx {
	struct guest g, g2;
	struct vh_mem mem;
	struct vh_vq vq;
	struct vring_desc *d;	/* our view of the descriptor table */
	int fds_before;
};

static int map_regions(struct fx *f, bool two)
{
	struct vhost_user_mem_table t = { .nregions = two ? 2 : 1 };
	int fds[2] = { f->g.fd, f->g2.fd };
	char why[96];

	t.regions[0] = (struct vhost_user_mem_region){ GUEST_GPA, GUEST_SIZE, GUEST_UVA, 0 };
	/* the second region continues the first in guest-physical space */
	t.regions[1] = (struct vhost_user_mem_region){ GUEST_GPA + GUEST_SIZE, GUEST_SIZE,
						      GUEST_UVA + 2 * GUEST_SIZE, 0 };
	vh_mem_unmap(&f->mem);
	return vh_mem_map(&f->mem, &t, 8 + t.nregions * 32, fds, t.nregions, why, sizeof(why));
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->fds_before = count_fds();
	if (guest_open(&f->g, GUEST_SIZE) || guest_open(&f->g2, GUEST_SIZE) ||
	    map_regions(f, false))
		return -1;
	f->vq.size = RING;
	f->vq.mask = RING - 1;
	f->vq.hdr_len = 12;
	f->vq.callfd = f->vq.kickfd = -1;
	if (vht_split_attach(&f->vq, &f->mem))
		return -1;
	f->d = (struct vring_desc *)(f->g.va + SPLIT_DESC_OFF);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	vh_mem_unmap(&f->mem);
	guest_close(&f->g);
	guest_close(&f->g2);
	assert_int_equal(count_fds(), f->fds_before);
	free(f);
	return 0;
}

static void desc(struct fx *f, struct vring_desc *tab, unsigned int i, uint64_t addr,
		 uint32_t len, uint16_t flags, uint16_t next)
{
	(void)f;
	tab[i] = (struct vring_desc){ .addr = addr, .len = len, .flags = flags, .next = next };
}

static int walk(struct fx *f, uint16_t head, bool w, struct vh_chain *c, uint32_t *len)
{
	c->nseg = 0;
	return vh_split_walk(&f->vq, head, w, c, len);
}

static void test_good_chain(void **state)
{
	struct fx *f = *state;
	struct vh_chain c;
	uint32_t len;

	desc(f, f->d, 2, GUEST_GPA + BUF_OFF, 12, VRING_DESC_F_NEXT, 5);
	desc(f, f->d, 5, GUEST_GPA + BUF_OFF + 100, 60, VRING_DESC_F_NEXT, 0);
	desc(f, f->d, 0, GUEST_GPA + BUF_OFF + 200, 0, VRING_DESC_F_NEXT, 1); /* empty */
	desc(f, f->d, 1, GUEST_GPA + BUF_OFF + 300, 8, 0, 0);
	assert_int_equal(walk(f, 2, false, &c, &len), VH_WALK_OK);
	assert_int_equal(len, 80);
	assert_int_equal(c.nseg, 3);
	assert_ptr_equal(c.seg[0].p, f->mem.r[0].host + BUF_OFF);
	assert_ptr_equal(c.seg[2].p, f->mem.r[0].host + BUF_OFF + 300);
	/* writable descriptors after the readable ones are skipped on dequeue */
	desc(f, f->d, 1, GUEST_GPA + BUF_OFF + 300, 8, VRING_DESC_F_WRITE, 0);
	assert_int_equal(walk(f, 2, false, &c, &len), VH_WALK_OK);
	assert_int_equal(len, 72);
}

static void test_index_range(void **state)
{
	struct fx *f = *state;
	struct vh_chain c;
	uint32_t len;

	assert_int_equal(walk(f, RING, false, &c, &len), VH_WALK_HEAD_RANGE);
	assert_int_equal(walk(f, 0xffff, false, &c, &len), VH_WALK_HEAD_RANGE);
	desc(f, f->d, 0, GUEST_GPA + BUF_OFF, 64, VRING_DESC_F_NEXT, RING);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_NEXT_RANGE);
}

static void test_loops(void **state)
{
	struct fx *f = *state;
	struct vh_chain c;
	uint32_t len;

	desc(f, f->d, 3, GUEST_GPA + BUF_OFF, 64, VRING_DESC_F_NEXT, 3);	/* self */
	assert_int_equal(walk(f, 3, false, &c, &len), VH_WALK_LOOP);
	desc(f, f->d, 3, GUEST_GPA + BUF_OFF, 64, VRING_DESC_F_NEXT, 4);	/* 2-cycle */
	desc(f, f->d, 4, GUEST_GPA + BUF_OFF, 64, VRING_DESC_F_NEXT, 3);
	assert_int_equal(walk(f, 3, false, &c, &len), VH_WALK_LOOP);
	/* a chain through every descriptor once is fine; one more hop is not */
	for (unsigned int i = 0; i < RING; i++)
		desc(f, f->d, i, GUEST_GPA + BUF_OFF, 16,
		     i + 1 < RING ? VRING_DESC_F_NEXT : 0, (uint16_t)(i + 1));
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_OK);
	assert_int_equal(len, 16 * RING);
	desc(f, f->d, RING - 1, GUEST_GPA + BUF_OFF, 16, VRING_DESC_F_NEXT, 0);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_LOOP);
}

static void test_region_end(void **state)
{
	struct fx *f = *state;
	struct vh_chain c;
	uint32_t len;

	/* crosses the end of the only region */
	desc(f, f->d, 0, GUEST_GPA + GUEST_SIZE - 16, 4096, 0, 0);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_ADDR);
	/* ends exactly at it */
	desc(f, f->d, 0, GUEST_GPA + GUEST_SIZE - 16, 16, 0, 0);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_OK);
	/* outside, wrapping the address space */
	desc(f, f->d, 0, 0, 64, 0, 0);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_ADDR);
	desc(f, f->d, 0, UINT64_MAX - 7, 16, 0, 0);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_ADDR);
	/* zero length: nothing to read, address not looked at */
	desc(f, f->d, 0, 0, 0, 0, 0);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_OK);
	assert_int_equal(c.nseg, 0);
	/* into an adjacent region: split into two segments, never read past */
	assert_int_equal(map_regions(f, true), 0);
	const char *why;
	assert_int_equal(vh_split_map(&f->vq, &f->mem, &why), 0);
	desc(f, f->d, 0, GUEST_GPA + GUEST_SIZE - 16, 4096, 0, 0);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_OK);
	assert_int_equal(c.nseg, 2);
	assert_int_equal(c.seg[0].len, 16);
	assert_ptr_equal(c.seg[0].p, f->mem.r[0].host + GUEST_SIZE - 16);
	assert_int_equal(c.seg[1].len, 4096 - 16);
	assert_ptr_equal(c.seg[1].p, f->mem.r[1].host);
	/* and past the second one's end */
	desc(f, f->d, 0, GUEST_GPA + 2 * GUEST_SIZE - 16, 4096, 0, 0);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_ADDR);
}

static void test_indirect(void **state)
{
	struct fx *f = *state;
	struct vring_desc *tab = (struct vring_desc *)(f->g.va + 0x8000);
	uint64_t tab_gpa = GUEST_GPA + 0x8000;
	struct vh_chain c;
	uint32_t len;

	desc(f, tab, 0, GUEST_GPA + BUF_OFF, 12, VRING_DESC_F_NEXT, 1);
	desc(f, tab, 1, GUEST_GPA + BUF_OFF + 64, 100, 0, 0);
	desc(f, f->d, 0, tab_gpa, 2 * 16, VRING_DESC_F_INDIRECT, 0);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_OK);
	assert_int_equal(len, 112);
	/* nested indirect table */
	desc(f, tab, 1, tab_gpa, 16, VRING_DESC_F_INDIRECT, 0);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_INDIRECT);
	desc(f, tab, 1, GUEST_GPA + BUF_OFF + 64, 100, 0, 0);
	/* bad table lengths, INDIRECT together with NEXT */
	desc(f, f->d, 0, tab_gpa, 0, VRING_DESC_F_INDIRECT, 0);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_INDIRECT);
	desc(f, f->d, 0, tab_gpa, 17, VRING_DESC_F_INDIRECT, 0);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_INDIRECT);
	desc(f, f->d, 0, tab_gpa, 16 * 65537u, VRING_DESC_F_INDIRECT, 0);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_INDIRECT);
	desc(f, f->d, 0, tab_gpa, 32, VRING_DESC_F_INDIRECT | VRING_DESC_F_NEXT, 1);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_INDIRECT);
	/* table crossing the region end */
	desc(f, f->d, 0, GUEST_GPA + GUEST_SIZE - 16, 32, VRING_DESC_F_INDIRECT, 0);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_ADDR);
	/* next >= table count, loop inside the table */
	desc(f, f->d, 0, tab_gpa, 2 * 16, VRING_DESC_F_INDIRECT, 0);
	desc(f, tab, 1, GUEST_GPA + BUF_OFF, 10, VRING_DESC_F_NEXT, 2);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_NEXT_RANGE);
	desc(f, tab, 1, GUEST_GPA + BUF_OFF, 10, VRING_DESC_F_NEXT, 0);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_LOOP);
	/* a table longer than the ring is fine when it does not loop */
	for (unsigned int i = 0; i < 3 * RING; i++)
		desc(f, tab, i, GUEST_GPA + BUF_OFF, 4,
		     i + 1 < 3 * RING ? VRING_DESC_F_NEXT : 0, (uint16_t)(i + 1));
	desc(f, f->d, 0, tab_gpa, 3 * RING * 16, VRING_DESC_F_INDIRECT, 0);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_OK);
	assert_int_equal(len, 4 * 3 * RING);
}

static void test_direction(void **state)
{
	struct fx *f = *state;
	struct vh_chain c;
	uint32_t len;

	/* readable after writable */
	desc(f, f->d, 0, GUEST_GPA + BUF_OFF, 64, VRING_DESC_F_WRITE | VRING_DESC_F_NEXT, 1);
	desc(f, f->d, 1, GUEST_GPA + BUF_OFF, 64, 0, 0);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_DIRECTION);
	/* an rx buffer that is not device-writable */
	assert_int_equal(walk(f, 1, true, &c, &len), VH_WALK_DIRECTION);
	desc(f, f->d, 1, GUEST_GPA + BUF_OFF, 64, VRING_DESC_F_WRITE, 0);
	assert_int_equal(walk(f, 0, true, &c, &len), VH_WALK_OK);
	assert_int_equal(len, 128);
}

static void test_too_many_segments(void **state)
{
	struct fx *f = *state;
	struct vring_desc *tab = (struct vring_desc *)(f->g.va + 0x8000);
	struct vh_chain c;
	uint32_t len;

	for (unsigned int i = 0; i < VH_MAX_SEGS + 1; i++)
		desc(f, tab, i, GUEST_GPA + BUF_OFF, 4,
		     i < VH_MAX_SEGS ? VRING_DESC_F_NEXT : 0, (uint16_t)(i + 1));
	desc(f, f->d, 0, GUEST_GPA + 0x8000, (VH_MAX_SEGS + 1) * 16, VRING_DESC_F_INDIRECT, 0);
	assert_int_equal(walk(f, 0, false, &c, &len), VH_WALK_TOO_MANY);
	assert_int_equal(c.nseg, VH_MAX_SEGS);
}

static void test_avail_jump(void **state)
{
	struct fx *f = *state;
	struct vring_avail *avail = (struct vring_avail *)(f->g.va + SPLIT_AVAIL_OFF);
	struct rte_mbuf *pkts[4] = { NULL };

	f->vq.ready = true;
	/* one more than the ring holds: the ring stops before any mbuf or
	 * descriptor is touched */
	avail->idx = f->vq.last_avail + RING + 1;
	assert_int_equal(vh_split_dequeue(&f->vq, pkts, 4), 0);
	assert_true(f->vq.dp_broken);
	assert_int_equal(f->vq.st.broken, 1);
	/* once broken the ring is left alone */
	assert_int_equal(vh_split_enqueue(&f->vq, pkts, 0), 0);
	assert_int_equal(f->vq.st.broken, 1);
	/* the enqueue side checks the same */
	vh_split_start(&f->vq);
	avail->idx = f->vq.last_avail + 0x8000;
	assert_int_equal(vh_split_enqueue(&f->vq, pkts, 4), 0);
	assert_true(f->vq.dp_broken);
	/* a restart resumes from the used index in memory */
	struct vring_used *used = (struct vring_used *)(f->g.va + SPLIT_USED_OFF);
	used->idx = 5;
	vh_split_start(&f->vq);
	assert_false(f->vq.dp_broken);
	assert_int_equal(f->vq.last_avail, 5);
	assert_int_equal(f->vq.last_used, 5);
	/* an empty ring is not an error: the packets count as ring-full */
	avail->idx = 5;
	assert_int_equal(vh_split_enqueue(&f->vq, pkts, 4), 0);
	assert_false(f->vq.dp_broken);
	assert_int_equal(f->vq.st.ring_full, 4);
}

static void test_ring_map(void **state)
{
	struct fx *f = *state;
	const char *why;

	/* used ring whose avail_event (EVENT_IDX) would be past the region end */
	f->vq.addr.used_user_addr = GUEST_UVA + GUEST_SIZE - (4 + 8 * RING);
	assert_int_equal(vh_split_map(&f->vq, &f->mem, &why), 0);
	f->vq.event_idx = true;
	assert_int_equal(vh_split_map(&f->vq, &f->mem, &why), -EINVAL);
	assert_null(f->vq.desc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_good_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_index_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_region_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_indirect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_direction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_many_segments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_avail_jump, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ring_map, setup, teardown),
	};

	return cmocka_run_group_tests_name("vhost_ring", tests, NULL, NULL);
}
