/* The bare limit of a two-core 64-byte packet loop: two threads, pinned to
 * two cores, pass a fixed number of packets back and forth through two
 * single-producer single-consumer rings of inline 64-byte slots (one cache
 * line a slot).  Each side receives a burst (up to BURST packets), copies
 * every packet out of the ring into its own buffer, swaps the MAC addresses
 * (as the mac forwarding of the benchmarks touches the frame), copies it
 * into the other ring and publishes the burst with one index store.  The
 * packets in flight stay constant, ping-pong style; the rate is the packets
 * thread A receives per second (one per round trip, as the front-end's rx
 * rate in bench/vloop.sh and bench/memif.sh).
 *
 * Per burst, what crosses between the cores is what no real driver can
 * avoid: the slot lines of the packets and one index line each way (each
 * side keeps a private copy of the peer's index and rereads it only when
 * the ring looks empty or full).
 *
 *   limit_probe [-n INFLIGHT] [-d SECONDS] [-a CPU] [-b CPU] [-r]
 *     -n packets in flight (default 32; at most RING_SIZE/2)
 *     -d seconds measured after a 0.2 s warm-up (default 2)
 *     -a, -b CPUs of the two threads (default 0 and 1)
 *     -r print only the Mpps figure (for scripts)
 *
 * Build: cc -O2 -march=native -pthread -o limit_probe bench/limit_probe.c
 * (bench/vloop.sh and bench/memif.sh build it into $VF_BUILD/bench/).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CL 64
#define RING_SIZE 1024u	/* slots, a power of two */
#define BURST 32u

struct slot { unsigned char b[CL]; } __attribute__((aligned(CL)));

struct ring {
	/* written by the producer, read by the consumer */
	_Alignas(CL) _Atomic uint32_t head;
	/* written by the consumer, read by the producer */
	_Alignas(CL) _Atomic uint32_t tail;
	_Alignas(CL) struct slot s[RING_SIZE];
};

struct side {
	struct ring *rx, *tx;
	int cpu;
	int seed;	/* packets this side sends first */
	/* private to the thread */
	uint32_t rx_tail, rx_head_seen, tx_head, tx_tail_seen;
	_Alignas(CL) struct slot buf[BURST];
	_Alignas(CL) _Atomic uint64_t rx_count;
};

static _Atomic int stop_flag;
static _Atomic int ready;

static inline void mac_swap(unsigned char *p)
{
	unsigned char t[6];

	memcpy(t, p, 6);
	memcpy(p, p + 6, 6);
	memcpy(p + 6, t, 6);
}

static uint32_t rx_burst(struct side *s, struct slot *out, uint32_t max)
{
	uint32_t avail = s->rx_head_seen - s->rx_tail;

	if (avail == 0) {
		s->rx_head_seen = atomic_load_explicit(&s->rx->head, memory_order_acquire);
		avail = s->rx_head_seen - s->rx_tail;
		if (avail == 0)
			return 0;
	}
	uint32_t n = avail < max ? avail : max;
	for (uint32_t i = 0; i < n; i++)
		memcpy(&out[i], &s->rx->s[(s->rx_tail + i) & (RING_SIZE - 1)], CL);
	s->rx_tail += n;
	atomic_store_explicit(&s->rx->tail, s->rx_tail, memory_order_release);
	return n;
}

static uint32_t tx_burst(struct side *s, const struct slot *in, uint32_t n)
{
	uint32_t room = RING_SIZE - (s->tx_head - s->tx_tail_seen);

	if (room < n) {
		s->tx_tail_seen = atomic_load_explicit(&s->tx->tail, memory_order_acquire);
		room = RING_SIZE - (s->tx_head - s->tx_tail_seen);
		if (room < n)
			n = room;
	}
	for (uint32_t i = 0; i < n; i++)
		memcpy(&s->tx->s[(s->tx_head + i) & (RING_SIZE - 1)], &in[i], CL);
	s->tx_head += n;
	atomic_store_explicit(&s->tx->head, s->tx_head, memory_order_release);
	return n;
}

