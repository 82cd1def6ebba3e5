/* Live migration, device side, against the real message handler and the
 * real burst functions: SET_LOG_BASE validation (log too small for the
 * memory table, offset beyond the file, size + offset overflow, no fd,
 * without LOG_SHMFD), LOG_ALL without a log (counted, nothing written),
 * the exact dirty bits of rx buffers spanning a page boundary and of the
 * used ring or used descriptors (split and packed), logging switched on
 * and off under running rings as QEMU does, the ring positions
 * GET_VRING_BASE hands to a destination, and SEND_RARP.  Front-end memory
 * and the log are memfds; every test ends with the fd count at its
 * baseline and every mbuf back in the pool. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_mbuf.h>

#include "vf_peermem.h"
#include "vf_runtime.h"
#include "vhost/vhost_dev.h"
#include "vh_testring.h"
#include "vh_testmsg.h"

#define RING 256
#define LOG_FILE 4096			/* bytes of the log memfd */
#define LOG_NEED 64			/* bitmap bytes for GPA [0, 2 MiB) */
#define F_SPLIT ((1ull << VIRTIO_F_VERSION_1) | (1ull << VHOST_USER_F_PROTOCOL_FEATURES))
#define F_PACKED (F_SPLIT | (1ull << VIRTIO_F_RING_PACKED))
#define LOG_ALL (1ull << VHOST_F_LOG_ALL)
#define PROTO ((1ull << VHOST_USER_PROTOCOL_F_REPLY_ACK) | \
	       (1ull << VHOST_USER_PROTOCOL_F_LOG_SHMFD) | (1ull << VHOST_USER_PROTOCOL_F_RARP))
/* vring i: descriptors at +0x4000*i, driver area +0x1000, device area +0x2000 */
#define RING_OFF(i) (0x4000u * (i))
#define BUF_OFF 0x8ff0u			/* 16 bytes before a page boundary */

static struct rte_mempool *pool;

struct fx {
	struct vu_front fe;		/* the device and its last reply */
	struct guest g;
	int logfd;
	uint8_t *log;			/* our view of the log */
	int efd;
	int fds_before;
	uint32_t base;			/* SET_VRING_BASE of the next negotiate */
};

static int group_setup(void **state)
{
	pool = vht_eal_pool("vhlog", 64, "vhlog", 256);
	return pool ? 0 : -1;
}

static int group_teardown(void **state)
{
	vht_eal_pool_free(pool);
	return 0;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	vf_peermem_init();
	f->fds_before = count_fds();
	f->fe.dev = aligned_alloc(64, (sizeof(struct vh_dev) + 63) & ~(size_t)63);
	vh_dev_init(f->fe.dev, "log0", 1);
	f->fe.dev->vq[1].pool = pool;
	if (guest_open(&f->g, GUEST_SIZE))
		return -1;
	f->logfd = memfd_create("vh-test-log", MFD_CLOEXEC);
	if (f->logfd < 0 || ftruncate(f->logfd, LOG_FILE) != 0)
		return -1;
	f->log = mmap(NULL, LOG_FILE, PROT_READ | PROT_WRITE, MAP_SHARED, f->logfd, 0);
	f->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	*state = f;
	return f->log == MAP_FAILED ? -1 : 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	vh_dev_disconnect(f->fe.dev);
	assert_null(f->fe.dev->log);
	munmap(f->log, LOG_FILE);
	close(f->logfd);
	close(f->efd);
	guest_close(&f->g);
	assert_int_equal(count_fds(), f->fds_before);
	assert_int_equal(rte_mempool_avail_count(pool), 256);
	free(f->fe.dev);
	free(f);
	return 0;
}

static int log_base(struct fx *f, uint64_t size, uint64_t offset)
{
	struct vhost_user_log l = { size, offset };

	return vu_msg_fds(&f->fe, VHOST_USER_SET_LOG_BASE, VHOST_USER_VERSION, &l, sizeof(l), &f->logfd, 1);
}

static struct vhost_vring_addr ring_addr(uint32_t i, bool log)
{
	uint64_t base = GUEST_UVA + RING_OFF(i);

