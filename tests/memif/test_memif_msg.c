/* memif control messages from a hostile or broken peer: every malformed
 * or out-of-order message ends the connection with the right DISCONNECT
 * reason, closes every fd it carried and never touches the interface that
 * is already connected.  Driven through the real socket code
 * (memif_conn_input) over a socketpair. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "vf_peermem.h"

#include "memif_peer.h"

#define LOG2 4

static struct memif_sock *sock;
static struct memif_if *srv, *srv_secret, *srv_secret24;
#define SECRET24 "0123456789abcdefghijklmn"	/* exactly MEMIF_SECRET_SZ */
static int fds_before;

static struct memif_if *make_if(bool server, uint32_t id, const char *secret)
{
	struct memif_cfg cfg = { .server = server, .id = id, .bsize = 2048, .log2 = LOG2,
				 .reconnect_ms = 0 };
	struct memif_if *mif;

	snprintf(cfg.socket, sizeof(cfg.socket), "vft-%d-msg", getpid());
	cfg.abstract = true;
	snprintf(cfg.if_name, sizeof(cfg.if_name), "t%u", id);
	if (secret)
		snprintf(cfg.secret, sizeof(cfg.secret), "%s", secret);
	mif = memif_if_new(&cfg);
	assert_non_null(mif);
	assert_int_equal(memif_if_configure(mif, 1, 1, NULL), 0);
	return mif;
}

static int setup(void **state)
{
	char err[128], name[64];

	snprintf(name, sizeof(name), "vft-%d-msg", getpid());
	sock = memif_sock_get(name, true, err, sizeof(err));
	assert_non_null(sock);
	srv = make_if(true, 5, NULL);
	srv_secret = make_if(true, 6, "s3cret");
	srv_secret24 = make_if(true, 7, SECRET24);
	assert_int_equal(strlen(srv_secret24->cfg.secret), MEMIF_SECRET_SZ);
	assert_int_equal(memif_sock_attach(sock, srv, err, sizeof(err)), 0);
	assert_int_equal(memif_sock_attach(sock, srv_secret, err, sizeof(err)), 0);
	assert_int_equal(memif_sock_attach(sock, srv_secret24, err, sizeof(err)), 0);
	/* Enabled as at port start: timers exist, nobody runs them here. */
	srv->enabled = srv_secret->enabled = srv_secret24->enabled = true;
	srv->state = srv_secret->state = srv_secret24->state = MEMIF_ST_LISTENING;
	/* process-wide, once: not a per-connection fd */
	vf_peermem_init();
	fds_before = count_fds();
	return 0;
}

static int teardown(void **state)
{
	/* Everything a test opened was closed again. */
	assert_int_equal(count_fds(), fds_before);
	return 0;
}

static int global_teardown(void **state)
{
	memif_sock_detach(sock, srv);
	memif_sock_detach(sock, srv_secret);
	memif_sock_detach(sock, srv_secret24);
	memif_if_free(srv);
	memif_if_free(srv_secret);
	memif_if_free(srv_secret24);
	memif_sock_put(sock);
	return 0;
}

struct pair {
	struct memif_conn *c;
	int peer;
	bool closed;
};

/* Server connection, HELLO already received by the peer. */
static struct pair accept_pair(void)
{
	struct pair p = { 0 };
	struct memif_msg m;
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sv), 0);
	p.c = memif_conn_new(sv[0], sock, NULL);
	p.peer = sv[1];
	memif_msg_queue_hello(p.c);
	assert_int_equal(memif_conn_send_next(p.c), 0);
	assert_int_equal(peer_recv(p.peer, &m), MEMIF_MSG_HELLO);
	assert_int_equal(m.hello.min_version, MEMIF_VERSION);
	assert_int_equal(m.hello.max_version, MEMIF_VERSION);
	assert_int_equal(m.hello.max_log2_ring_size, MEMIF_MAX_LOG2_RING);
	return p;
}

