/* vhost-user front-end against a scripted backend on a socketpair: the
 * replies are queued before the call, the requests read back after it.
 * Covers the good negotiation and start/stop sequences and the bad replies
 * of hardening.md D4. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "vf_mem.h"
#include "vhost_user_fe.h"

/* DPDK 22.11 net_vhost's offer (protocols.md §4.1). */
#define DPDK_FEATURES 0xd7c66e7cbull
#define DPDK_PROTOCOL 0x10cbfull

struct pair {
	struct vu_fe fe;
	int be;		/* backend end */
};

static void pair_open(struct pair *p)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	memset(&p->fe, 0, sizeof(p->fe));
	p->fe.fd = sv[0];
	p->fe.timeout_ms = 200;
	p->be = sv[1];
}

static void pair_close(struct pair *p)
{
	close(p->fe.fd);
	close(p->be);
}

static void reply_raw(struct pair *p, uint32_t req, uint32_t flags, const void *pl, uint32_t size)
{
	struct vhost_user_hdr h = { req, flags, size };

	assert_int_equal(write(p->be, &h, sizeof(h)), sizeof(h));
	if (size)
		assert_int_equal(write(p->be, pl, size), (ssize_t)size);
}

static void reply_u64(struct pair *p, uint32_t req, uint64_t v)
{
	reply_raw(p, req, VHOST_USER_REPLY_FLAGS, &v, sizeof(v));
}

/* Reads the next request the front-end sent; closes fds, returns count. */
static int next_req(struct pair *p, struct vhost_user_msg *m)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 8)];
		struct cmsghdr a;
	} ctl;
	struct iovec iov = { m, VHOST_USER_HDR_SIZE };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *c;
	int nfds = 0;

	assert_int_equal(recvmsg(p->be, &mh, MSG_DONTWAIT), VHOST_USER_HDR_SIZE);
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		int n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		for (int i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			close(fd);
			nfds++;
		}
	}
	assert_true(m->hdr.size <= sizeof(m->p));
	if (m->hdr.size)
		assert_int_equal(read(p->be, &m->p, m->hdr.size), (ssize_t)m->hdr.size);
	return nfds;
}

static void expect_req(struct pair *p, uint32_t req, uint32_t flags, struct vhost_user_msg *m)
{
	next_req(p, m);
	assert_string_equal(vhost_user_request_name(m->hdr.request), vhost_user_request_name(req));
	assert_int_equal(m->hdr.flags, flags);
}