	return (struct vhost_vring_addr){
		.index = i, .flags = log ? 1u << VHOST_VRING_F_LOG : 0,
		.desc_user_addr = base, .avail_user_addr = base + 0x1000,
		.used_user_addr = base + 0x2000,
		.log_guest_addr = log ? GUEST_GPA + RING_OFF(i) + 0x2000 : 0,
	};
}

/* QEMU's order: protocol features, memory, rings, then enable. */
static void negotiate(struct fx *f, uint64_t features, uint64_t proto)
{
	struct vhost_user_mem_table t = { .nregions = 1 };

	t.regions[0] = (struct vhost_user_mem_region){ GUEST_GPA, GUEST_SIZE, GUEST_UVA, 0 };
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_GET_FEATURES, NULL, 0), 0);
	assert_true(f->fe.reply.p.u64 & LOG_ALL);
	assert_true(f->fe.reply.p.u64 & (1ull << VIRTIO_NET_F_GUEST_ANNOUNCE));
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_GET_PROTOCOL_FEATURES, NULL, 0), 0);
	assert_int_equal(f->fe.reply.p.u64 & PROTO, PROTO);
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SET_PROTOCOL_FEATURES, proto), 0);
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SET_FEATURES, features), 0);
	assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_SET_MEM_TABLE, VHOST_USER_VERSION, &t, 8 + 32,
			      &f->g.fd, 1), 0);
	for (uint32_t i = 0; i < 2; i++) {
		struct vhost_vring_addr a = ring_addr(i, false);

		assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_NUM, i, RING), 0);
		uint32_t base = (features & (1ull << VIRTIO_F_RING_PACKED)) ? 0x8000 : 0;

		assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_BASE, i,
					   i == 0 && f->base ? f->base : base), 0);
		assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a)), 0);
		assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_SET_VRING_KICK, VHOST_USER_VERSION,
				      &(uint64_t){ i }, 8, &f->efd, 1), 0);
		assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_SET_VRING_CALL, VHOST_USER_VERSION,
				      &(uint64_t){ i }, 8, &f->efd, 1), 0);
		assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_SET_VRING_ENABLE, i, 1), 0);
	}
	assert_true(f->fe.dev->link_up);
}

/* What the connection layer does after a rejected message. */
static void reconnect(struct fx *f, uint64_t features, uint64_t proto)
{
	vh_dev_disconnect(f->fe.dev);
	negotiate(f, features, proto);
}

static bool bit(const struct fx *f, uint64_t gpa)
{
	uint64_t p = gpa >> 12;

	return f->log[p / 8] & (1u << (p % 8));
}

/* The pages set in the log, as GPAs, in order; returns their count. */
static unsigned int dirty(const struct fx *f, uint64_t *out, unsigned int max)
{
	unsigned int n = 0;

	for (uint64_t p = 0; p < LOG_NEED * 8; p++)
		if (f->log[p / 8] & (1u << (p % 8))) {
			if (n < max)
				out[n] = p << 12;
			n++;
		}
	return n;
}

/* Two segments of len/2 bytes (the general copy path). */
static struct rte_mbuf *frame2(uint16_t len)
{
	struct rte_mbuf *a = rte_pktmbuf_alloc(pool), *b = rte_pktmbuf_alloc(pool);

	assert_true(a && b);
	memset(rte_pktmbuf_append(a, len / 2), 0x5a, len / 2);
	memset(rte_pktmbuf_append(b, len - len / 2), 0xa5, len - len / 2);
	assert_int_equal(rte_pktmbuf_chain(a, b), 0);
	return a;
}

static struct rte_mbuf *frame(uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	assert_non_null(m);
	memset(rte_pktmbuf_append(m, len), 0x5a, len);
	return m;
}

/* One writable buffer of blen bytes at GPA_BUF in the guest's receive
 * ring (vring 0), slot 0. */
#define GPA_BUF (GUEST_GPA + BUF_OFF)