/* Peer sends m (+fds); our side handles it; returns what came back. */
static int exchange(struct pair *p, const struct memif_msg *m, size_t len, int fd1, int fd2,
		    struct memif_msg *reply)
{
	assert_int_equal(peer_send(p->peer, m, len, fd1, fd2), 0);
	/* The fds are ours to close: the handler got duplicates. */
	if (fd1 >= 0)
		close(fd1);
	if (fd2 >= 0)
		close(fd2);
	if (memif_conn_input(p->c) < 0)
		p->closed = true;
	return peer_recv(p->peer, reply);
}

static void expect_disconnect(struct pair *p, const struct memif_msg *m, size_t len,
			      int fd1, int fd2, const char *reason)
{
	struct memif_msg r;

	assert_int_equal(exchange(p, m, len, fd1, fd2, &r), MEMIF_MSG_DISCONNECT);
	assert_string_equal((char *)r.disconnect.string, reason);
	assert_true(p->closed);
	assert_int_equal(peer_recv(p->peer, &r), -1);	/* and the socket closed */
	close(p->peer);
}

static void expect_ack(struct pair *p, const struct memif_msg *m, int fd)
{
	struct memif_msg r;

	assert_int_equal(exchange(p, m, sizeof(*m), fd, -1, &r), MEMIF_MSG_ACK);
	assert_false(p->closed);
}

static int evfd(void)
{
	return eventfd(0, EFD_CLOEXEC);
}

/* INIT, one region with two rings, both rings: ready for CONNECT. */
static void *full_setup(struct pair *p, int *mfd_out, size_t len)
{
	struct memif_msg m;
	void *map = NULL;
	int mfd = peer_region(len, LOG2, &map);

	assert_true(mfd >= 0);
	m = msg_init(5, NULL);
	expect_ack(p, &m, -1);
	m = msg_region(0, len);
	expect_ack(p, &m, dup(mfd));
	m = msg_ring(true, 0, 0, 0, LOG2);
	expect_ack(p, &m, evfd());
	m = msg_ring(false, 0, 0, memif_ring_bytes(LOG2), LOG2);
	expect_ack(p, &m, evfd());
	*mfd_out = mfd;
	return map;
}

static void test_handshake_ok(void **state)
{
	struct pair p = accept_pair();
	size_t len = 1 << 16;
	struct memif_msg m = msg_of(MEMIF_MSG_CONNECT), r;
	int mfd;
	void *map = full_setup(&p, &mfd, len);

	snprintf((char *)m.connect.if_name, sizeof(m.connect.if_name), "peer0");
	assert_int_equal(exchange(&p, &m, sizeof(m), -1, -1, &r), MEMIF_MSG_CONNECTED);
	assert_string_equal((char *)r.connected.if_name, "t5");
	assert_int_equal(srv->state, MEMIF_ST_CONNECTED);
	assert_true(srv->link_up);
	assert_string_equal(srv->peer_if, "peer0");
	/* We poll the C2S ring: the client need not signal us. */
	assert_int_equal(((struct memif_ring *)map)->flags, MEMIF_RING_FLAG_MASK_INT);

	/* EOF without DISCONNECT (what DPDK does): back to listening. */
	close(p.peer);
	assert_int_equal(memif_conn_input(p.c), -1);
	assert_int_equal(srv->state, MEMIF_ST_LISTENING);
	assert_false(srv->link_up);
	assert_string_equal(srv->reason, "Connection closed by peer");
	assert_null(srv->conn);
	munmap(map, len);
	close(mfd);
}