static bool no_more(struct pair *p)
{
	char c;

	return recv(p->be, &c, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN;
}

static const struct vu_fe_want want1 = { true, true, 1 };

static void test_negotiate_dpdk(void **state)
{
	struct pair p;
	struct vhost_user_msg m;

	pair_open(&p);
	reply_u64(&p, VHOST_USER_GET_FEATURES, DPDK_FEATURES);
	reply_u64(&p, VHOST_USER_GET_PROTOCOL_FEATURES, DPDK_PROTOCOL);
	assert_int_equal(vu_fe_negotiate(&p.fe, &want1, true), 0);
	assert_int_equal(p.fe.features, (1ull << 32) | (1ull << 30) | (1ull << 15) | (1ull << 35));
	assert_int_equal(p.fe.protocol, 0x10009);
	expect_req(&p, VHOST_USER_SET_OWNER, 1, &m);
	expect_req(&p, VHOST_USER_GET_FEATURES, 1, &m);
	expect_req(&p, VHOST_USER_GET_PROTOCOL_FEATURES, 1, &m);
	expect_req(&p, VHOST_USER_SET_PROTOCOL_FEATURES, 1, &m);
	assert_int_equal(m.p.u64, 0x10009);
	assert_true(no_more(&p));
	pair_close(&p);
}

static void test_negotiate_options(void **state)
{
	struct pair p;
	struct vhost_user_msg m;
	struct vu_fe_want w = { false, false, 2 };

	/* mrg_rxbuf=0 in_order=0 queues=2 */
	pair_open(&p);
	reply_u64(&p, VHOST_USER_GET_FEATURES, DPDK_FEATURES);
	reply_u64(&p, VHOST_USER_GET_PROTOCOL_FEATURES, DPDK_PROTOCOL);
	reply_u64(&p, VHOST_USER_GET_QUEUE_NUM, 128);
	assert_int_equal(vu_fe_negotiate(&p.fe, &w, false), 0);
	assert_int_equal(p.fe.features, (1ull << 32) | (1ull << 30) | (1ull << 22));
	expect_req(&p, VHOST_USER_GET_FEATURES, 1, &m);	/* no SET_OWNER */
	pair_close(&p);

	/* queues=2 against a backend without MQ */
	pair_open(&p);
	reply_u64(&p, VHOST_USER_GET_FEATURES, DPDK_FEATURES & ~(1ull << 22));
	reply_u64(&p, VHOST_USER_GET_PROTOCOL_FEATURES, DPDK_PROTOCOL);
	assert_int_equal(vu_fe_negotiate(&p.fe, &w, true), -ENOTSUP);
	assert_non_null(strstr(p.fe.err, "multi-queue"));
	pair_close(&p);

	/* packed_vq=1: RING_PACKED and EVENT_IDX taken with it ... */
	struct vu_fe_want wp = { true, true, 1, true };

	pair_open(&p);
	reply_u64(&p, VHOST_USER_GET_FEATURES, DPDK_FEATURES);
	reply_u64(&p, VHOST_USER_GET_PROTOCOL_FEATURES, DPDK_PROTOCOL);
	assert_int_equal(vu_fe_negotiate(&p.fe, &wp, true), 0);
	assert_int_equal(p.fe.features, (1ull << 32) | (1ull << 30) | (1ull << 15) | (1ull << 35) |
					(1ull << 34) | (1ull << 29));
	pair_close(&p);
	/* ... and refused by a backend without RING_PACKED */
	pair_open(&p);
	reply_u64(&p, VHOST_USER_GET_FEATURES, DPDK_FEATURES & ~(1ull << 34));
	assert_int_equal(vu_fe_negotiate(&p.fe, &wp, true), -ENOTSUP);
	assert_non_null(strstr(p.fe.err, "RING_PACKED"));
	pair_close(&p);

	/* more queues than the backend has */
	pair_open(&p);
	reply_u64(&p, VHOST_USER_GET_FEATURES, DPDK_FEATURES);
	reply_u64(&p, VHOST_USER_GET_PROTOCOL_FEATURES, DPDK_PROTOCOL);
	reply_u64(&p, VHOST_USER_GET_QUEUE_NUM, 1);
	assert_int_equal(vu_fe_negotiate(&p.fe, &w, true), -ENOTSUP);
	pair_close(&p);

	/* no bit 30: no protocol features asked */
	pair_open(&p);
	reply_u64(&p, VHOST_USER_GET_FEATURES, 1ull << 32);
	assert_int_equal(vu_fe_negotiate(&p.fe, &want1, false), 0);
	assert_int_equal(p.fe.features, 1ull << 32);
	assert_int_equal(p.fe.protocol, 0);
	expect_req(&p, VHOST_USER_GET_FEATURES, 1, &m);
	assert_true(no_more(&p));
	pair_close(&p);
}

/* D4: every malformed GET_FEATURES reply fails the negotiation. */
static void test_bad_replies(void **state)
{
	struct pair p;
	uint64_t v = DPDK_FEATURES;
	uint32_t small = 1;

	pair_open(&p);	/* flags echo NEED_REPLY */
	reply_raw(&p, VHOST_USER_GET_FEATURES, 0xd, &v, 8);
	assert_int_equal(vu_fe_negotiate(&p.fe, &want1, false), -EPROTO);
	assert_non_null(strstr(p.fe.err, "flags"));
	pair_close(&p);

	pair_open(&p);	/* reply to another request */
	reply_u64(&p, VHOST_USER_GET_PROTOCOL_FEATURES, v);
	assert_int_equal(vu_fe_negotiate(&p.fe, &want1, false), -EPROTO);
	assert_non_null(strstr(p.fe.err, "reply to request"));
	pair_close(&p);

	pair_open(&p);	/* wrong size */
	reply_raw(&p, VHOST_USER_GET_FEATURES, VHOST_USER_REPLY_FLAGS, &small, 4);
	assert_int_equal(vu_fe_negotiate(&p.fe, &want1, false), -EPROTO);
	assert_non_null(strstr(p.fe.err, "size"));
	pair_close(&p);

	pair_open(&p);	/* huge size claim */
	{
		struct vhost_user_hdr h = { VHOST_USER_GET_FEATURES, VHOST_USER_REPLY_FLAGS, 0xffffffff };

		assert_int_equal(write(p.be, &h, sizeof(h)), sizeof(h));
	}
	assert_int_equal(vu_fe_negotiate(&p.fe, &want1, false), -EPROTO);
	pair_close(&p);

	pair_open(&p);	/* features 0 */
	reply_u64(&p, VHOST_USER_GET_FEATURES, 0);
	assert_int_equal(vu_fe_negotiate(&p.fe, &want1, false), -ENOTSUP);
	assert_non_null(strstr(p.fe.err, "VERSION_1"));
	pair_close(&p);

	pair_open(&p);	/* no reply at all: timeout */
	assert_int_equal(vu_fe_negotiate(&p.fe, &want1, false), -ETIMEDOUT);
	pair_close(&p);

	pair_open(&p);	/* truncated payload then EOF */
	{
		struct vhost_user_hdr h = { VHOST_USER_GET_FEATURES, VHOST_USER_REPLY_FLAGS, 8 };

		assert_int_equal(write(p.be, &h, sizeof(h)), sizeof(h));
		assert_int_equal(write(p.be, &small, 4), 4);
	}
	shutdown(p.be, SHUT_WR);
	assert_int_equal(vu_fe_negotiate(&p.fe, &want1, false), -ECONNRESET);
	assert_non_null(strstr(p.fe.err, "short reply"));
	pair_close(&p);

	pair_open(&p);	/* closed before any reply */
	close(p.be);
	p.be = open("/dev/null", O_RDONLY);
	assert_true(vu_fe_negotiate(&p.fe, &want1, false) < 0);
	pair_close(&p);
}

/* A reply carrying fds: the fds are closed, not leaked. */
static void test_reply_with_fds(void **state)
{
	struct pair p;
	uint64_t v = DPDK_FEATURES;
	struct vhost_user_hdr h = { VHOST_USER_GET_FEATURES, VHOST_USER_REPLY_FLAGS, 8 };
	char buf[sizeof(h) + 8];
	int fds[3], before, after;
	union {
		char b[CMSG_SPACE(sizeof(fds))];
		struct cmsghdr a;
	} ctl;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl.b, .msg_controllen = sizeof(ctl.b) };
	struct cmsghdr *c;

	pair_open(&p);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &v, 8);
	for (int i = 0; i < 3; i++)
		fds[i] = open("/dev/null", O_RDONLY);
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	assert_int_equal(sendmsg(p.be, &mh, 0), (ssize_t)sizeof(buf));
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	before = open("/dev/null", O_RDONLY);
	close(before);
	reply_u64(&p, VHOST_USER_GET_PROTOCOL_FEATURES, DPDK_PROTOCOL);
	assert_int_equal(vu_fe_negotiate(&p.fe, &want1, false), 0);
	after = open("/dev/null", O_RDONLY);
	close(after);
	assert_int_equal(after, before);	/* lowest free fd unchanged */
	pair_close(&p);
}