static void post_split_rx(struct fx *f, uint32_t blen)
{
	struct vring_desc *d = (void *)(f->g.va + RING_OFF(0));
	struct vring_avail *av = (void *)(f->g.va + RING_OFF(0) + 0x1000);

	d[0] = (struct vring_desc){ GPA_BUF, blen, VRING_DESC_F_WRITE, 0 };
	av->ring[av->idx % RING] = 0;
	__atomic_store_n(&av->idx, (uint16_t)(av->idx + 1), __ATOMIC_RELEASE);
}

static void post_packed_rx(struct fx *f, uint16_t slot, uint32_t blen)
{
	struct vring_packed_desc *d = (void *)(f->g.va + RING_OFF(0));

	d[slot].addr = GPA_BUF;
	d[slot].len = blen;
	d[slot].id = slot;
	__atomic_store_n(&d[slot].flags, (uint16_t)((1u << VRING_PACKED_DESC_F_AVAIL) |
						     VRING_DESC_F_WRITE), __ATOMIC_RELEASE);
}

/* ---- SET_LOG_BASE validation ----------------------------------------- */

static void test_log_base_too_small(void **state)
{
	struct fx *f = *state;

	negotiate(f, F_SPLIT, PROTO);
	assert_int_equal(log_base(f, LOG_NEED - 1, 0), -EINVAL);
	assert_non_null(strstr(f->fe.dev->last_error, "memory table reaches"));
	assert_null(f->fe.dev->log);
	/* exactly enough is fine, and the reply is a bare header */
	assert_int_equal(log_base(f, LOG_NEED, 0), 0);
	assert_int_equal(f->fe.rlen, VHOST_USER_HDR_SIZE);
	assert_int_equal(f->fe.reply.hdr.request, VHOST_USER_SET_LOG_BASE);
	assert_int_equal(f->fe.reply.hdr.flags, VHOST_USER_REPLY_FLAGS);
	assert_non_null(f->fe.dev->log);
}

static void test_log_offset_beyond_file(void **state)
{
	struct fx *f = *state;

	negotiate(f, F_SPLIT, PROTO);
	assert_int_equal(log_base(f, LOG_NEED, LOG_FILE), -EINVAL);
	assert_non_null(strstr(f->fe.dev->last_error, "beyond its file"));
	assert_int_equal(log_base(f, LOG_FILE + 1, 0), -EINVAL);
	assert_int_equal(log_base(f, 0, 0), -EINVAL);
	assert_null(f->fe.dev->log);
	/* the log at the very end of the file */
	assert_int_equal(log_base(f, LOG_NEED, LOG_FILE - LOG_NEED), 0);
	assert_ptr_equal(f->fe.dev->log->bits, (uint8_t *)f->fe.dev->log->map_base + LOG_FILE - LOG_NEED);
}

static void test_log_overflow(void **state)
{
	struct fx *f = *state;

	negotiate(f, F_SPLIT, PROTO);
	assert_int_equal(log_base(f, LOG_NEED, UINT64_MAX - 8), -EINVAL);
	assert_non_null(strstr(f->fe.dev->last_error, "overflows"));
	assert_int_equal(log_base(f, UINT64_MAX, 2), -EINVAL);
	assert_null(f->fe.dev->log);
}

static void test_log_base_bad_requests(void **state)
{
	struct fx *f = *state;
	struct vhost_user_log l = { LOG_NEED, 0 };

	negotiate(f, F_SPLIT, PROTO & ~(1ull << VHOST_USER_PROTOCOL_F_LOG_SHMFD));
	/* without LOG_SHMFD there is nothing we could map */
	assert_int_equal(log_base(f, LOG_NEED, 0), -EINVAL);
	assert_non_null(strstr(f->fe.dev->last_error, "unsupported"));
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SET_PROTOCOL_FEATURES, PROTO), 0);
	/* no fd, the old u64 payload */
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_LOG_BASE, &l, sizeof(l)), -EINVAL);
	assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_SET_LOG_BASE, VHOST_USER_VERSION, &l, 8,
			      &f->logfd, 1), -EINVAL);
	assert_null(f->fe.dev->log);
	/* a replacement unmaps the old one (the fd count says so) */
	assert_int_equal(log_base(f, LOG_NEED, 0), 0);
	assert_int_equal(log_base(f, LOG_NEED, 128), 0);
	assert_int_equal(f->fe.dev->log_bases, 2);
}

