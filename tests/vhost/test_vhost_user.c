/* Bad-peer and happy-path tests of the vhost-user message layer: the real
 * handler and reader, fed crafted messages; front-end memory is a memfd.
 * Every test ends with the process's fd count back at its baseline. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "vf_peermem.h"

#include "vhost/vhost_dev.h"
#include "vh_testmem.h"
#include "vh_testmsg.h"

struct fx {
	struct vu_front fe;		/* the device and its last reply */
	struct guest g;
	int fds_before;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	/* process-wide, once: not a per-connection fd */
	vf_peermem_init();
	f->fds_before = count_fds();
	f->fe.dev = aligned_alloc(64, (sizeof(struct vh_dev) + 63) & ~(size_t)63);
	vh_dev_init(f->fe.dev, "t0", 2);
	if (guest_open(&f->g, GUEST_SIZE))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	vh_dev_disconnect(f->fe.dev);
	guest_close(&f->g);
	/* everything closed: no fd leaked by any path of the test */
	assert_int_equal(count_fds(), f->fds_before);
	free(f->fe.dev);
	free(f);
	return 0;
}

static struct vhost_user_mem_table one_region(uint64_t size)
{
	struct vhost_user_mem_table t = { .nregions = 1 };

	t.regions[0] = (struct vhost_user_mem_region){ GUEST_GPA, size, GUEST_UVA, 0 };
	return t;
}

static int mem_table(struct fx *f, const struct vhost_user_mem_table *t,
		     const int *fds, unsigned int nfds)
{
	uint32_t size = 8 + (t->nregions <= 8 ? t->nregions : 8) * 32;

	return vu_msg_fds(&f->fe, VHOST_USER_SET_MEM_TABLE, VHOST_USER_VERSION, t, size, fds, nfds);
}

static struct vhost_vring_addr ring_addr(uint32_t idx)
{
	uint64_t base = GUEST_UVA + idx * 0x4000ull;

	return (struct vhost_vring_addr){
		.index = idx, .desc_user_addr = base,
		.used_user_addr = base + 0x2000, .avail_user_addr = base + 0x1000,
	};
}

/* The sequence DPDK 22.11 virtio_user sends (protocols.md §1.10.1). */
static void negotiate(struct fx *f, uint64_t features)
{
	struct vhost_user_mem_table t = one_region(GUEST_SIZE);
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_OWNER, NULL, 0), 0);
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_GET_FEATURES, NULL, 0), 0);
	assert_int_equal(f->fe.reply.p.u64, VH_FEATURES);
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_GET_PROTOCOL_FEATURES, NULL, 0), 0);
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SET_PROTOCOL_FEATURES, f->fe.reply.p.u64), 0);
	for (uint32_t i = 0; i < 2; i++)
		assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_SET_VRING_CALL, VHOST_USER_VERSION,
				      &(uint64_t){ i }, 8, &efd, 1), 0);
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SET_FEATURES, features), 0);
	assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_SET_STATUS, VHOST_USER_VERSION |
			      VHOST_USER_F_NEED_REPLY, &(uint64_t){ 0xb }, 8, NULL, 0), 0);
	assert_int_equal(f->fe.rlen, 20);
	assert_int_equal(mem_table(f, &t, &f->g.fd, 1), 0);
	for (uint32_t i = 0; i < 2; i++) {
		struct vhost_vring_addr a = ring_addr(i);

		assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_NUM, i, 256), 0);
		/* packed: index 0, wrap counter 1 in bit 15 (pitfall 11) */
		assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_BASE, i,
					   (features & (1ull << 34)) ? 0x8000 : 0), 0);
		assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a)), 0);
		assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_SET_VRING_KICK, VHOST_USER_VERSION,
				      &(uint64_t){ i }, 8, &efd, 1), 0);
	}
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_ENABLE, 0, 1), 0);
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_ENABLE, 1, 1), 0);
	assert_false(f->fe.dev->link_up);	/* not before DRIVER_OK */
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SET_STATUS, 0xf), 0);
	close(efd);
}

#define DPDK_FEATURES ((1ull << 32) | (1ull << 30) | (1ull << 15) | (1ull << 35) | (1ull << 28))

