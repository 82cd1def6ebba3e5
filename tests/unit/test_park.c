/* vf_fwd_park: idle streams polled less often on a core with many
 * (vf_fwd_park.h), driven pass by pass with a mode whose "ring" is a
 * per-stream count of frames waiting.  What is checked: who parks and
 * when, that every parked stream is still polled within a bounded number
 * of passes, that one that receives is polled every pass again, that
 * nothing waiting is ever left behind, and where parking does not apply. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vf_fwd_park.h"

#define MAXN 300

/* The test's rings: frames waiting per stream (by stream id), polls seen. */
static unsigned int waiting[MAXN];
static unsigned int polls[MAXN];

static void ring_fwd(struct vf_stream *fs)
{
	unsigned int n = waiting[fs->id] < fs->burst ? waiting[fs->id] : fs->burst;

	polls[fs->id]++;
	waiting[fs->id] -= n;
	fs->rx_packets += n;
}

static const struct vf_fwd_mode ring_mode = { .name = "ring", .fwd = ring_fwd, .sleeps = true };
static const struct vf_fwd_mode gen_mode = { .name = "gen", .fwd = ring_fwd, .generates = true };

static struct vf_stream **streams(unsigned int n)
{
	struct vf_stream **fs = calloc(n, sizeof(*fs));

	assert_non_null(fs);
	for (unsigned int i = 0; i < n; i++) {
		fs[i] = calloc(1, sizeof(**fs));
		assert_non_null(fs[i]);
		fs[i]->id = (uint16_t)i;
		fs[i]->burst = 32;
	}
	memset(waiting, 0, sizeof(waiting));
	memset(polls, 0, sizeof(polls));
	return fs;
}

static void streams_free(struct vf_stream **fs, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		free(fs[i]);
	free(fs);
}

/* One pass; returns how many streams it polled. */
static unsigned int pass(struct vf_fwd_park *pk, struct vf_stream **fs)
{
	unsigned int before = 0, after = 0;

	for (unsigned int i = 0; i < pk->n; i++)
		before += polls[i];
	vf_fwd_park_pass(pk, (struct vf_stream *const *)fs, &ring_mode);
	for (unsigned int i = 0; i < pk->n; i++)
		after += polls[i];
	return after - before;
}

static void test_not_applied(void **state)
{
	struct vf_fwd_park pk;

	(void)state;
	assert_int_equal(vf_fwd_park_init(&pk, VF_FWD_PARK_MIN, &ring_mode), -1);
	assert_int_equal(pk.active, VF_FWD_PARK_MIN);
	vf_fwd_park_fini(&pk);
	/* a generating mode sends on every poll: never skipped */
	assert_int_equal(vf_fwd_park_init(&pk, 64, &gen_mode), -1);
	vf_fwd_park_fini(&pk);
	assert_int_equal(vf_fwd_park_init(&pk, VF_FWD_PARK_MIN + 1, &ring_mode), 0);
	vf_fwd_park_fini(&pk);
}

/* Idle streams are polled every pass until VF_FWD_PARK_AFTER empty polls,
 * then about 1/VF_FWD_PARK_EVERY of them a pass, each within every
 * VF_FWD_PARK_EVERY passes. */
static void test_parks_when_idle(void **state)
{
	const unsigned int n = 64;
	struct vf_stream **fs = streams(n);
	struct vf_fwd_park pk;

	(void)state;
	assert_int_equal(vf_fwd_park_init(&pk, n, &ring_mode), 0);
	for (unsigned int p = 0; p < VF_FWD_PARK_AFTER - 1; p++)
		assert_int_equal(pass(&pk, fs), n);
	assert_int_equal(pk.active, n);
	pass(&pk, fs);
	assert_int_equal(pk.active, 0);
	memset(polls, 0, sizeof(polls));
	for (unsigned int p = 0; p < VF_FWD_PARK_EVERY; p++)
		assert_int_equal(pass(&pk, fs), n / VF_FWD_PARK_EVERY);
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(polls[i], 1);
	vf_fwd_park_fini(&pk);
	streams_free(fs, n);
}

/* A parked stream that receives is polled every pass from the next one,
 * until it has been idle VF_FWD_PARK_AFTER polls again. */
static void test_wakes_on_traffic(void **state)
{
	const unsigned int n = 32;
	struct vf_stream **fs = streams(n);
	struct vf_fwd_park pk;
	unsigned int p, seen;

	(void)state;
	assert_int_equal(vf_fwd_park_init(&pk, n, &ring_mode), 0);
	for (p = 0; p < VF_FWD_PARK_AFTER; p++)
		pass(&pk, fs);
	assert_int_equal(pk.active, 0);
	waiting[7] = 1000;	/* 32 bursts */
	for (p = 0; waiting[7] == 1000; p++)
		pass(&pk, fs);
	assert_true(p <= VF_FWD_PARK_EVERY);
	assert_int_equal(pk.active, 1);
	for (p = 0; waiting[7]; p++) {
		unsigned int was = polls[7];

		pass(&pk, fs);
		assert_int_equal(polls[7], was + 1);
	}
	assert_int_equal(fs[7]->rx_packets, 1000);
	seen = polls[7];
	for (p = 0; p < VF_FWD_PARK_AFTER; p++)
		pass(&pk, fs);
	assert_int_equal(polls[7], seen + VF_FWD_PARK_AFTER);
	assert_int_equal(pk.active, 0);
	vf_fwd_park_fini(&pk);
	streams_free(fs, n);
}

/* Random sparse traffic over many streams, one busy, most idle: no stream
 * goes unpolled for long (seeded: the worst gap of this run, which is two
 * turns of the parked ones when a stream is moved behind the turn), and
 * every frame is received. */
static void test_random_traffic(void **state)
{
	const unsigned int n = 256;
	struct vf_stream **fs = streams(n);
	struct vf_fwd_park pk;
	unsigned int last[MAXN] = { 0 }, had[MAXN] = { 0 }, worst = 0;
	uint64_t sent = 0, got = 0;
	uint32_t r = 12345;

	(void)state;
	assert_int_equal(vf_fwd_park_init(&pk, n, &ring_mode), 0);
	for (unsigned int p = 1; p <= 200000; p++) {
		r = r * 1103515245u + 12345u;
		if (p < 190000) {
			/* stream 0 always busy; others now and then */
			waiting[0] += 20, sent += 20;
			if ((r >> 8) % 64 == 0) {
				unsigned int s = (r >> 16) % n;

				waiting[s] += 1 + (r >> 24) % 40;
				sent += 1 + (r >> 24) % 40;
			}
		}
		pass(&pk, fs);
		for (unsigned int i = 0; i < n; i++) {
			if (polls[i] != had[i]) {
				if (p - last[i] > worst)
					worst = p - last[i];
				last[i] = p;
				had[i] = polls[i];
			}
		}
	}
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(waiting[i], 0);
		got += fs[i]->rx_packets;
	}
	assert_int_equal(got, sent);
	print_message("worst gap between two polls of a stream: %u passes\n", worst);
	assert_true(worst <= 2 * VF_FWD_PARK_EVERY);
	vf_fwd_park_fini(&pk);
	streams_free(fs, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_applied),
		cmocka_unit_test(test_parks_when_idle),
		cmocka_unit_test(test_wakes_on_traffic),
		cmocka_unit_test(test_random_traffic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
