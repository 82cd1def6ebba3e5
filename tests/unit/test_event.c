/* vf_event: the lines each kind of event makes (valid JSON, the fields
 * documented in docs/control-socket.md), the ring's bound (a full ring
 * loses and counts, the gap line says how many), and producers on several
 * threads at once against the drain: every event delivered once or counted
 * lost, sequence numbers unique and in order.  No control thread runs here:
 * vf_event_flush() drains. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "vf_event.h"

#define MAX_LINES 8192

static char *lines[MAX_LINES];
static unsigned int nb_lines, nb_batches;

static void sink(const char *line, size_t len, void *arg)
{
	(void)arg;
	if (!line) {
		nb_batches++;
		return;
	}
	assert_true(len < VF_EVENT_LINE_MAX);
	assert_int_equal(strlen(line), len);
	if (nb_lines < MAX_LINES)
		lines[nb_lines++] = strndup(line, len);
}

static void forget(void)
{
	for (unsigned int i = 0; i < nb_lines; i++)
		free(lines[i]);
	nb_lines = nb_batches = 0;
}

static json_t *parse(unsigned int i)
{
	json_error_t e;
	json_t *o;

	assert_true(i < nb_lines);
	o = json_loads(lines[i], 0, &e);
	assert_non_null(o);
	return o;
}

static const char *str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	assert_non_null(v);
	return json_string_value(v);
}

static json_int_t num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	assert_non_null(v);
	return json_integer_value(v);
}

static int setup(void **state)
{
	char err[128];

	(void)state;
	assert_int_equal(vf_event_start(NULL, err, sizeof(err)), 0);
	assert_int_equal(vf_event_sink_add(sink, NULL), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	vf_event_sink_del(sink, NULL);
	vf_event_stop();
	forget();
	assert_false(vf_event_on());
	return 0;
}

static void test_kinds(void **state)
{
	struct vf_event ev = {
		.type = VF_EV_DROPS, .port = 3, .queue = -1, .pid = -1, .uid = -1, .gid = -1,
		.count = 12, .interval_ms = 1000, .name = "vh3", .what = "imissed",
	};
	json_t *o;

	(void)state;
	forget();
	vf_event_link(0, "memif0", true);
	vf_event_peer(1, "vhost1", VF_EV_PEER_REFUSED, 77, 1001, 1001, "/run/vm.sock",
		      "uid 1001 not allowed");
	/* peer text is the peer's: not ASCII, quotes, control bytes */
	vf_event_peer(VF_EVENT_NO_PORT, NULL, VF_EV_PEER_DISCONNECTED, -1, -1, -1, "@m",
		      "peer: \"x\"\n\xff");
	vf_event_reconnect(2, "vu2", 3, "/run/be.sock", "Connection refused");
	vf_event_raise(&ev);
	vf_event_flush();
	assert_int_equal(nb_lines, 5);

	o = parse(0);
	assert_string_equal(str(o, "event"), "link");
	assert_string_equal(str(o, "state"), "up");
	assert_string_equal(str(o, "name"), "memif0");
	assert_int_equal(num(o, "port"), 0);
	assert_int_equal(strlen(str(o, "ts")), strlen("2026-12-05T12:00:00.000000Z"));
	assert_true(strncmp(lines[0], "{\"event\":\"link\",\"ts\":", 21) == 0);
	json_decref(o);

	o = parse(1);
	assert_string_equal(str(o, "state"), "refused");
	assert_int_equal(num(o, "pid"), 77);
	assert_int_equal(num(o, "uid"), 1001);
	assert_string_equal(str(o, "socket"), "/run/vm.sock");
	assert_string_equal(str(o, "reason"), "uid 1001 not allowed");
	{
		json_t *next = parse(2);

		assert_int_equal(num(o, "seq") + 1, num(next, "seq"));
		json_decref(next);
	}
	json_decref(o);

	o = parse(2);
	assert_null(json_object_get(o, "port"));	/* none */
	assert_null(json_object_get(o, "pid"));		/* not known */
	assert_string_equal(str(o, "reason"), "peer: \"x\"??");
	json_decref(o);

	o = parse(3);
	assert_string_equal(str(o, "event"), "reconnect");
	assert_int_equal(num(o, "attempt"), 3);
	assert_string_equal(str(o, "error"), "Connection refused");
	json_decref(o);

	o = parse(4);
	assert_string_equal(str(o, "event"), "drops");
	assert_string_equal(str(o, "reason"), "imissed");
	assert_int_equal(num(o, "packets"), 12);
	assert_int_equal(num(o, "interval_ms"), 1000);
	json_decref(o);
}

