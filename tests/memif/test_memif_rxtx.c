/* memif data path: a real client and a real server interface in one
 * process, connected through the real handshake over a socketpair, move
 * packets through the shared rings; bytes are compared exactly.  Then the
 * peer's side of the rings is corrupted the ways a hostile peer could. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#include <time.h>
#include <cmocka.h>

#include "vf_peermem.h"
#include "vf_runtime.h"

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "memif_peer.h"

static struct rte_mempool *pool, *small_pool;
static struct memif_sock *sock;
static struct memif_if *srv, *cli;
static int fds_before;

static struct memif_if *make_if(bool server, uint16_t bsize, uint8_t log2, uint16_t nq,
				struct rte_mempool *mp)
{
	struct memif_cfg cfg = { .server = server, .id = 3, .bsize = bsize, .log2 = log2 };
	struct memif_if *mif;

	snprintf(cfg.socket, sizeof(cfg.socket), "vft-%d-rxtx", getpid());
	cfg.abstract = true;
	snprintf(cfg.if_name, sizeof(cfg.if_name), server ? "srv" : "cli");
	mif = memif_if_new(&cfg);
	assert_non_null(mif);
	assert_int_equal(memif_if_configure(mif, nq, nq, mp), 0);
	mif->enabled = true;
	return mif;
}

/* srv and cli (already made) talk the real message exchange over a
 * socketpair, one message at a time, until cli is connected. */
static void handshake(void)
{
	char err[128];
	int sv[2];
	struct memif_conn *cc, *sc;

	assert_int_equal(memif_sock_attach(sock, srv, err, sizeof(err)), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sv), 0);
	cc = memif_conn_new(sv[0], NULL, cli);
	sc = memif_conn_new(sv[1], sock, NULL);
	memif_msg_queue_hello(sc);
	assert_int_equal(memif_conn_send_next(sc), 0);
	/* Lock-step: each side answers one message at a time. */
	for (int i = 0; i < 100 && cli->state != MEMIF_ST_CONNECTED; i++) {
		assert_int_equal(memif_conn_input(cc), 0);
		assert_int_equal(memif_conn_input(sc), 0);
	}
}

/* Connects cli to srv through the real message exchange. */
static void connect_pair(uint16_t sbsize, uint16_t cbsize, uint8_t log2, uint16_t nq,
			 struct rte_mempool *cpool)
{
	srv = make_if(true, sbsize, log2, nq, pool);
	cli = make_if(false, cbsize, log2, nq, cpool);
	handshake();
	assert_int_equal(srv->state, MEMIF_ST_CONNECTED);
	assert_int_equal(cli->state, MEMIF_ST_CONNECTED);
	assert_int_equal(srv->run_c2s, nq);
	assert_int_equal(srv->run_s2c, nq);
}

static void disconnect_pair(void)
{
	memif_conn_close(cli->conn, "Device stopped");
	assert_int_equal(memif_conn_input(srv->conn), -1);
	assert_string_equal(srv->reason, "peer: Device stopped");
	memif_sock_detach(sock, srv);
	memif_if_free(srv);
	memif_if_free(cli);
	srv = cli = NULL;
}