static void test_happy_path(void **state)
{
	struct fx *f = *state;

	negotiate(f, DPDK_FEATURES);
	assert_true(f->fe.dev->link_up);
	assert_true(f->fe.dev->vq[0].ready && f->fe.dev->vq[1].ready);
	assert_int_equal(f->fe.dev->vq[0].hdr_len, 12);
	assert_true(f->fe.dev->vq[1].mrg_rxbuf);
	/* GET_VRING_BASE stops the ring and reports its index */
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_GET_VRING_BASE, 1, 0), 0);
	assert_int_equal(f->fe.reply.hdr.flags, VHOST_USER_REPLY_FLAGS);
	assert_int_equal(f->fe.reply.hdr.request, VHOST_USER_GET_VRING_BASE);
	assert_int_equal(f->fe.reply.p.state.index, 1);
	assert_int_equal(f->fe.reply.p.state.num, 0);
	assert_false(f->fe.dev->vq[1].ready);
	assert_false(f->fe.dev->link_up);
	assert_int_equal(f->fe.dev->vq[1].callfd, -1);
}

static void test_packed_happy_path(void **state)
{
	struct fx *f = *state;
	struct vhost_vring_addr a = ring_addr(0);
	const struct vring_packed_desc_event *dev_ev =
		(const void *)(f->g.va + (a.used_user_addr - GUEST_UVA));

	assert_true(VH_FEATURES & (1ull << VIRTIO_F_RING_PACKED));
	negotiate(f, DPDK_FEATURES | (1ull << VIRTIO_F_RING_PACKED));
	assert_true(f->fe.dev->link_up);
	assert_true(f->fe.dev->vq[0].packed && f->fe.dev->vq[1].packed);
	assert_non_null(f->fe.dev->vq[0].pdesc);
	assert_true(f->fe.dev->vq[0].avail_wrap && f->fe.dev->vq[0].used_wrap);
	assert_int_equal(f->fe.dev->vq[0].last_avail, 0);
	/* our device area tells the polling front-end never to kick */
	assert_int_equal(dev_ev->flags, VRING_PACKED_EVENT_FLAG_DISABLE);
	/* GET_VRING_BASE: index and wrap counter in bit 15 */
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_GET_VRING_BASE, 0, 0), 0);
	assert_int_equal(f->fe.reply.p.state.num, 0x80008000);	/* used slot 0, wrap 1 */
	assert_false(f->fe.dev->vq[0].ready);
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_BASE, 0, 0x0005), 0);
	assert_int_equal(f->fe.dev->vq[0].last_avail, 5);
	assert_false(f->fe.dev->vq[0].avail_wrap);
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_GET_VRING_BASE, 0, 0), 0);
	assert_int_equal(f->fe.reply.p.state.num, 0x00050005);
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_BASE, 0, 0x80ff), 0);
	assert_int_equal(f->fe.dev->vq[0].last_avail, 0xff);
	assert_true(f->fe.dev->vq[0].avail_wrap);
}

static void test_reply_ack(void **state)
{
	struct fx *f = *state;
	uint64_t pf = (1ull << VHOST_USER_PROTOCOL_F_REPLY_ACK);

	/* without REPLY_ACK negotiated: no reply */
	assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_SET_OWNER, 0x9, NULL, 0, NULL, 0), 0);
	assert_int_equal(f->fe.rlen, 0);
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SET_PROTOCOL_FEATURES, pf), 0);
	assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_SET_OWNER, 0x9, NULL, 0, NULL, 0), 0);
	assert_int_equal(f->fe.rlen, 20);
	assert_int_equal(f->fe.reply.hdr.flags, 0x5);	/* never echoes NEED_REPLY */
	assert_int_equal(f->fe.reply.hdr.size, 8);
	assert_int_equal(f->fe.reply.p.u64, 0);
	/* a request with its own reply gets that one only */
	assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_GET_FEATURES, 0x9, NULL, 0, NULL, 0), 0);
	assert_int_equal(f->fe.rlen, 20);
	assert_int_equal(f->fe.reply.p.u64, VH_FEATURES);
}

static void test_get_vring_base_unseen(void **state)
{
	struct fx *f = *state;

	/* virtio_user server-mode reconnect (pitfall 8) */
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_ENABLE, 0, 0), 0);
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_GET_VRING_BASE, 0, 0), 0);
	assert_int_equal(f->fe.reply.p.state.num, 0);
	assert_int_equal(f->fe.rlen, 20);
}

/* ---- bad peers -------------------------------------------------------- */