/* ---- marking ---------------------------------------------------------- */

static void test_log_all_without_base(void **state)
{
	struct fx *f = *state;
	struct rte_mbuf *m = frame(100);
	struct vring_used *u = (void *)(f->g.va + RING_OFF(0) + 0x2000);

	negotiate(f, F_SPLIT | LOG_ALL, PROTO);
	assert_ptr_equal(f->fe.dev->vq[0].dirty_log, &vh_log_none);
	post_split_rx(f, 2048);
	assert_int_equal(vh_vq_enqueue(&f->fe.dev->vq[0], &m, 1), 1);
	assert_int_equal(u->idx, 1);
	/* ring start (used flags), then buffer (2 pages), used entry, used
	 * idx: all counted, none lost silently */
	assert_int_equal(f->fe.dev->vq[0].st.log_miss, 5);
	assert_int_equal(dirty(f, NULL, 0), 0);
}

static void test_split_rx_marks(void **state)
{
	struct fx *f = *state;
	struct rte_mbuf *m = frame(100);
	struct vring_used *u = (void *)(f->g.va + RING_OFF(0) + 0x2000);
	struct vhost_vring_addr a = ring_addr(0, true);
	uint64_t pg[8];

	negotiate(f, F_SPLIT, PROTO);
	/* QEMU at migration start: log, LOG_ALL and the F_LOG ring
	 * addresses, all while the rings run */
	assert_int_equal(log_base(f, LOG_NEED, 0), 0);
	assert_null(f->fe.dev->vq[0].dirty_log);
	assert_int_equal(vu_msg_fds(&f->fe, VHOST_USER_SET_FEATURES, VHOST_USER_VERSION |
			      VHOST_USER_F_NEED_REPLY, &(uint64_t){ F_SPLIT | LOG_ALL }, 8,
			      NULL, 0), 0);
	assert_int_equal(f->fe.rlen, VHOST_USER_HDR_SIZE + 8);
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a)), 0);
	assert_true(f->fe.dev->vq[0].ready);
	/* other features still cannot change under running rings */
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SET_FEATURES,
				 F_SPLIT | LOG_ALL | (1ull << VIRTIO_RING_F_EVENT_IDX)), -EINVAL);
	/* nor may the rings move */
	a.used_user_addr += 0x100;
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a)), -EINVAL);
	reconnect(f, F_SPLIT, PROTO);	/* that closed the connection: again */
	assert_int_equal(log_base(f, LOG_NEED, 0), 0);
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SET_FEATURES, F_SPLIT | LOG_ALL), 0);
	a = ring_addr(0, true);
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a)), 0);
	memset(f->log, 0, LOG_FILE);

	/* 12-byte header + 100 bytes from 16 bytes before a page boundary */
	post_split_rx(f, 2048);
	assert_int_equal(vh_vq_enqueue(&f->fe.dev->vq[0], &m, 1), 1);
	assert_int_equal(u->idx, 1);
	assert_int_equal(u->ring[0].len, 112);
	assert_int_equal(dirty(f, pg, 8), 3);
	assert_int_equal(pg[0], GUEST_GPA + RING_OFF(0) + 0x2000);	/* used ring */
	assert_int_equal(pg[1], GPA_BUF & ~0xfffull);			/* the buffer's */
	assert_int_equal(pg[2], (GPA_BUF & ~0xfffull) + 0x1000);	/* two pages */
	assert_int_equal(f->fe.dev->vq[0].st.log_miss, 0);

	/* a 16-byte frame stays on the first page */
	memset(f->log, 0, LOG_FILE);
	m = frame(4);
	post_split_rx(f, 2048);
	assert_int_equal(vh_vq_enqueue(&f->fe.dev->vq[0], &m, 1), 1);
	assert_int_equal(dirty(f, pg, 8), 2);
	assert_int_equal(pg[1], GPA_BUF & ~0xfffull);

	/* logging off: nothing marked */
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SET_FEATURES, F_SPLIT), 0);
	assert_null(f->fe.dev->vq[0].dirty_log);
	memset(f->log, 0, LOG_FILE);
	m = frame(100);
	post_split_rx(f, 2048);
	assert_int_equal(vh_vq_enqueue(&f->fe.dev->vq[0], &m, 1), 1);
	assert_int_equal(u->idx, 3);
	assert_int_equal(dirty(f, NULL, 0), 0);
}