static void test_second_client_refused(void **state)
{
	struct pair a = accept_pair(), b;
	struct memif_msg m = msg_of(MEMIF_MSG_CONNECT), r;
	size_t len = 1 << 16;
	int mfd;
	void *map = full_setup(&a, &mfd, len);

	assert_int_equal(exchange(&a, &m, sizeof(m), -1, -1, &r), MEMIF_MSG_CONNECTED);
	b = accept_pair();
	m = msg_init(5, NULL);
	expect_disconnect(&b, &m, sizeof(m), -1, -1, "Already connected");
	/* the first session is untouched */
	assert_int_equal(srv->state, MEMIF_ST_CONNECTED);
	assert_ptr_equal(srv->conn, a.c);
	m = msg_of(MEMIF_MSG_DISCONNECT);
	snprintf((char *)m.disconnect.string, sizeof(m.disconnect.string), "bye");
	assert_int_equal(exchange(&a, &m, sizeof(m), -1, -1, &r), -1);	/* closed, no answer */
	assert_string_equal(srv->reason, "peer: bye");
	assert_int_equal(srv->state, MEMIF_ST_LISTENING);
	close(a.peer);
	munmap(map, len);
	close(mfd);
}

static void test_bad_size(void **state)
{
	struct pair p = accept_pair();
	struct memif_msg m = msg_init(5, NULL);

	expect_disconnect(&p, &m, 64, -1, -1, "Invalid message size");
}

static void test_unknown_type(void **state)
{
	struct pair p = accept_pair();
	struct memif_msg m = msg_of(99);

	expect_disconnect(&p, &m, sizeof(m), -1, -1, "Unknown message type");
	p = accept_pair();
	m = msg_of(MEMIF_MSG_NONE);
	expect_disconnect(&p, &m, sizeof(m), -1, -1, "Unknown message type");
}

static void test_version(void **state)
{
	struct pair p = accept_pair();
	struct memif_msg m = msg_init(5, NULL);

	m.init.version = 0x0100;
	expect_disconnect(&p, &m, sizeof(m), -1, -1, "Incompatible memif version");
}

static void test_out_of_order(void **state)
{
	struct pair p = accept_pair();
	struct memif_msg m = msg_region(0, 4096);
	void *map = NULL;
	int mfd = peer_region(4096, LOG2, &map);

	/* ADD_REGION before INIT, with its fd: refused, fd closed */
	expect_disconnect(&p, &m, sizeof(m), dup(mfd), -1, "Unexpected message");
	p = accept_pair();
	m = msg_of(MEMIF_MSG_CONNECT);
	expect_disconnect(&p, &m, sizeof(m), -1, -1, "Unexpected message");
	p = accept_pair();
	m = msg_of(MEMIF_MSG_HELLO);	/* a client message to a server */
	expect_disconnect(&p, &m, sizeof(m), -1, -1, "Unexpected message");
	p = accept_pair();
	m = msg_init(5, NULL);
	expect_ack(&p, &m, -1);
	expect_disconnect(&p, &m, sizeof(m), -1, -1, "Unexpected message");	/* INIT twice */
	assert_int_equal(srv->state, MEMIF_ST_LISTENING);
	munmap(map, 4096);
	close(mfd);
}

static void test_id_and_mode(void **state)
{
	struct pair p = accept_pair();
	struct memif_msg m = msg_init(77, NULL);

	expect_disconnect(&p, &m, sizeof(m), -1, -1, "ID not found");
	p = accept_pair();
	m = msg_init(5, NULL);
	m.init.mode = MEMIF_MODE_IP;
	expect_disconnect(&p, &m, sizeof(m), -1, -1, "Only ethernet mode supported");
	p = accept_pair();
	m = msg_init(5, NULL);
	expect_disconnect(&p, &m, sizeof(m), evfd(), -1, "Unexpected fd");
}