static int recv_from(const void *buf, size_t len, const int *fds, unsigned int nfds,
		     struct vhost_user_msg *m, unsigned int *got_fds)
{
	int sv[2], rc, rfds[VHOST_USER_MAX_FDS];
	union {
		char b[CMSG_SPACE(8 * sizeof(int))];
		struct cmsghdr a;
	} cb;
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	if (nfds) {
		mh.msg_control = cb.b;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	if (len || nfds)
		assert_true(sendmsg(sv[0], &mh, 0) == (ssize_t)len);
	shutdown(sv[0], SHUT_WR);
	/* all of it and the EOF are in the socket: never "more to come" */
	{
		static struct vh_rxmsg rx;

		assert_int_equal(fcntl(sv[1], F_SETFL, O_NONBLOCK), 0);
		while ((rc = vh_user_recv(sv[1], &rx)) == 0)
			;
		*got_fds = rx.nfds;
		*m = rx.msg;
		vh_rxmsg_reset(&rx, true);
		rc = rc == 1 ? 0 : rc;
	}
	(void)rfds;
	close(sv[0]);
	close(sv[1]);
	return rc;
}

static void test_short_message(void **state)
{
	struct vhost_user_msg m;
	struct vhost_user_hdr h = { VHOST_USER_SET_FEATURES, 1, 8 };
	uint8_t buf[32] = { 0 };
	unsigned int nf;
	int efd[2] = { eventfd(0, EFD_CLOEXEC), eventfd(0, EFD_CLOEXEC) };

	(void)state;
	/* EOF before anything: the peer left */
	assert_int_equal(recv_from(NULL, 0, NULL, 0, &m, &nf), -ECONNRESET);
	/* shorter than the header, with fds: error and the fds are closed */
	assert_int_equal(recv_from(buf, 5, efd, 2, &m, &nf), -EPROTO);
	assert_int_equal(nf, 0);
	/* shorter than its declared size */
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(recv_from(buf, sizeof(h) + 4, efd, 1, &m, &nf), -EPROTO);
	/* a size larger than any payload */
	h.size = 0xffffffffu;
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(recv_from(buf, sizeof(buf), NULL, 0, &m, &nf), -EPROTO);
	/* complete: accepted */
	h.size = 8;
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(recv_from(buf, sizeof(h) + 8, efd, 1, &m, &nf), 0);
	assert_int_equal(nf, 1);
	close(efd[0]);
	close(efd[1]);
}

static void test_size_mismatch(void **state)
{
	struct fx *f = *state;
	struct vhost_user_msg m = { .hdr = { VHOST_USER_SET_FEATURES, 1, 8 } };

	/* bytes received disagree with the declared size, or are < header */
	assert_int_equal(vh_user_handle(f->fe.dev, &m, 16, NULL, 0, &f->fe.reply, &f->fe.rlen), -EINVAL);
	assert_int_equal(vh_user_handle(f->fe.dev, &m, 4, NULL, 0, &f->fe.reply, &f->fe.rlen), -EINVAL);
	/* a size wrong for the request type */
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_VRING_NUM, &(uint64_t){ 0 }, 4), -EINVAL);
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_VRING_ADDR, &(uint64_t){ 0 }, 8), -EINVAL);
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_FEATURES, NULL, 0), -EINVAL);
	/* a reply flag on a request, a wrong version */
	assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_GET_FEATURES, 0x5, NULL, 0, NULL, 0), -EINVAL);
	assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_GET_FEATURES, 0x2, NULL, 0, NULL, 0), -EINVAL);
	assert_int_equal(f->fe.dev->ctl_rejects, 7);
}

static void test_unknown_request(void **state)
{
	struct fx *f = *state;
	int efd = eventfd(0, EFD_CLOEXEC);

	assert_int_equal(vu_msg(&f->fe, 9999, NULL, 0), -EINVAL);
	assert_int_equal(vu_msg(&f->fe, 0, NULL, 0), -EINVAL);
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_VRING_ENDIAN, &(struct vhost_vring_state){ 0, 0 }, 8),
			 -EINVAL);
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_LOG_BASE, &(uint64_t[2]){ 0, 0 }, 16), -EINVAL);
	/* with fds attached: they are closed (teardown checks) */
	assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_ADD_MEM_REG, 1, NULL, 0, &efd, 1), -EINVAL);
	/* known, but only after the protocol feature was negotiated */
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_GET_QUEUE_NUM, NULL, 0), -EINVAL);
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SET_STATUS, 0xf), -EINVAL);
	/* fds on a request that takes none */
	assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_GET_FEATURES, 1, NULL, 0, &efd, 1), -EINVAL);
	close(efd);
}

