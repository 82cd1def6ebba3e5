/* Sequence accounting: in order, gaps, reordering, duplicates, gaps larger
 * than the window, numbers far apart, the window wrapping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vf_seq.h"

static struct vf_seq s;

static void test_in_order_and_gaps(void **state)
{
	vf_seq_reset(&s);
	for (uint64_t i = 0; i < 100000; i++)
		if (i % 97 != 96)	/* every 97th lost */
			assert_int_equal(vf_seq_add(&s, i), VF_SEQ_IN_ORDER);
	assert_int_equal(s.received, 100000 - 100000 / 97);
	assert_int_equal(vf_seq_unique(&s), s.received);
	assert_int_equal(s.dups, 0);
	assert_int_equal(s.reordered, 0);
	assert_int_equal(s.next, 100000);
}

static void test_reorder_and_dup(void **state)
{
	vf_seq_reset(&s);
	/* 0 1 3 2 4 4 2 5: 2 reordered once, 4 and 2 duplicated */
	static const uint64_t in[] = { 0, 1, 3, 2, 4, 4, 2, 5 };
	static const enum vf_seq_kind k[] = { VF_SEQ_IN_ORDER, VF_SEQ_IN_ORDER, VF_SEQ_IN_ORDER,
		VF_SEQ_REORDERED, VF_SEQ_IN_ORDER, VF_SEQ_DUP, VF_SEQ_DUP, VF_SEQ_IN_ORDER };
	for (size_t i = 0; i < 8; i++)
		assert_int_equal(vf_seq_add(&s, in[i]), k[i]);
	assert_int_equal(s.received, 8);
	assert_int_equal(s.dups, 2);
	assert_int_equal(s.reordered, 1);
	assert_int_equal(vf_seq_unique(&s), 6);
	/* a duplicate of the first packet is still remembered */
	assert_int_equal(vf_seq_add(&s, 0), VF_SEQ_DUP);
}

static void test_swapped_pairs_exact(void **state)
{
	/* every 10th pair swapped, over many windows: reordered = pairs */
	uint64_t pairs = 0;

	vf_seq_reset(&s);
	for (uint64_t i = 0; i < 200000; i += 2) {
		if ((i / 2) % 10 == 0) {
			vf_seq_add(&s, i + 1);
			vf_seq_add(&s, i);
			pairs++;
		} else {
			vf_seq_add(&s, i);
			vf_seq_add(&s, i + 1);
		}
	}
	assert_int_equal(s.reordered, pairs);
	assert_int_equal(s.dups, 0);
	assert_int_equal(vf_seq_unique(&s), 200000);
}

static void test_gap_larger_than_window(void **state)
{
	vf_seq_reset(&s);
	for (uint64_t i = 0; i < 10; i++)
		vf_seq_add(&s, i);
	/* a jump of several windows clears what it slides over */
	assert_int_equal(vf_seq_add(&s, 10 + 3 * VF_SEQ_WIN + 5), VF_SEQ_IN_ORDER);
	/* a number just inside the window behind is reordered, not a dup */
	assert_int_equal(vf_seq_add(&s, 10 + 2 * VF_SEQ_WIN + 10), VF_SEQ_REORDERED);
	assert_int_equal(vf_seq_add(&s, 10 + 2 * VF_SEQ_WIN + 10), VF_SEQ_DUP);
	/* one older than the window: reordered and late */
	assert_int_equal(vf_seq_add(&s, 5), VF_SEQ_REORDERED);
	assert_int_equal(s.late, 1);
	assert_int_equal(s.reordered, 2);
	/* bits of numbers slid over do not alias the new ones */
	vf_seq_reset(&s);
	vf_seq_add(&s, 7);
	vf_seq_add(&s, 7 + VF_SEQ_WIN);	/* same bit position */
	assert_int_equal(vf_seq_add(&s, 7 + VF_SEQ_WIN - 1), VF_SEQ_REORDERED);
	assert_int_equal(s.dups, 0);
}