static void test_secret(void **state)
{
	/* Missing, wrong, a prefix, a longer one: one answer for all, so a
	 * peer cannot tell "missing" from "wrong". */
	static const char *const bad[] = { NULL, "wrong", "s3cre", "s3cret!", "S3cret" };
	struct pair p;
	struct memif_msg m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = accept_pair();
		m = msg_init(6, bad[i]);
		expect_disconnect(&p, &m, sizeof(m), -1, -1, "Incorrect secret");
	}
	p = accept_pair();
	m = msg_init(6, "s3cret");
	expect_ack(&p, &m, -1);
	close(p.peer);
	assert_int_equal(memif_conn_input(p.c), -1);
	assert_int_equal(srv_secret->state, MEMIF_ST_LISTENING);

	/* Bytes after the peer's NUL do not count (DPDK compares strings). */
	p = accept_pair();
	m = msg_init(6, "s3cret");
	memcpy(m.init.secret + 7, "junk", 4);
	expect_ack(&p, &m, -1);
	close(p.peer);
	assert_int_equal(memif_conn_input(p.c), -1);

	/* 24 bytes exactly: the whole field, no NUL. */
	p = accept_pair();
	m = msg_init(7, SECRET24);
	expect_ack(&p, &m, -1);
	close(p.peer);
	assert_int_equal(memif_conn_input(p.c), -1);
	p = accept_pair();
	m = msg_init(7, SECRET24);
	m.init.secret[MEMIF_SECRET_SZ - 1] = 'x';
	expect_disconnect(&p, &m, sizeof(m), -1, -1, "Incorrect secret");
	p = accept_pair();
	m = msg_init(7, "0123456789abcdefghijklm");	/* 23 of the 24 */
	expect_disconnect(&p, &m, sizeof(m), -1, -1, "Incorrect secret");
	/* A server without a secret takes any (as DPDK). */
	p = accept_pair();
	m = msg_init(5, "anything");
	expect_ack(&p, &m, -1);
	close(p.peer);
	assert_int_equal(memif_conn_input(p.c), -1);
}

static void test_secret_equal(void **state)
{
	uint8_t f[MEMIF_SECRET_SZ] = { 0 };

	assert_true(memif_secret_equal("", f));
	memcpy(f, "abc", 3);
	assert_true(memif_secret_equal("abc", f));
	assert_false(memif_secret_equal("abd", f));
	assert_false(memif_secret_equal("ab", f));
	assert_false(memif_secret_equal("abcd", f));
	assert_false(memif_secret_equal("", f));
	memcpy(f, SECRET24, MEMIF_SECRET_SZ);
	assert_true(memif_secret_equal(SECRET24, f));
	f[0] ^= 1;
	assert_false(memif_secret_equal(SECRET24, f));
}

static void test_regions(void **state)
{
	struct pair p;
	struct memif_msg m;
	void *map = NULL;
	int mfd = peer_region(8192, LOG2, &map);

	p = accept_pair();
	m = msg_init(5, NULL);
	expect_ack(&p, &m, -1);
	m = msg_region(1, 8192);	/* index must start at 0 */
	expect_disconnect(&p, &m, sizeof(m), dup(mfd), -1, "Invalid region index");

	p = accept_pair();
	m = msg_init(5, NULL);
	expect_ack(&p, &m, -1);
	m = msg_region(0, 0);
	expect_disconnect(&p, &m, sizeof(m), dup(mfd), -1, "Invalid region size");

	p = accept_pair();
	m = msg_init(5, NULL);
	expect_ack(&p, &m, -1);
	m = msg_region(0, UINT64_MAX);
	expect_disconnect(&p, &m, sizeof(m), dup(mfd), -1, "Invalid region size");

	p = accept_pair();
	m = msg_init(5, NULL);
	expect_ack(&p, &m, -1);
	m = msg_region(0, 8192 * 2);	/* the file is shorter: would SIGBUS */
	expect_disconnect(&p, &m, sizeof(m), dup(mfd), -1, "Region larger than its file");

	p = accept_pair();
	m = msg_init(5, NULL);
	expect_ack(&p, &m, -1);
	m = msg_region(0, 8192);
	expect_disconnect(&p, &m, sizeof(m), -1, -1, "Missing region fd");

	p = accept_pair();
	m = msg_init(5, NULL);
	expect_ack(&p, &m, -1);
	m = msg_region(0, 8192);
	expect_disconnect(&p, &m, sizeof(m), dup(mfd), dup(mfd), "Too many fds");
	munmap(map, 8192);
	close(mfd);
}