/* A mergeable packet over two chains, the second of two descriptors: the
 * general path marks every page it wrote and none it did not. */
static void test_split_rx_general_path(void **state)
{
	struct fx *f = *state;
	struct rte_mbuf *m = frame2(3000);
	struct vring_desc *d = (void *)(f->g.va + RING_OFF(0));
	struct vring_avail *av = (void *)(f->g.va + RING_OFF(0) + 0x1000);
	uint64_t pg[8];

	negotiate(f, F_SPLIT | LOG_ALL | (1ull << VIRTIO_NET_F_MRG_RXBUF), PROTO);
	assert_int_equal(log_base(f, LOG_NEED, 0), 0);
	d[0] = (struct vring_desc){ GUEST_GPA + 0x20000, 1000, VRING_DESC_F_WRITE, 0 };
	d[1] = (struct vring_desc){ GUEST_GPA + 0x30ff0, 1000,
				    VRING_DESC_F_WRITE | VRING_DESC_F_NEXT, 2 };
	d[2] = (struct vring_desc){ GUEST_GPA + 0x50000, 8192, VRING_DESC_F_WRITE, 0 };
	av->ring[0] = 0;
	av->ring[1] = 1;
	__atomic_store_n(&av->idx, 2, __ATOMIC_RELEASE);
	assert_int_equal(vh_vq_enqueue(&f->fe.dev->vq[0], &m, 1), 1);
	/* 3012 bytes: 1000 in chain 0, 1000 in d[1] (over 0x31000), 1012 in d[2] */
	assert_int_equal(dirty(f, pg, 8), 5);
	assert_int_equal(pg[0], GUEST_GPA + 0x2000);
	assert_int_equal(pg[1], GUEST_GPA + 0x20000);
	assert_int_equal(pg[2], GUEST_GPA + 0x30000);
	assert_int_equal(pg[3], GUEST_GPA + 0x31000);
	assert_int_equal(pg[4], GUEST_GPA + 0x50000);
	assert_false(bit(f, GUEST_GPA + 0x51000));
}

/* The guest's transmit ring: only the used ring is written. */
static void test_split_tx_marks_used_only(void **state)
{
	struct fx *f = *state;
	struct vring_desc *d = (void *)(f->g.va + RING_OFF(1));
	struct vring_avail *av = (void *)(f->g.va + RING_OFF(1) + 0x1000);
	struct rte_mbuf *pkts[4];
	uint64_t pg[4];

	struct vhost_vring_addr a = ring_addr(1, true);

	negotiate(f, F_SPLIT | LOG_ALL, PROTO);
	assert_int_equal(log_base(f, LOG_NEED, 0), 0);
	memset(f->g.va + 0x40000, 0, 12);
	/* the used ring is marked where VHOST_VRING_F_LOG says, not where we
	 * map it (QEMU's own view of the guest address) */
	a.log_guest_addr = GUEST_GPA + 0x70000;
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a)), 0);
	d[0] = (struct vring_desc){ GUEST_GPA + 0x40000, 12 + 60, 0, 0 };
	av->ring[0] = 0;
	__atomic_store_n(&av->idx, 1, __ATOMIC_RELEASE);
	assert_int_equal(vh_vq_dequeue(&f->fe.dev->vq[1], pkts, 4), 1);
	rte_pktmbuf_free(pkts[0]);
	assert_int_equal(dirty(f, pg, 4), 1);
	assert_int_equal(pg[0], GUEST_GPA + 0x70000);
	/* without the flag: our translation */
	a = ring_addr(1, false);
	assert_int_equal(vu_msg(&f->fe, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a)), 0);
	memset(f->log, 0, LOG_FILE);
	d[1] = (struct vring_desc){ GUEST_GPA + 0x40000, 12 + 60, 0, 0 };
	av->ring[1] = 1;
	__atomic_store_n(&av->idx, 2, __ATOMIC_RELEASE);
	assert_int_equal(vh_vq_dequeue(&f->fe.dev->vq[1], pkts, 4), 1);
	rte_pktmbuf_free(pkts[0]);
	assert_int_equal(dirty(f, pg, 4), 1);
	assert_int_equal(pg[0], GUEST_GPA + RING_OFF(1) + 0x2000);
}