static void test_full_ring(void **state)
{
	unsigned int extra = 100;
	json_t *o;

	(void)state;
	forget();
	for (unsigned int i = 0; i < VF_EVENT_RING + extra; i++)
		vf_event_link(5, "p5", i & 1);
	vf_event_flush();
	/* a ring's worth, then the gap line with the rest */
	assert_int_equal(nb_lines, VF_EVENT_RING + 1);
	o = parse(nb_lines - 1);
	assert_string_equal(str(o, "event"), "gap");
	assert_int_equal(num(o, "lost"), extra);
	json_decref(o);
	/* room again: the next ones come, and no second gap */
	forget();
	vf_event_link(5, "p5", true);
	vf_event_flush();
	assert_int_equal(nb_lines, 1);
	o = parse(0);
	assert_string_equal(str(o, "event"), "link");
	json_decref(o);
}

#define THREADS 4
#define PER_THREAD 20000

static int done;

static void *producer(void *arg)
{
	uint16_t id = (uint16_t)(uintptr_t)arg;

	for (unsigned int i = 0; i < PER_THREAD; i++) {
		vf_event_reconnect(id, "t", i + 1, "", "");
		if (i % 64 == 0)	/* let the drain in now and then */
			sched_yield();
	}
	__atomic_fetch_add(&done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Lines since the last call: their seqs in order, each thread's attempts
 * in its order; returns how many events and how many lost. */
static void tally(uint64_t *events, uint64_t *lost, int64_t *last_seq, uint64_t *next)
{
	for (unsigned int i = 0; i < nb_lines; i++) {
		json_t *o = parse(i);

		if (!strcmp(str(o, "event"), "gap")) {
			*lost += (uint64_t)num(o, "lost");
		} else {
			json_int_t port = num(o, "port"), att = num(o, "attempt");

			assert_true(num(o, "seq") > *last_seq);
			*last_seq = num(o, "seq");
			assert_true(port < THREADS);
			assert_true((uint64_t)att > next[port]);	/* in order, maybe with holes */
			next[port] = (uint64_t)att;
			(*events)++;
		}
		json_decref(o);
	}
	forget();
}

static void test_threads(void **state)
{
	pthread_t t[THREADS];
	uint64_t events = 0, lost = 0, next[THREADS] = { 0 };
	int64_t last_seq = -1;

	(void)state;
	vf_event_flush();
	forget();
	for (uintptr_t i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, producer, (void *)i), 0);
	while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < THREADS) {
		vf_event_flush();
		tally(&events, &lost, &last_seq, next);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	vf_event_flush();
	tally(&events, &lost, &last_seq, next);
	print_message("%llu events delivered, %llu lost (ring of %u)\n",
		      (unsigned long long)events, (unsigned long long)lost, VF_EVENT_RING);
	assert_int_equal(events + lost, THREADS * PER_THREAD);
}

static void test_off(void **state)
{
	(void)state;
	vf_event_stop();
	forget();
	vf_event_link(0, "x", true);		/* not recorded */
	vf_event_flush();
	assert_int_equal(nb_lines, 0);
	setup(NULL);				/* for the teardown */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_full_ring),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_off),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