static void test_rings(void **state)
{
	size_t len = 2 * memif_ring_bytes(LOG2);
	struct pair p;
	struct memif_msg m;
	void *map = NULL;
	int mfd = peer_region(len, LOG2, &map);

#define TO_RING() do {						\
		p = accept_pair();				\
		m = msg_init(5, NULL);				\
		expect_ack(&p, &m, -1);				\
		m = msg_region(0, len);				\
		expect_ack(&p, &m, dup(mfd));			\
	} while (0)

	TO_RING();
	m = msg_ring(true, 0, 0, len - 64, LOG2);	/* ring outside region 0 */
	expect_disconnect(&p, &m, sizeof(m), evfd(), -1, "Ring outside region");
	TO_RING();
	m = msg_ring(true, 0, 0, UINT32_MAX - 100, LOG2);	/* offset overflow */
	expect_disconnect(&p, &m, sizeof(m), evfd(), -1, "Ring outside region");
	TO_RING();
	m = msg_ring(true, 0, 1, 0, LOG2);	/* region not added */
	expect_disconnect(&p, &m, sizeof(m), evfd(), -1, "Invalid region index");
	TO_RING();
	m = msg_ring(true, 0, 0, 0, 15);
	expect_disconnect(&p, &m, sizeof(m), evfd(), -1, "Invalid ring size");
	TO_RING();
	m = msg_ring(true, 0, 0, 0, LOG2);
	expect_disconnect(&p, &m, sizeof(m), -1, -1, "Missing interrupt fd");
	TO_RING();
	m = msg_ring(true, 0, 0, 0, LOG2);
	m.add_ring.private_hdr_size = 16;
	expect_disconnect(&p, &m, sizeof(m), evfd(), -1, "Private headers not supported");
	TO_RING();
	m = msg_ring(true, 0, 0, 0, LOG2);
	expect_ack(&p, &m, evfd());
	/* more rings than our one rx queue */
	m = msg_ring(true, 1, 0, memif_ring_bytes(LOG2), LOG2);
	expect_disconnect(&p, &m, sizeof(m), evfd(), -1, "Invalid ring index");
	TO_RING();
	m = msg_ring(false, 3, 0, 0, LOG2);	/* not sequential */
	expect_disconnect(&p, &m, sizeof(m), evfd(), -1, "Invalid ring index");
	TO_RING();
	m = msg_ring(true, 0, 0, 0, LOG2);
	expect_ack(&p, &m, evfd());
	m = msg_of(MEMIF_MSG_CONNECT);	/* no S2C ring */
	expect_disconnect(&p, &m, sizeof(m), -1, -1, "No rings");
#undef TO_RING
	assert_int_equal(srv->state, MEMIF_ST_LISTENING);
	munmap(map, len);
	close(mfd);
}

static void test_bad_cookie(void **state)
{
	struct pair p = accept_pair();
	struct memif_msg m = msg_of(MEMIF_MSG_CONNECT);
	size_t len = 1 << 16;
	int mfd;
	uint8_t *map = full_setup(&p, &mfd, len);

	((struct memif_ring *)(map + memif_ring_bytes(LOG2)))->cookie = 0xdead;
	expect_disconnect(&p, &m, sizeof(m), -1, -1, "Wrong cookie on S2C ring 0");
	assert_int_equal(srv->state, MEMIF_ST_LISTENING);
	assert_int_equal(srv->nregions, 0);
	munmap(map, len);
	close(mfd);
}