static void test_packed_rx_marks(void **state)
{
	struct fx *f = *state;
	struct rte_mbuf *m = frame(100);
	struct vring_packed_desc *d = (void *)(f->g.va + RING_OFF(0));
	uint64_t pg[8];

	negotiate(f, F_PACKED, PROTO);
	assert_int_equal(log_base(f, LOG_NEED, 0), 0);
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SET_FEATURES, F_PACKED | LOG_ALL), 0);
	assert_non_null(f->fe.dev->vq[0].dirty_log);
	post_packed_rx(f, 0, 2048);
	assert_int_equal(vh_vq_enqueue(&f->fe.dev->vq[0], &m, 1), 1);
	assert_int_equal(d[0].len, 112);
	assert_true(d[0].flags & (1u << VRING_PACKED_DESC_F_USED));
	assert_int_equal(dirty(f, pg, 8), 3);
	assert_int_equal(pg[0], GUEST_GPA + RING_OFF(0));		/* descriptor ring */
	assert_int_equal(pg[1], GPA_BUF & ~0xfffull);
	assert_int_equal(pg[2], (GPA_BUF & ~0xfffull) + 0x1000);
	assert_int_equal(f->fe.dev->vq[0].st.log_miss, 0);

	/* logging off */
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SET_FEATURES, F_PACKED), 0);
	memset(f->log, 0, LOG_FILE);
	m = frame(100);
	post_packed_rx(f, 1, 2048);
	assert_int_equal(vh_vq_enqueue(&f->fe.dev->vq[0], &m, 1), 1);
	assert_int_equal(d[1].len, 112);
	assert_int_equal(dirty(f, NULL, 0), 0);
}

/* ---- ring positions for the destination ------------------------------ */

static void test_vring_base_resume(void **state)
{
	struct fx *f = *state;
	struct rte_mbuf *m;
	struct vring_used *u = (void *)(f->g.va + RING_OFF(0) + 0x2000);

	/* split: three buffers used; the destination resumes at 3 */
	negotiate(f, F_SPLIT, PROTO);
	for (int i = 0; i < 3; i++) {
		m = frame(60);
		post_split_rx(f, 2048);
		assert_int_equal(vh_vq_enqueue(&f->fe.dev->vq[0], &m, 1), 1);
	}
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_GET_VRING_BASE, 0, 0), 0);
	assert_int_equal(f->fe.reply.p.state.num, 3);
	f->base = f->fe.reply.p.state.num;
	reconnect(f, F_SPLIT, PROTO);	/* SET_VRING_BASE 3, as QEMU */
	assert_int_equal(f->fe.dev->vq[0].last_avail, 3);
	assert_int_equal(f->fe.dev->vq[0].last_used, 3);
	assert_int_equal(u->idx, 3);
	m = frame(60);
	post_split_rx(f, 2048);
	assert_int_equal(vh_vq_enqueue(&f->fe.dev->vq[0], &m, 1), 1);
	assert_int_equal(u->idx, 4);
	assert_int_equal(u->ring[3].len, 72);
}