static int setup(void **state)
{
	struct vf_runtime_opts o = { .tool = "test_memif_rxtx", .lcores = "0", .main_lcore = -1,
				     .eal_args = "--no-shconf --no-telemetry", .mem_mb = 128 };
	char err[128], name[64];

	/* as our tools start it; vf_runtime_stop() removes the runtime folder */
	if (vf_runtime_start(&o))
		return -1;
	pool = rte_pktmbuf_pool_create("t", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	/* 512-byte data rooms: every 2048-byte slot needs a chain */
	small_pool = rte_pktmbuf_pool_create("ts", 4095, 0, 0, 512 + RTE_PKTMBUF_HEADROOM, 0);
	assert_non_null(pool);
	assert_non_null(small_pool);
	snprintf(name, sizeof(name), "vft-%d-rxtx", getpid());
	sock = memif_sock_get(name, true, err, sizeof(err));
	assert_non_null(sock);
	return 0;
}

static int teardown(void **state)
{
	memif_sock_put(sock);
	rte_mempool_free(pool);
	rte_mempool_free(small_pool);
	vf_runtime_stop();
	return 0;
}

static int test_setup(void **state)
{
	/* process-wide, once: not a per-connection fd */
	vf_peermem_init();
	fds_before = count_fds();
	return 0;
}

static int test_teardown(void **state)
{
	if (srv != NULL)
		disconnect_pair();
	/* nothing leaked: fds and mbufs */
	assert_int_equal(count_fds(), fds_before);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
	assert_int_equal(rte_mempool_in_use_count(small_pool), 0);
	return 0;
}

/* A packet of len bytes split into segments of at most seg bytes, filled
 * with a pattern derived from tag. */
static struct rte_mbuf *make_pkt(uint32_t len, uint16_t seg, uint32_t tag)
{
	struct rte_mbuf *head = NULL, *tail = NULL;
	uint32_t off = 0;

	do {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint16_t n = len - off < seg ? len - off : seg;
		uint8_t *d;

		assert_non_null(m);
		d = (uint8_t *)rte_pktmbuf_append(m, n);
		for (uint16_t i = 0; i < n; i++)
			d[i] = (uint8_t)((off + i) * 7 + tag);
		if (head == NULL) {
			head = m;
		} else {
			tail->next = m;
			head->nb_segs++;
			head->pkt_len += n;
		}
		tail = m;
		off += n;
	} while (off < len);
	return head;
}

static void check_pkt(struct rte_mbuf *m, uint32_t len, uint32_t tag)
{
	uint32_t off = 0;

	assert_int_equal(m->pkt_len, len);
	for (struct rte_mbuf *s = m; s != NULL; s = s->next) {
		const uint8_t *d = rte_pktmbuf_mtod(s, const uint8_t *);

		for (uint16_t i = 0; i < s->data_len; i++, off++)
			if (d[i] != (uint8_t)(off * 7 + tag))
				fail_msg("byte %u of a %u-byte packet differs", off, len);
	}
	assert_int_equal(off, len);
}

typedef uint16_t (*burst_t)(void *, struct rte_mbuf **, uint16_t);

/* Sends the lengths through tx and receives them with rx, in rounds that
 * wrap the ring many times. */
static void roundtrip(burst_t tx, void *txq, burst_t rx, void *rxq,
		      const uint32_t *lens, unsigned int nlens, uint16_t seg, unsigned int rounds)
{
	struct rte_mbuf *out[64], *in[64];
	uint32_t tag = 0;

	for (unsigned int r = 0; r < rounds; r++) {
		unsigned int n = nlens, sent, got = 0;

		for (unsigned int i = 0; i < n; i++)
			out[i] = make_pkt(lens[i], seg, tag + i);
		sent = tx(txq, out, n);
		/* a full ring refuses what does not fit, whole packets only */
		for (unsigned int i = sent; i < n; i++)
			rte_pktmbuf_free(out[i]);
		assert_true(sent > 0);
		for (int k = 0; k < 10 && got < sent; k++)
			got += rx(rxq, in + got, 64 - got);
		assert_int_equal(got, sent);
		for (unsigned int i = 0; i < got; i++) {
			check_pkt(in[i], lens[i], tag + i);
			rte_pktmbuf_free(in[i]);
		}
		tag += 13;
	}
}

static const uint32_t mixed[] = { 60, 1500, 64, 2048, 2049, 3000, 1, 9000, 1024, 1025 };

static void test_copy_both_ways(void **state)
{
	/* bsize 1024: 1500-byte packets take two slots, 9000 take nine */
	connect_pair(1024, 1024, 6, 1, pool);
	roundtrip(memif_tx_client, &cli->txq[0], memif_rx_server, &srv->rxq[0],
		  mixed, 10, 2048, 50);
	roundtrip(memif_tx_server, &srv->txq[0], memif_rx_client, &cli->rxq[0],
		  mixed, 10, 2048, 50);
	/* multi-segment mbufs in */
	roundtrip(memif_tx_client, &cli->txq[0], memif_rx_server, &srv->rxq[0],
		  mixed, 10, 100, 5);
	roundtrip(memif_tx_server, &srv->txq[0], memif_rx_client, &cli->rxq[0],
		  mixed, 10, 700, 5);
	assert_int_equal(cli->txq[0].pkts, 550);
	assert_int_equal(srv->rxq[0].pkts, 550);
}

static void test_fast_path_bsize_2048(void **state)
{
	static const uint32_t lens[] = { 60, 2048, 64, 128, 1500, 2000, 64, 64 };

	connect_pair(2048, 2048, 4, 1, pool);
	roundtrip(memif_tx_client, &cli->txq[0], memif_rx_server, &srv->rxq[0], lens, 8, 2048, 40);
	roundtrip(memif_tx_server, &srv->txq[0], memif_rx_client, &cli->rxq[0], lens, 8, 2048, 40);
}

static void test_small_mbufs(void **state)
{
	/* Our mbufs (512 bytes) smaller than the slots: chains on rx. */
	connect_pair(2048, 2048, 5, 1, small_pool);
	roundtrip(memif_tx_server, &srv->txq[0], memif_rx_client, &cli->rxq[0],
		  mixed, 10, 2048, 20);
}

static void test_ring_full(void **state)
{
	struct rte_mbuf *out[32], *in[32];
	uint16_t sent, got;

	connect_pair(2048, 2048, 3, 1, pool);	/* 8 slots */
	for (int i = 0; i < 32; i++)
		out[i] = make_pkt(100, 2048, i);
	sent = memif_tx_client(&cli->txq[0], out, 32);
	assert_int_equal(sent, 8);
	assert_int_equal(memif_tx_client(&cli->txq[0], out + 8, 24), 0);
	got = memif_rx_server(&srv->rxq[0], in, 32);
	assert_int_equal(got, 8);
	for (int i = 0; i < 8; i++) {
		check_pkt(in[i], 100, i);
		rte_pktmbuf_free(in[i]);
	}
	/* server -> client: only what the client posted */
	sent = memif_tx_server(&srv->txq[0], out + 8, 24);
	assert_int_equal(sent, 8);
	got = memif_rx_client(&cli->rxq[0], in, 32);
	assert_int_equal(got, 8);
	for (int i = 0; i < 8; i++) {
		check_pkt(in[i], 100, 8 + i);
		rte_pktmbuf_free(in[i]);
	}
	rte_pktmbuf_free_bulk(out + 16, 16);
}

static void test_two_queues(void **state)
{
	static const uint32_t lens[] = { 64, 1500, 300 };

	connect_pair(2048, 2048, 6, 2, pool);
	for (int q = 0; q < 2; q++) {
		roundtrip(memif_tx_client, &cli->txq[q], memif_rx_server, &srv->rxq[q], lens, 3, 2048, 30);
		roundtrip(memif_tx_server, &srv->txq[q], memif_rx_client, &cli->rxq[q], lens, 3, 2048, 30);
	}
}

/* The peer writes C2S descriptors pointing outside its memory: the
 * packet is dropped and counted, the next good one still arrives. */
static void test_corrupt_c2s_desc(void **state)
{
	struct rte_mbuf *in[8];
	struct memif_ring *ring;
	uint16_t h;
	static const struct { uint16_t region; uint32_t off, len; } bad[] = {
		{ 1, 0, 64 },			/* region >= regions */
		{ 0, UINT32_MAX - 10, 64 },	/* offset + length wraps 32 bits */
		{ 0, 0, UINT32_MAX },		/* length beyond the region */
	};

	connect_pair(2048, 2048, 4, 1, pool);
	ring = cli->txq[0].ring;
	for (unsigned int b = 0; b < 3; b++) {
		struct rte_mbuf *good = make_pkt(200, 2048, 5);

		h = ring->head;
		ring->desc[h & 15].region = bad[b].region;
		ring->desc[h & 15].offset = bad[b].off;
		ring->desc[h & 15].length = bad[b].len;
		ring->desc[h & 15].flags = 0;
		__atomic_store_n(&ring->head, (uint16_t)(h + 1), __ATOMIC_RELEASE);
		cli->txq[0].last = h + 1;
		assert_int_equal(memif_tx_client(&cli->txq[0], &good, 1), 1);
		assert_int_equal(memif_rx_server(&srv->rxq[0], in, 8), 1);
		check_pkt(in[0], 200, 5);
		rte_pktmbuf_free(in[0]);
		assert_int_equal(srv->rxq[0].bad_desc, b + 1);
		assert_false(srv->rxq[0].broken);
	}
	/* a chain whose middle slot is bad: the whole packet goes */
	h = ring->head;
	for (int i = 0; i < 3; i++) {
		ring->desc[(h + i) & 15].region = i == 1 ? 9 : 0;
		ring->desc[(h + i) & 15].offset = 0;
		ring->desc[(h + i) & 15].length = 10;
		ring->desc[(h + i) & 15].flags = i < 2 ? MEMIF_DESC_FLAG_NEXT : 0;
	}
	__atomic_store_n(&ring->head, (uint16_t)(h + 3), __ATOMIC_RELEASE);
	cli->txq[0].last = h + 3;
	assert_int_equal(memif_rx_server(&srv->rxq[0], in, 8), 0);
	assert_int_equal(srv->rxq[0].bad_desc, 4);
	assert_int_equal(ring->tail, (uint16_t)(h + 3));	/* slots returned */
}

static void test_c2s_head_jump(void **state)
{
	struct rte_mbuf *in[8];
	struct memif_ring *ring;

	connect_pair(2048, 2048, 4, 1, pool);
	ring = cli->txq[0].ring;
	__atomic_store_n(&ring->head, (uint16_t)(ring->head + 17), __ATOMIC_RELEASE);
	assert_int_equal(memif_rx_server(&srv->rxq[0], in, 8), 0);
	assert_true(srv->rxq[0].broken);
	assert_int_equal(srv->rxq[0].ring_err, 1);
	/* latched: nothing more is read from that ring */
	assert_int_equal(memif_rx_server(&srv->rxq[0], in, 8), 0);
}

static void test_incomplete_chain(void **state)
{
	struct rte_mbuf *in[8];
	struct memif_ring *ring;

	connect_pair(2048, 2048, 3, 1, pool);
	ring = cli->txq[0].ring;
	/* every slot says NEXT: the chain can never end */
	for (int i = 0; i < 8; i++) {
		ring->desc[i].flags = MEMIF_DESC_FLAG_NEXT;
		ring->desc[i].length = 10;
	}
	__atomic_store_n(&ring->head, 4, __ATOMIC_RELEASE);
	assert_int_equal(memif_rx_server(&srv->rxq[0], in, 8), 0);
	assert_false(srv->rxq[0].broken);	/* may still complete */
	__atomic_store_n(&ring->head, 8, __ATOMIC_RELEASE);
	assert_int_equal(memif_rx_server(&srv->rxq[0], in, 8), 0);
	assert_true(srv->rxq[0].broken);
}

/* The server corrupts what the client reads: length > bsize, tail
 * beyond what was posted. */
static void test_corrupt_s2c(void **state)
{
	struct rte_mbuf *in[8], *out[2];
	struct memif_ring *ring;

	connect_pair(2048, 1024, 4, 1, pool);
	ring = srv->txq[0].ring;
	out[0] = make_pkt(100, 2048, 1);
	out[1] = make_pkt(100, 2048, 2);
	assert_int_equal(memif_tx_server(&srv->txq[0], out, 2), 2);
	ring->desc[0].length = 5000;	/* beyond our 1024-byte buffer */
	assert_int_equal(memif_rx_client(&cli->rxq[0], in, 8), 1);
	check_pkt(in[0], 100, 2);
	rte_pktmbuf_free(in[0]);
	assert_int_equal(cli->rxq[0].bad_desc, 1);
	/* S2C buffer descriptors the server must not trust: a bad posted
	 * region makes our server side stop using the ring */
	ring->desc[ring->head & 15].region = 200;
	ring->desc[srv->txq[0].last & 15].region = 200;
	out[0] = make_pkt(100, 2048, 3);
	assert_int_equal(memif_tx_server(&srv->txq[0], out, 1), 0);
	assert_true(srv->txq[0].broken);
	rte_pktmbuf_free(out[0]);
	/* tail beyond posted buffers */
	__atomic_store_n(&ring->tail, (uint16_t)(ring->tail + 40), __ATOMIC_RELEASE);
	assert_int_equal(memif_rx_client(&cli->rxq[0], in, 8), 0);
	assert_true(cli->rxq[0].broken);
}

/* C2S tail moved by the server beyond what the client produced. */
static void test_c2s_tail_jump(void **state)
{
	struct rte_mbuf *out;
	struct memif_ring *ring;

	connect_pair(2048, 2048, 4, 1, pool);
	ring = cli->txq[0].ring;
	__atomic_store_n(&ring->tail, 100, __ATOMIC_RELEASE);
	out = make_pkt(64, 2048, 0);
	assert_int_equal(memif_tx_client(&cli->txq[0], &out, 1), 0);
	assert_true(cli->txq[0].broken);
	rte_pktmbuf_free(out);
}

/* Interrupts: written only when the consumer did not mask them. */
static void test_interrupts(void **state)
{
	struct rte_mbuf *out, *in[4];
	uint64_t v;
	int efd;

	connect_pair(2048, 2048, 4, 1, pool);
	efd = cli->c2s[0].fd;
	/* the server polls: MASK_INT set at connect, no eventfd write */
	out = make_pkt(64, 2048, 0);
	assert_int_equal(memif_tx_client(&cli->txq[0], &out, 1), 1);
	assert_true(read(efd, &v, sizeof(v)) < 0);
	/* a consumer in interrupt mode clears it: one write per burst */
	cli->txq[0].ring->flags = 0;
	out = make_pkt(64, 2048, 0);
	assert_int_equal(memif_tx_client(&cli->txq[0], &out, 1), 1);
	assert_int_equal(read(efd, &v, sizeof(v)), sizeof(v));
	assert_int_equal(v, 1);
	assert_int_equal(memif_rx_server(&srv->rxq[0], in, 4), 2);
	rte_pktmbuf_free_bulk(in, 2);
}

/* Rx modes: a consumer arms its ring (memif_rx_intr_arm), looks once more,
 * and sleeps on the ring's event fd, as a forwarding core does; our real
 * client tx, on another thread, publishes one packet at a random moment
 * after each one is taken, so that its publish races the arm.  A publish
 * the consumer neither saw on its last look nor was woken for would leave
 * the poll to time out: a lost wake-up. */
struct arm_race {
	struct memif_queue *txq;
	uint32_t n, taken;	/* taken: atomic, written by the consumer */
	bool stop;
};

static void *arm_race_producer(void *arg)
{
	struct arm_race *r = arg;
	unsigned int seed = 7;

	for (uint32_t k = 0; k < r->n; k++) {
		struct rte_mbuf *m;

		while (__atomic_load_n(&r->taken, __ATOMIC_ACQUIRE) < k)
			if (__atomic_load_n(&r->stop, __ATOMIC_RELAXED))
				return NULL;
		for (volatile unsigned int s = (unsigned int)rand_r(&seed) % 3000; s; s--)
			;
		m = make_pkt(64, 2048, k);
		while (memif_tx_client(r->txq, &m, 1) != 1)
			if (__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
				rte_pktmbuf_free(m);
				return NULL;
			}
	}
	return NULL;
}

static void test_arm_race(void **state)
{
	struct arm_race r = { .n = 20000 };
	struct vf_port port = { 0 };
	struct rte_mbuf *in[4];
	uint32_t sleeps = 0, k = 0;
	struct timespec t0, t;
	pthread_t th;

	connect_pair(2048, 2048, 8, 1, pool);
	port.priv = srv;
	r.txq = &cli->txq[0];
	assert_int_equal(pthread_create(&th, NULL, arm_race_producer, &r), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (k < r.n) {
		uint16_t n = memif_rx_server(&srv->rxq[0], in, 4);
		struct pollfd p;
		int fd;

		if (!n) {
			fd = memif_rx_intr_arm(&port, 0);
			assert_true(fd >= 0);
			n = memif_rx_server(&srv->rxq[0], in, 4);
			if (!n) {
				p = (struct pollfd){ .fd = fd, .events = POLLIN };
				if (poll(&p, 1, 5000) == 0) {
					__atomic_store_n(&r.stop, true, __ATOMIC_RELAXED);
					pthread_join(th, NULL);
					fail_msg("lost wake-up: packet %u published, no signal in 5 s", k);
				}
				sleeps++;
			}
			memif_rx_intr_disarm(&port, 0);
		}
		for (uint16_t i = 0; i < n; i++) {
			check_pkt(in[i], 64, k + i);
			rte_pktmbuf_free(in[i]);
		}
		k += n;
		__atomic_store_n(&r.taken, k, __ATOMIC_RELEASE);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 30)
			break;
	}
	__atomic_store_n(&r.stop, true, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	print_message("%u packets, %u sleeps, none lost\n", k, sleeps);
	assert_true(k >= 1000);
	/* a queue that is not ready (a disconnect under way) is not armed */
	__atomic_store_n(&srv->rxq[0].ready, 0, __ATOMIC_RELEASE);
	assert_int_equal(memif_rx_intr_arm(&port, 0), -1);
	__atomic_store_n(&srv->rxq[0].ready, 1, __ATOMIC_RELEASE);
}

/* Queues are not ready after a disconnect: bursts return 0. */
static void test_not_ready_after_disconnect(void **state)
{
	struct rte_mbuf *out, *in[4];

	connect_pair(2048, 2048, 4, 1, pool);
	memif_conn_close(srv->conn, "Device stopped");
	assert_false(srv->link_up);
	assert_int_equal(memif_rx_server(&srv->rxq[0], in, 4), 0);
	out = make_pkt(64, 2048, 0);
	assert_int_equal(memif_tx_server(&srv->txq[0], &out, 1), 0);
	rte_pktmbuf_free(out);
	assert_int_equal(memif_conn_input(cli->conn), -1);
	assert_string_equal(cli->reason, "peer: Device stopped");
	assert_int_equal(cli->state, MEMIF_ST_CONNECTING);
	memif_sock_detach(sock, srv);
	memif_if_free(srv);
	memif_if_free(cli);
	srv = cli = NULL;
}

/* Zero-copy client: the server reads and writes our mbufs directly. */
static void test_zero_copy(void **state)
{
	char why[160];
	struct rte_mbuf *out[8];

	assert_int_equal(memif_zc_check(pool, why, sizeof(why)), 0);
	srv = make_if(true, 2048, 6, 1, pool);
	cli = make_if(false, 2048, 6, 1, pool);
	cli->zc = true;
	handshake();
	assert_int_equal(cli->state, MEMIF_ST_CONNECTED);
	assert_true(cli->nregions >= 2);
	/* all rx slots hold one of our mbufs */
	assert_int_equal(rte_mempool_in_use_count(pool), 64);
	/* multi-segment mbufs go out as chained descriptors, no copy */
	roundtrip(memif_tx_client_zc, &cli->txq[0], memif_rx_server, &srv->rxq[0],
		  mixed, 10, 700, 20);
	/* 9000-byte packets come back as chains of 2048-byte mbufs */
	roundtrip(memif_tx_server, &srv->txq[0], memif_rx_client_zc, &cli->rxq[0],
		  mixed, 10, 2048, 20);
	/* in flight when the peer goes: reclaimed at teardown */
	for (int i = 0; i < 8; i++)
		out[i] = make_pkt(100, 2048, i);
	assert_int_equal(memif_tx_client_zc(&cli->txq[0], out, 8), 8);
	assert_true(rte_mempool_in_use_count(pool) > 64);
	/* test_teardown disconnects and checks the pool is whole again */
}

/* 100 connections that end with packets in flight, copy and zero-copy,
 * the peer vanishing (EOF) or saying DISCONNECT: nothing accumulates
 * (test_teardown checks fds and the pool). */
static void test_100_reconnects(void **state)
{
	for (int k = 0; k < 100; k++) {
		struct rte_mbuf *out[16], *in[16];
		bool zc = k & 1;

		srv = make_if(true, 1024, 5, 2, pool);
		cli = make_if(false, 1024, 5, 2, pool);
		cli->zc = zc;
		handshake();
		assert_int_equal(cli->state, MEMIF_ST_CONNECTED);
		for (int i = 0; i < 16; i++)
			out[i] = make_pkt(i * 100 + 60, 2048, i);
		/* some delivered, some left in the rings both ways */
		assert_int_equal((zc ? memif_tx_client_zc : memif_tx_client)(&cli->txq[k % 2],
									  out, 8), 8);
		assert_int_equal(memif_tx_server(&srv->txq[0], out + 8, 8), 8);
		assert_true(memif_rx_server(&srv->rxq[k % 2], in, 3) == 3);
		rte_pktmbuf_free_bulk(in, 3);
		if (k % 3 == 0) {
			/* the client goes away without a word */
			memif_conn_close_ex(cli->conn, NULL, "test");
			assert_int_equal(memif_conn_input(srv->conn), -1);
			assert_string_equal(srv->reason, "Connection closed by peer");
		} else {
			memif_conn_close(srv->conn, "Device stopped");
			assert_int_equal(memif_conn_input(cli->conn), -1);
		}
		assert_false(srv->link_up);
		assert_false(cli->link_up);
		memif_sock_detach(sock, srv);
		memif_if_free(srv);
		memif_if_free(cli);
		srv = cli = NULL;
	}
}

/* The client publishes each completed line of descriptors while it copies
 * the rest of a burst, when the server has taken everything before.  A
 * second thread plays a server that watches head: every value it sees must
 * only grow, stop on a line (four slots) or at a burst's end, and the
 * slots below it must already hold their packet's bytes. */
struct watch {
	struct memif_queue *q;
	uint16_t start;			/* head before the first burst */
	uint16_t burst;
	volatile uint32_t seen;		/* packets checked */
	volatile uint32_t early;	/* head values inside a burst */
	volatile bool stop;
	volatile bool failed;
	char err[128];
};

static void *watch_head(void *arg)
{
	struct watch *w = arg;
	uint16_t last = w->start;

	while (!w->stop && !w->failed) {
		uint16_t h = __atomic_load_n(&w->q->ring->head, __ATOMIC_ACQUIRE);

		if (h == last)
			continue;
		if ((uint16_t)(h - last) > w->burst) {
			snprintf(w->err, sizeof(w->err), "head went from %u to %u", last, h);
			w->failed = true;
			break;
		}
		if (w->seen % w->burst + (uint16_t)(h - last) < w->burst) {
			if (h & 3) {
				snprintf(w->err, sizeof(w->err), "head %u inside a line", h);
				w->failed = true;
				break;
			}
			w->early++;
		}
		for (; last != h; last++) {
			const struct memif_desc *d = &w->q->ring->desc[last & w->q->mask];
			const uint8_t *b = w->q->region0 + d->offset;
			uint32_t tag = w->seen;

			for (uint32_t i = 0; i < 64; i++)
				if (d->length != 64 || b[i] != (uint8_t)(i * 7 + tag)) {
					snprintf(w->err, sizeof(w->err),
						 "packet %u visible before its bytes", w->seen);
					w->failed = true;
					return NULL;
				}
			__atomic_store_n(&w->seen, w->seen + 1, __ATOMIC_RELEASE);
		}
	}
	return NULL;
}

static void test_early_publish(void **state)
{
	struct watch w = { .burst = 32 };
	struct rte_mbuf *out[32], *in[32];
	struct timespec t0, t;
	pthread_t th;
	uint32_t sent = 0;

	connect_pair(2048, 2048, 10, 1, pool);
	w.q = &cli->txq[0];
	w.start = w.q->last;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t cpus;

	if (ncpu < 2) {
		print_message("one CPU: the watcher could not run beside the sender\n");
		skip();
	}
	assert_int_equal(pthread_create(&th, NULL, watch_head, &w), 0);
	/* EAL pinned this thread (lcore 0) to CPU 0; the watcher gets the
	 * others, so that it runs while a burst is copied. */
	CPU_ZERO(&cpus);
	for (long c = 1; c < ncpu && c < CPU_SETSIZE; c++)
		CPU_SET(c, &cpus);
	assert_int_equal(pthread_setaffinity_np(th, sizeof(cpus), &cpus), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 32; i++)
			out[i] = make_pkt(64, 2048, sent + i);
		assert_int_equal(memif_tx_client(&cli->txq[0], out, 32), 32);
		sent += 32;
		/* the watcher is done with them before the server frees the slots */
		while (__atomic_load_n(&w.seen, __ATOMIC_ACQUIRE) < sent && !w.failed)
			;
		if (w.failed)
			break;
		for (uint16_t got = 0; got < 32;)
			got += memif_rx_server(&srv->rxq[0], in + got, 32 - got);
		for (int i = 0; i < 32; i++) {
			check_pkt(in[i], 64, sent - 32 + i);
			rte_pktmbuf_free(in[i]);
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((w.early < 100 || sent < 32 * 1000) && t.tv_sec - t0.tv_sec < 10);
	w.stop = true;
	pthread_join(th, NULL);
	if (w.failed)
		fail_msg("%s", w.err);
	print_message("%u bursts, head seen %u times inside one\n", sent / 32, w.early);
	/* a burst published only at its end would never show one */
	assert_true(w.early > 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, test_setup, test_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_copy_both_ways),
		T(test_fast_path_bsize_2048),
		T(test_small_mbufs),
		T(test_ring_full),
		T(test_early_publish),
		T(test_two_queues),
		T(test_corrupt_c2s_desc),
		T(test_c2s_head_jump),
		T(test_incomplete_chain),
		T(test_corrupt_s2c),
		T(test_c2s_tail_jump),
		T(test_interrupts),
		T(test_arm_race),
		T(test_not_ready_after_disconnect),
		T(test_zero_copy),
		T(test_100_reconnects),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