static void test_far_apart(void **state)
{
	vf_seq_reset(&s);
	assert_int_equal(vf_seq_add(&s, 1ull << 62), VF_SEQ_IN_ORDER);
	assert_int_equal(vf_seq_add(&s, (1ull << 62) + 1), VF_SEQ_IN_ORDER);
	assert_int_equal(vf_seq_add(&s, 3), VF_SEQ_REORDERED);
	assert_int_equal(s.late, 1);
	assert_int_equal(vf_seq_add(&s, (1ull << 62)), VF_SEQ_DUP);
	/* the largest number, just ahead: the slide must end (found by fuzz_stamp) */
	vf_seq_reset(&s);
	vf_seq_add(&s, UINT64_MAX - 10);
	assert_int_equal(vf_seq_add(&s, UINT64_MAX), VF_SEQ_IN_ORDER);
	/* a slide that is not word aligned and longer than a word */
	vf_seq_reset(&s);
	vf_seq_add(&s, 3);
	for (uint64_t q = 4; q < 200; q++)
		s.win[(q / 64) % VF_SEQ_WORDS] |= 1ull << (q % 64);	/* stale bits */
	vf_seq_add(&s, 199);
	for (uint64_t q = 4; q < 199; q++)
		assert_int_equal(vf_seq_add(&s, q), VF_SEQ_REORDERED);
	assert_int_equal(s.dups, 0);
}

/* Bursts that arrive backwards, as from a LIFO buffer cache (null ports):
 * each burst's first frame jumps ahead over the rest, which the slide must
 * clear without touching what came before; bursts of several lengths so
 * the cleared ranges start and end inside words and span word edges. */
static void test_backward_bursts(void **state)
{
	static const unsigned int lens[] = { 32, 1, 63, 64, 65, 7, 130 };
	uint64_t base = 0, reord = 0;

	vf_seq_reset(&s);
	for (int round = 0; round < 400; round++) {
		unsigned int n = lens[round % 7];

		for (unsigned int i = n; i-- > 0;)
			assert_int_equal(vf_seq_add(&s, base + i),
					 i == n - 1 ? VF_SEQ_IN_ORDER : VF_SEQ_REORDERED);
		reord += n - 1;
		/* the burst before this one is still fully remembered */
		if (base >= 3)
			assert_int_equal(vf_seq_add(&s, base - 3), VF_SEQ_DUP);
		base += n;
	}
	assert_int_equal(s.reordered, reord);
	assert_int_equal(s.dups, 399);
	assert_int_equal(vf_seq_unique(&s), base);
}

/* Against an exact model (every number remembered), on a walk that is
 * mostly in order, as a device delivers, with jumps forward, steps back
 * inside and beyond the window, and repeats: the in-order fast path and
 * the general path together give the model's answer every time. */
#define MODEL_N 200000
static uint8_t seen[MODEL_N];

static void test_against_model(void **state)
{
	uint64_t next = 0, dups = 0, reord = 0, late = 0, x = 88172645463325252ull, q = 0;

	vf_seq_reset(&s);
	memset(seen, 0, sizeof(seen));
	for (int i = 0; i < 400000; i++) {
		enum vf_seq_kind want, got;
		uint64_t r;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		r = x % 1000;
		if (r < 900)
			q = next;				/* in order */
		else if (r < 930)
			q = next + x % 300;			/* a gap */
		else if (r < 990)
			q = next > 0 ? next - 1 - (x >> 20) % (next < 6000 ? next : 6000) : 0;
		/* else: q as before, the same number again */
		if (q >= MODEL_N - 400)
			break;
		if (q >= next) {
			want = VF_SEQ_IN_ORDER;
			next = q + 1;
		} else if (next - q > VF_SEQ_WIN) {
			want = VF_SEQ_REORDERED;
			reord++;
			late++;
		} else if (seen[q]) {
			want = VF_SEQ_DUP;
			dups++;
		} else {
			want = VF_SEQ_REORDERED;
			reord++;
		}
		seen[q] = 1;
		got = vf_seq_add(&s, q);
		assert_int_equal(got, want);
	}
	assert_int_equal(s.next, next);
	assert_int_equal(s.dups, dups);
	assert_int_equal(s.reordered, reord);
	assert_int_equal(s.late, late);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order_and_gaps),
		cmocka_unit_test(test_reorder_and_dup),
		cmocka_unit_test(test_swapped_pairs_exact),
		cmocka_unit_test(test_gap_larger_than_window),
		cmocka_unit_test(test_far_apart),
		cmocka_unit_test(test_backward_bursts),
		cmocka_unit_test(test_against_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