static void test_vring_index(void **state)
{
	struct fx *f = *state;	/* 2 queue pairs: vrings 0..3 */
	int efd = eventfd(0, EFD_CLOEXEC);
	struct vhost_vring_addr a = ring_addr(4);

	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_NUM, 4, 256), -EINVAL);
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_NUM, 0xffffffffu, 256), -EINVAL);
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_BASE, 65536, 0), -EINVAL);
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_GET_VRING_BASE, 255, 0), -EINVAL);
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_ENABLE, 4, 1), -EINVAL);
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a)), -EINVAL);
	assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_SET_VRING_KICK, 1, &(uint64_t){ 200 }, 8, &efd, 1),
			 -EINVAL);
	assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_SET_VRING_CALL, 1, &(uint64_t){ 1ull << 32 }, 8,
			      &efd, 1), -EINVAL);
	/* NOFD with an fd, and an fd missing */
	assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_SET_VRING_CALL, 1, &(uint64_t){ 0x100 }, 8, &efd, 1),
			 -EINVAL);
	assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_SET_VRING_KICK, 1, &(uint64_t){ 0 }, 8, NULL, 0),
			 -EINVAL);
	/* a call fd that is not an eventfd (a pipe could block a core) */
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_SET_VRING_CALL, 1, &(uint64_t){ 0 }, 8, &pfd[1], 1),
			 -EINVAL);
	close(pfd[0]);
	close(pfd[1]);
	/* the last vring is fine */
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_NUM, 3, 256), 0);
	assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_SET_VRING_CALL, 1, &(uint64_t){ 3 }, 8, &efd, 1), 0);
	close(efd);
}

static void test_vring_num(void **state)
{
	struct fx *f = *state;

	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_NUM, 0, 0), -EINVAL);
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_NUM, 0, 3), -EINVAL);
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_NUM, 0, 65535), -EINVAL);
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_NUM, 0, 65536), -EINVAL);
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_NUM, 0, 32769), -EINVAL);
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_NUM, 0, 32768), 0);
}

static void test_bad_mem_tables(void **state)
{
	struct fx *f = *state;
	struct vhost_user_mem_table t;
	int fds[9];
	struct guest small = { .fd = -1 };

	for (int i = 0; i < 9; i++)
		fds[i] = f->g.fd;
	/* zero regions */
	t = one_region(GUEST_SIZE);
	t.nregions = 0;
	assert_int_equal(mem_table(f, &t, NULL, 0), -EINVAL);
	/* more than 8 */
	t.nregions = 9;
	assert_int_equal(mem_table(f, &t, fds, 8), -EINVAL);
	/* wrong fd count */
	t = one_region(GUEST_SIZE);
	assert_int_equal(mem_table(f, &t, fds, 2), -EINVAL);
	assert_int_equal(mem_table(f, &t, NULL, 0), -EINVAL);
	/* size 0 */
	t = one_region(0);
	assert_int_equal(mem_table(f, &t, fds, 1), -EINVAL);
	/* sizes that overflow */
	t = one_region(GUEST_SIZE);
	t.regions[0].guest_phys_addr = UINT64_MAX - 4095;
	assert_int_equal(mem_table(f, &t, fds, 1), -EINVAL);
	t = one_region(GUEST_SIZE);
	t.regions[0].userspace_addr = UINT64_MAX - 4095;
	assert_int_equal(mem_table(f, &t, fds, 1), -EINVAL);
	t = one_region(GUEST_SIZE);
	t.regions[0].mmap_offset = UINT64_MAX - 100;
	assert_int_equal(mem_table(f, &t, fds, 1), -EINVAL);
	t = one_region(UINT64_MAX);
	assert_int_equal(mem_table(f, &t, fds, 1), -EINVAL);
	/* larger than the file behind it (would SIGBUS later) */
	t = one_region(GUEST_SIZE * 2);
	assert_int_equal(mem_table(f, &t, fds, 1), -EINVAL);
	t = one_region(GUEST_SIZE);
	t.regions[0].mmap_offset = 4096;
	assert_int_equal(mem_table(f, &t, fds, 1), -EINVAL);
	/* overlapping regions (guest-physical, then virtual) */
	t = one_region(GUEST_SIZE / 2);
	t.nregions = 2;
	t.regions[1] = (struct vhost_user_mem_region){ GUEST_GPA + 4096, 4096,
						      GUEST_UVA + GUEST_SIZE, 0 };
	assert_int_equal(mem_table(f, &t, fds, 2), -EINVAL);
	t.regions[1] = (struct vhost_user_mem_region){ GUEST_GPA + GUEST_SIZE, 4096,
						      GUEST_UVA + 8192, 0 };
	assert_int_equal(mem_table(f, &t, fds, 2), -EINVAL);
	/* a second region whose fd is bad: the first one's mapping goes too */
	assert_int_equal(guest_open(&small, 4096), 0);
	t.regions[1] = (struct vhost_user_mem_region){ GUEST_GPA + GUEST_SIZE, 8192,
						      GUEST_UVA + GUEST_SIZE, 0 };
	fds[1] = small.fd;
	assert_int_equal(mem_table(f, &t, fds, 2), -EINVAL);
	guest_close(&small);
	assert_int_equal(f->fe.dev->mem.nregions, 0);
	/* and a good one is taken */
	t = one_region(GUEST_SIZE);
	assert_int_equal(mem_table(f, &t, fds, 1), 0);
	assert_int_equal(f->fe.dev->mem.nregions, 1);
}