/* The client side: HELLO it cannot use, messages out of turn. */
static void test_client_side(void **state)
{
	struct memif_if *cli = make_if(false, 9, NULL);
	struct memif_msg m, r;
	int sv[2];

	cli->enabled = true;
	for (int k = 0; k < 3; k++) {
		struct memif_conn *c;

		assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sv), 0);
		c = memif_conn_new(sv[0], NULL, cli);
		m = msg_of(MEMIF_MSG_HELLO);
		m.hello.min_version = m.hello.max_version = MEMIF_VERSION;
		m.hello.max_log2_ring_size = 10;
		if (k == 0)
			m.hello.min_version = m.hello.max_version = 0x0300;
		if (k == 1)
			m = msg_of(MEMIF_MSG_ACK);	/* before HELLO */
		if (k == 2)
			m = msg_of(MEMIF_MSG_INIT);	/* a server's message */
		assert_int_equal(peer_send(sv[1], &m, sizeof(m), -1, -1), 0);
		assert_int_equal(memif_conn_input(c), -1);
		assert_int_equal(peer_recv(sv[1], &r), MEMIF_MSG_DISCONNECT);
		assert_string_equal((char *)r.disconnect.string,
				    k == 0 ? "Incompatible memif version" : "Unexpected message");
		assert_null(cli->conn);
		assert_int_equal(cli->state, MEMIF_ST_CONNECTING);
		close(sv[1]);
	}

	/* A good HELLO, then CONNECTED before the ACKs: refused, and the
	 * memory and eventfds built for the run are released. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sv), 0);
	struct memif_conn *c = memif_conn_new(sv[0], NULL, cli);
	m = msg_of(MEMIF_MSG_HELLO);
	m.hello.min_version = m.hello.max_version = MEMIF_VERSION;
	m.hello.max_log2_ring_size = 6;
	m.hello.max_c2s_ring = m.hello.max_s2c_ring = 0;
	assert_int_equal(peer_send(sv[1], &m, sizeof(m), -1, -1), 0);
	assert_int_equal(memif_conn_input(c), 0);
	assert_int_equal(peer_recv(sv[1], &r), MEMIF_MSG_INIT);
	assert_int_equal(r.init.id, 9);
	assert_int_equal(cli->run_log2, LOG2);	/* min(ours, server's) */
	assert_int_equal(cli->nregions, 1);
	m = msg_of(MEMIF_MSG_CONNECTED);
	assert_int_equal(peer_send(sv[1], &m, sizeof(m), -1, -1), 0);
	assert_int_equal(memif_conn_input(c), -1);
	assert_int_equal(peer_recv(sv[1], &r), MEMIF_MSG_DISCONNECT);
	assert_string_equal((char *)r.disconnect.string, "Unexpected message");
	assert_int_equal(cli->nregions, 0);
	close(sv[1]);
	cli->enabled = false;
	memif_if_free(cli);
}

/* Many refused connections carrying fds: nothing accumulates. */
static void test_fd_flood(void **state)
{
	void *map = NULL;
	int mfd = peer_region(4096, LOG2, &map);

	for (int i = 0; i < 200; i++) {
		struct pair p = accept_pair();
		struct memif_msg m = msg_region(0, 4096);

		expect_disconnect(&p, &m, sizeof(m), dup(mfd), dup(mfd), "Too many fds");
	}
	munmap(map, 4096);
	close(mfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_handshake_ok, teardown),
		cmocka_unit_test_teardown(test_second_client_refused, teardown),
		cmocka_unit_test_teardown(test_bad_size, teardown),
		cmocka_unit_test_teardown(test_unknown_type, teardown),
		cmocka_unit_test_teardown(test_version, teardown),
		cmocka_unit_test_teardown(test_out_of_order, teardown),
		cmocka_unit_test_teardown(test_id_and_mode, teardown),
		cmocka_unit_test_teardown(test_secret, teardown),
		cmocka_unit_test(test_secret_equal),
		cmocka_unit_test_teardown(test_regions, teardown),
		cmocka_unit_test_teardown(test_rings, teardown),
		cmocka_unit_test_teardown(test_bad_cookie, teardown),
		cmocka_unit_test_teardown(test_client_side, teardown),
		cmocka_unit_test_teardown(test_fd_flood, teardown),
	};

	return cmocka_run_group_tests(tests, setup, global_teardown);
}