static void test_packed_vring_base_resume(void **state)
{
	struct fx *f = *state;
	struct vring_packed_desc *d = (void *)(f->g.va + RING_OFF(0));
	struct rte_mbuf *m;
	uint32_t base;

	negotiate(f, F_PACKED, PROTO);
	/* one lap and three: avail and used at slot 3 of lap 2 (wrap 0) */
	for (uint32_t i = 0; i < RING + 3; i++) {
		m = frame(60);
		/* lap 2: AVAIL clear, USED set marks available */
		if (i < RING)
			post_packed_rx(f, (uint16_t)i, 2048);
		else {
			d[i - RING].addr = GPA_BUF;
			d[i - RING].len = 2048;
			d[i - RING].id = (uint16_t)(i - RING);
			__atomic_store_n(&d[i - RING].flags,
					 (uint16_t)((1u << VRING_PACKED_DESC_F_USED) |
						    VRING_DESC_F_WRITE), __ATOMIC_RELEASE);
		}
		assert_int_equal(vh_vq_enqueue(&f->fe.dev->vq[0], &m, 1), 1);
	}
	assert_int_equal(vu_msg_state(&f->fe, VHOST_USER_GET_VRING_BASE, 0, 0), 0);
	base = f->fe.reply.p.state.num;
	/* bits 0-14 avail, 15 avail wrap, 16-30 used, 31 used wrap */
	assert_int_equal(base, 3u | (3u << 16));
	f->base = base;
	reconnect(f, F_PACKED, PROTO);
	assert_true(f->fe.dev->vq[0].ready);
	assert_int_equal(f->fe.dev->vq[0].last_avail, 3);
	assert_false(f->fe.dev->vq[0].avail_wrap);
	assert_false(f->fe.dev->vq[0].used_wrap);
	/* the next buffer of lap 2 is taken and returned in lap 2 */
	d[3] = (struct vring_packed_desc){ GPA_BUF, 2048, 3, 0 };
	__atomic_store_n(&d[3].flags, (uint16_t)((1u << VRING_PACKED_DESC_F_USED) |
						  VRING_DESC_F_WRITE), __ATOMIC_RELEASE);
	m = frame(60);
	assert_int_equal(vh_vq_enqueue(&f->fe.dev->vq[0], &m, 1), 1);
	assert_int_equal(d[3].flags & ((1u << VRING_PACKED_DESC_F_USED) |
				       (1u << VRING_PACKED_DESC_F_AVAIL)), 0);
	assert_int_equal(d[3].len, 72);
}

/* ---- SEND_RARP -------------------------------------------------------- */

static void test_send_rarp(void **state)
{
	struct fx *f = *state;
	static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	struct rte_mbuf *pkts[4];
	uint64_t v = 0;
	const uint8_t *p;

	negotiate(f, F_SPLIT, PROTO & ~(1ull << VHOST_USER_PROTOCOL_F_RARP));
	memcpy(&v, mac, 6);
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SEND_RARP, v), -EINVAL);
	reconnect(f, F_SPLIT, PROTO);
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SEND_RARP, v | 1), -EINVAL);	/* multicast */
	reconnect(f, F_SPLIT, PROTO);
	assert_int_equal(vh_vq_dequeue(&f->fe.dev->vq[1], pkts, 4), 0);
	assert_int_equal(vu_msg_u64(&f->fe, VHOST_USER_SEND_RARP, v), 0);
	assert_int_equal(vh_vq_dequeue(&f->fe.dev->vq[1], pkts, 4), 1);
	p = rte_pktmbuf_mtod(pkts[0], const uint8_t *);
	assert_int_equal(pkts[0]->pkt_len, 60);
	for (int i = 0; i < 6; i++)
		assert_int_equal(p[i], 0xff);
	assert_memory_equal(p + 6, mac, 6);
	assert_int_equal(p[12], 0x80);		/* 0x8035 RARP */
	assert_int_equal(p[13], 0x35);
	assert_int_equal(p[21], 3);		/* reverse request */
	assert_memory_equal(p + 22, mac, 6);
	assert_memory_equal(p + 32, mac, 6);
	rte_pktmbuf_free(pkts[0]);
	assert_int_equal(f->fe.dev->vq[1].st.rarp, 1);
	assert_int_equal(f->fe.dev->rarp_requests, 1);
	/* once */
	assert_int_equal(vh_vq_dequeue(&f->fe.dev->vq[1], pkts, 4), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_log_base_too_small, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_offset_beyond_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_base_bad_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_all_without_base, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_rx_marks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_rx_general_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_tx_marks_used_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packed_rx_marks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vring_base_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packed_vring_base_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_send_rarp, setup, teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