static void test_ring_addr_outside(void **state)
{
	struct fx *f = *state;
	struct vhost_user_mem_table t = one_region(GUEST_SIZE);
	struct vhost_vring_addr a = ring_addr(0);

	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_NUM, 0, 256), 0);
	/* before any memory table */
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a)), -EINVAL);
	assert_int_equal(mem_table(f, &t, &f->g.fd, 1), 0);
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a)), 0);
	/* outside every region */
	a.desc_user_addr = GUEST_GPA;	/* a GPA is not a ring address */
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a)), -EINVAL);
	/* straddling the region end: desc 16*256, used 4+8*256 */
	a = ring_addr(0);
	a.desc_user_addr = GUEST_UVA + GUEST_SIZE - 16 * 128;
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a)), -EINVAL);
	a = ring_addr(0);
	a.used_user_addr = GUEST_UVA + GUEST_SIZE - 8 * 256;
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a)), -EINVAL);
	a = ring_addr(0);
	a.avail_user_addr = UINT64_MAX - 1;
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a)), -EINVAL);
	/* misaligned */
	a = ring_addr(0);
	a.desc_user_addr += 8;
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a)), -EINVAL);
	assert_false(f->fe.dev->vq[0].addr_ok);
}

static void test_features(void **state)
{
	struct fx *f = *state;

	/* NOTIFICATION_DATA is not offered */
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SET_FEATURES, DPDK_FEATURES | (1ull << 38)),
			 -EINVAL);
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SET_PROTOCOL_FEATURES, 1ull << 5), -EINVAL);
	/* legacy header without VERSION_1/MRG_RXBUF, rings enabled without bit 30 */
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SET_FEATURES, 1ull << 28), 0);
	assert_int_equal(f->fe.dev->vq[0].hdr_len, 10);
	assert_true(f->fe.dev->vq[3].enabled);
	/* running rings: features are frozen */
	vh_dev_disconnect(f->fe.dev);
	negotiate(f, DPDK_FEATURES);
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SET_FEATURES, DPDK_FEATURES), 0);
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SET_FEATURES, 1ull << 32), -EINVAL);
}

static void test_mem_table_replaced_while_running(void **state)
{
	struct fx *f = *state;
	struct vhost_user_mem_table t = one_region(GUEST_SIZE);

	negotiate(f, DPDK_FEATURES);
	assert_true(f->fe.dev->link_up);
	/* a new table: rings re-derived against it and still running */
	assert_int_equal(mem_table(f, &t, &f->g.fd, 1), 0);
	assert_true(f->fe.dev->link_up);
	assert_ptr_equal(f->fe.dev->vq[0].desc, f->fe.dev->mem.r[0].host);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_happy_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packed_happy_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reply_ack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_get_vring_base_unseen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_message, setup, teardown),
		cmocka_unit_test_setup_teardown(test_size_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_request, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vring_index, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vring_num, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_mem_tables, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ring_addr_outside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_features, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mem_table_replaced_while_running,
						setup, teardown),
	};

	return cmocka_run_group_tests_name("vhost_user", tests, NULL, NULL);
}