static void *run(void *arg)
{
	struct side *s = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		fprintf(stderr, "limit_probe: cannot pin to cpu %d, running unpinned\n", s->cpu);
	atomic_fetch_add(&ready, 1);
	while (atomic_load(&ready) < 2)
		;
	/* seed the loop: the packets in flight, in bursts */
	for (int left = s->seed; left > 0;) {
		uint32_t n = left < (int)BURST ? (uint32_t)left : BURST;
		for (uint32_t i = 0; i < n; i++) {
			memset(&s->buf[i], 0, CL);
			s->buf[i].b[12] = 0x08;	/* IPv4 ethertype */
		}
		left -= (int)tx_burst(s, s->buf, n);
	}
	uint64_t count = 0;
	while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
		uint32_t n = rx_burst(s, s->buf, BURST);
		if (n == 0)
			continue;
		for (uint32_t i = 0; i < n; i++)
			mac_swap(s->buf[i].b);
		uint32_t sent = 0;
		while (sent < n && !atomic_load_explicit(&stop_flag, memory_order_relaxed))
			sent += tx_burst(s, s->buf + sent, n - sent);
		count += n;
		atomic_store_explicit(&s->rx_count, count, memory_order_relaxed);
	}
	return NULL;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	int inflight = 32, cpu_a = 0, cpu_b = 1, raw = 0, c;
	double dur = 2.0;

	while ((c = getopt(argc, argv, "n:d:a:b:rh")) != -1) {
		switch (c) {
		case 'n': inflight = atoi(optarg); break;
		case 'd': dur = atof(optarg); break;
		case 'a': cpu_a = atoi(optarg); break;
		case 'b': cpu_b = atoi(optarg); break;
		case 'r': raw = 1; break;
		default:
			fprintf(stderr, "usage: %s [-n INFLIGHT] [-d SECONDS] [-a CPU] [-b CPU] [-r]\n",
				argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	if (inflight < 1 || inflight > (int)RING_SIZE / 2 || dur <= 0) {
		fprintf(stderr, "limit_probe: -n 1..%u, -d > 0\n", RING_SIZE / 2);
		return 2;
	}
	struct ring *ab = aligned_alloc(CL, sizeof(*ab)), *ba = aligned_alloc(CL, sizeof(*ba));
	struct side *a = aligned_alloc(CL, sizeof(*a)), *b = aligned_alloc(CL, sizeof(*b));
	if (!ab || !ba || !a || !b)
		return 1;
	memset(ab, 0, sizeof(*ab));
	memset(ba, 0, sizeof(*ba));
	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	*a = (struct side){ .rx = ba, .tx = ab, .cpu = cpu_a, .seed = inflight };
	*b = (struct side){ .rx = ab, .tx = ba, .cpu = cpu_b, .seed = 0 };

	pthread_t ta, tb;
	if (pthread_create(&ta, NULL, run, a) || pthread_create(&tb, NULL, run, b))
		return 1;
	struct timespec warm = { 0, 200000000 };
	nanosleep(&warm, NULL);
	uint64_t c0 = atomic_load(&a->rx_count);
	double t0 = now();
	struct timespec d = { (time_t)dur, (long)((dur - (time_t)dur) * 1e9) };
	nanosleep(&d, NULL);
	uint64_t c1 = atomic_load(&a->rx_count);
	double t1 = now();
	atomic_store(&stop_flag, 1);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	double mpps = (double)(c1 - c0) / (t1 - t0) / 1e6;
	if (raw)
		printf("%.3f\n", mpps);
	else
		printf("limit probe: %d packets in flight, cpus %d,%d, %.1f s: %.3f Mpps\n",
		       inflight, cpu_a, cpu_b, t1 - t0, mpps);
	free(ab);
	free(ba);
	free(a);
	free(b);
	return 0;
}