static void *memfd_region(struct vf_mem_region *r, size_t len)
{
	int fd = memfd_create("t", 0);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)len), 0);
	r->addr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(r->addr != MAP_FAILED);
	r->len = len;
	r->fd = fd;
	r->offset = 0;
	return r->addr;
}

static void test_start_stop(void **state)
{
	struct pair p;
	struct vhost_user_msg m;
	struct vf_mem_region reg;
	struct vu_fe_ring rings[2];
	char *base = memfd_region(&reg, 1 << 16);

	for (int i = 0; i < 2; i++) {
		rings[i] = (struct vu_fe_ring){ .index = (uint32_t)i, .num = 256,
			.desc = (uintptr_t)base + i * 0x4000,
			.avail = (uintptr_t)base + i * 0x4000 + 0x1000,
			.used = (uintptr_t)base + i * 0x4000 + 0x2000,
			.kickfd = reg.fd, .callfd = reg.fd };
	}
	rings[1].base = 0x8000;		/* a packed ring's base: slot 0, wrap 1 */
	pair_open(&p);
	p.fe.features = (1ull << 32) | (1ull << 30);
	p.fe.protocol = 0x10009;
	reply_u64(&p, VHOST_USER_SET_STATUS, 0);
	reply_u64(&p, VHOST_USER_SET_MEM_TABLE, 0);
	reply_u64(&p, VHOST_USER_SET_STATUS, 0);
	assert_int_equal(vu_fe_start(&p.fe, &reg, 1, rings, 2), 0);
	expect_req(&p, VHOST_USER_SET_FEATURES, 1, &m);
	assert_int_equal(m.p.u64, p.fe.features);
	expect_req(&p, VHOST_USER_SET_STATUS, 9, &m);
	assert_int_equal(m.p.u64, 0xb);
	assert_int_equal(next_req(&p, &m), 1);
	assert_int_equal(m.hdr.request, VHOST_USER_SET_MEM_TABLE);
	assert_int_equal(m.hdr.flags, 9);
	assert_int_equal(m.hdr.size, 8 + 32);
	assert_int_equal(m.p.mem.nregions, 1);
	assert_int_equal(m.p.mem.regions[0].guest_phys_addr, (uintptr_t)base);
	assert_int_equal(m.p.mem.regions[0].userspace_addr, (uintptr_t)base);
	assert_int_equal(m.p.mem.regions[0].memory_size, 1 << 16);
	for (int i = 0; i < 2; i++) {
		expect_req(&p, VHOST_USER_SET_VRING_NUM, 1, &m);
		assert_int_equal(m.p.state.index, i);
		assert_int_equal(m.p.state.num, 256);
		expect_req(&p, VHOST_USER_SET_VRING_BASE, 1, &m);
		assert_int_equal(m.p.state.num, rings[i].base);
		expect_req(&p, VHOST_USER_SET_VRING_ADDR, 1, &m);
		assert_int_equal(m.p.addr.index, i);
		assert_int_equal(m.p.addr.desc_user_addr, rings[i].desc);
		assert_int_equal(m.p.addr.avail_user_addr, rings[i].avail);
		assert_int_equal(m.p.addr.used_user_addr, rings[i].used);
		assert_int_equal(next_req(&p, &m), 1);
		assert_int_equal(m.hdr.request, VHOST_USER_SET_VRING_KICK);
		assert_int_equal(m.p.u64, i);
		assert_int_equal(next_req(&p, &m), 1);
		assert_int_equal(m.hdr.request, VHOST_USER_SET_VRING_CALL);
	}
	for (int i = 0; i < 2; i++) {
		expect_req(&p, VHOST_USER_SET_VRING_ENABLE, 1, &m);
		assert_int_equal(m.p.state.index, i);
		assert_int_equal(m.p.state.num, 1);
	}
	expect_req(&p, VHOST_USER_SET_STATUS, 9, &m);
	assert_int_equal(m.p.u64, 0xf);
	assert_true(no_more(&p));

	/* stop: enable 0 then GET_VRING_BASE with matching replies */
	struct vhost_vring_state s0 = { 0, 5 }, s1 = { 1, 7 };

	reply_raw(&p, VHOST_USER_GET_VRING_BASE, VHOST_USER_REPLY_FLAGS, &s0, 8);
	reply_raw(&p, VHOST_USER_GET_VRING_BASE, VHOST_USER_REPLY_FLAGS, &s1, 8);
	assert_int_equal(vu_fe_stop(&p.fe, rings, 2), 0);
	expect_req(&p, VHOST_USER_SET_VRING_ENABLE, 1, &m);
	assert_int_equal(m.p.state.num, 0);
	expect_req(&p, VHOST_USER_SET_VRING_ENABLE, 1, &m);
	expect_req(&p, VHOST_USER_GET_VRING_BASE, 1, &m);
	assert_int_equal(m.p.state.index, 0);
	expect_req(&p, VHOST_USER_GET_VRING_BASE, 1, &m);
	assert_int_equal(m.p.state.index, 1);
	/* a GET_VRING_BASE reply for another ring */
	reply_raw(&p, VHOST_USER_GET_VRING_BASE, VHOST_USER_REPLY_FLAGS, &s1, 8);
	assert_int_equal(vu_fe_stop(&p.fe, rings, 1), -EPROTO);
	pair_close(&p);

	/* the backend refuses the memory table (REPLY_ACK non-zero) */
	pair_open(&p);
	p.fe.features = (1ull << 32) | (1ull << 30);
	p.fe.protocol = 0x10009;
	reply_u64(&p, VHOST_USER_SET_STATUS, 0);
	reply_u64(&p, VHOST_USER_SET_MEM_TABLE, 1);
	assert_int_equal(vu_fe_start(&p.fe, &reg, 1, rings, 2), -EIO);
	assert_non_null(strstr(p.fe.err, "SET_MEM_TABLE"));
	pair_close(&p);

	/* too many regions */
	pair_open(&p);
	struct vf_mem_region many[9];

	for (int i = 0; i < 9; i++)
		many[i] = reg;
	assert_int_equal(vu_fe_start(&p.fe, many, 9, rings, 2), -E2BIG);
	pair_close(&p);
	munmap(base, 1 << 16);
	close(reg.fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_negotiate_dpdk),
		cmocka_unit_test(test_negotiate_options),
		cmocka_unit_test(test_bad_replies),
		cmocka_unit_test(test_reply_with_fds),
		cmocka_unit_test(test_start_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
