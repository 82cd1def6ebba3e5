/* Rx modes' notifications between our two vhost-user sides, in one
 * process: our virtio_user front-end's rings (drivers/virtio) in the
 * fd-backed DPDK heap, and our back-end (drivers/vhost) mapping that memory
 * through the real memory-table code, as it would from another process.
 *
 * Each test is the arm race: a consumer empties its ring, arms it (the
 * driver's rx_intr_arm: asks the peer for a notification), looks once
 * more, and sleeps on the event fd, as a forwarding core does; a producer
 * thread, the real peer code, publishes one packet at a random moment after
 * each one is taken, so that its publish races the arm.  A publish that the
 * consumer neither saw on its last look nor was woken for would leave the
 * sleep to time out: a lost wake-up, the test's failure.
 *
 *   back-end sleeping on kicks: our front-end's tx (split: used NO_NOTIFY;
 *     packed: the device area, DESC with EVENT_IDX and ENABLE without), and
 *     a hand-played split driver with EVENT_IDX (the avail event index; our
 *     front-end never negotiates EVENT_IDX on split rings);
 *   front-end sleeping on calls: our back-end's enqueue (split: avail
 *     NO_INTERRUPT; packed: the driver area, DESC and ENABLE).
 * And what is never armed: a ring not running, a front-end rx ring with no
 * buffer posted. */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "vf_mem.h"
#include "vhost/vhost_log.h"
#include "vh_testring.h"
#include "virtio/virtio_rxtx.h"

#define RING 256
#define N_PKTS 20000
#define LEN 64

static struct rte_mempool *pool;

static int group_setup(void **state)
{
	pool = vht_eal_pool("rxintr", 256, "rxintr", 4096);
	return pool ? 0 : -1;
}

static int group_teardown(void **state)
{
	vht_eal_pool_free(pool);
	return 0;
}

/* One ring seen from both sides. */
struct pair {
	struct vio_queue *fq;	/* our front-end's */
	struct vh_vq vq;	/* our back-end's */
	struct vh_mem mem;
};

/* The DPDK heap as the front-end's memory table: what virtio_user sends
 * in SET_MEM_TABLE (gpa == uva == its address), mapped by the back-end. */
static void map_heap(struct vh_mem *mem)
{
	struct vf_mem_region regs[VF_MEM_MAX_REGIONS];
	struct vhost_user_mem_table t = { 0 };
	int fds[VHOST_USER_MAX_REGIONS];
	int n = vf_mem_regions(regs, VF_MEM_MAX_REGIONS);
	char why[128];

	assert_true(n > 0 && n <= VHOST_USER_MAX_REGIONS);
	t.nregions = (uint32_t)n;
	for (int i = 0; i < n; i++) {
		t.regions[i] = (struct vhost_user_mem_region){
			(uint64_t)(uintptr_t)regs[i].addr, regs[i].len,
			(uint64_t)(uintptr_t)regs[i].addr, regs[i].offset };
		fds[i] = regs[i].fd;
	}
	memset(mem, 0, sizeof(*mem));
	assert_int_equal(vh_mem_map(mem, &t, (uint32_t)(8 + sizeof(t.regions[0]) * n), fds,
				    (unsigned int)n, why, sizeof(why)), 0);
}

/* fe_rx: the ring is the front-end's receive ring (filled with buffers;
 * the back-end enqueues), else its transmit ring (the back-end dequeues). */
static void pair_open(struct pair *p, bool packed, bool event_idx, bool fe_rx)
{
	const char *why;

	memset(p, 0, sizeof(*p));
	p->fq = rte_zmalloc("vio_queue", sizeof(*p->fq), RTE_CACHE_LINE_SIZE);
	assert_non_null(p->fq);
	if (packed) {
		assert_int_equal(vio_queue_alloc_packed(p->fq, RING, fe_rx, SOCKET_ID_ANY), 0);
		vio_queue_reset_packed(p->fq, true, true, event_idx);
	} else {
		assert_int_equal(vio_queue_alloc(p->fq, RING, fe_rx, SOCKET_ID_ANY), 0);
		vio_queue_reset(p->fq, true, true);
	}
	p->fq->kickfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	p->fq->callfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	assert_true(p->fq->kickfd >= 0 && p->fq->callfd >= 0);
	if (fe_rx) {
		p->fq->pool = pool;
		assert_int_equal(packed ? vio_rx_fill_packed(p->fq) : vio_rx_fill(p->fq), RING);
	}
	vio_set_ready(p->fq, true);

	map_heap(&p->mem);
	p->vq.idx = fe_rx ? 0 : 1;
	p->vq.size = RING;
	p->vq.packed = packed;
	p->vq.event_idx = event_idx;
	p->vq.mrg_rxbuf = true;
	p->vq.in_order = true;
	p->vq.hdr_len = 12;
	p->vq.pool = pool;
	p->vq.port_name = "rxintr";
	p->vq.log_used_gpa = VH_LOG_NO_GPA;
	p->vq.avail_wrap = p->vq.used_wrap = true;
	p->vq.kickfd = p->fq->kickfd;
	p->vq.callfd = p->fq->callfd;
	if (packed)
		p->vq.addr = (struct vhost_vring_addr){
			.desc_user_addr = vqp_addr(p->fq->pq.desc),
			.avail_user_addr = vqp_addr(p->fq->pq.drv),
			.used_user_addr = vqp_addr(p->fq->pq.dev) };
	else
		p->vq.addr = (struct vhost_vring_addr){
			.desc_user_addr = vqs_addr(p->fq->vq.desc),
			.avail_user_addr = vqs_addr(p->fq->vq.avail),
			.used_user_addr = vqs_addr(p->fq->vq.used) };
	assert_int_equal(vh_vq_map(&p->vq, &p->mem, &why), 0);
	vh_vq_start(&p->vq);
	__atomic_store_n(&p->vq.ready, true, __ATOMIC_RELEASE);
}

static void pair_close(struct pair *p)
{
	__atomic_store_n(&p->vq.ready, false, __ATOMIC_RELEASE);
	vio_set_ready(p->fq, false);
	if (p->fq->packed)
		vio_queue_reset_packed(p->fq, true, true, p->fq->pq.event_idx);
	else
		vio_queue_reset(p->fq, true, true);
	close(p->fq->kickfd);
	close(p->fq->callfd);
	vio_queue_free(p->fq);
	rte_free(p->fq);
	vh_mem_unmap(&p->mem);
}

static struct rte_mbuf *make_pkt(uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *d;

	assert_non_null(m);
	m->data_len = LEN;
	m->pkt_len = LEN;
	d = rte_pktmbuf_mtod(m, uint8_t *);
	memset(d, 0, LEN);
	memset(d, 0xff, 6);
	memcpy(d + 14, &seq, sizeof(seq));
	return m;
}

static void check_pkt(struct rte_mbuf *m, uint32_t seq)
{
	uint32_t got;

	assert_int_equal(rte_pktmbuf_pkt_len(m), LEN);
	memcpy(&got, rte_pktmbuf_mtod_offset(m, uint8_t *, 14), sizeof(got));
	if (got != seq)
		fail_msg("packet %u arrived where %u was due", got, seq);
}

/* ---- the race -------------------------------------------------------- */

struct race {
	struct pair *p;
	/* the producer: 1 when it placed packet seq (m: made for it, taken
	 * on success) */
	int (*produce)(struct race *r, uint32_t seq, struct rte_mbuf *m);
	/* the consumer's side */
	uint16_t (*consume)(struct race *r, struct rte_mbuf **pkts, uint16_t n);
	int (*arm)(struct race *r);
	void (*disarm)(struct race *r);
	/* a hand-played split driver with EVENT_IDX */
	uint16_t drv_avail;
	uint32_t taken;		/* atomic: written by the consumer */
	bool stop;		/* atomic */
};

/* The EAL pinned the main thread, and a thread it creates inherits that:
 * the producer goes to another CPU, or it would run only while the
 * consumer sleeps and never race it. */
static void other_cpu(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int me = sched_getcpu();
	cpu_set_t set;

	if (ncpu < 2)
		return;
	CPU_ZERO(&set);
	for (long c = 0; c < ncpu && c < CPU_SETSIZE; c++)
		if (c != me)
			CPU_SET(c, &set);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *producer(void *arg)
{
	struct race *r = arg;
	unsigned int seed = 7;

	other_cpu();

	for (uint32_t k = 0; k < N_PKTS; k++) {
		/* made before the wait: the publish follows the gap at once */
		struct rte_mbuf *m = make_pkt(k);
		unsigned int gap = (unsigned int)rand_r(&seed);

		while (__atomic_load_n(&r->taken, __ATOMIC_ACQUIRE) < k)
			if (__atomic_load_n(&r->stop, __ATOMIC_RELAXED))
				goto out;
		/* mostly gaps about as long as the consumer's way from its
		 * last empty look to its sleep, some longer */
		for (volatile unsigned int s = gap % (gap & 1 ? 3000 : 300); s; s--)
			;
		while (!r->produce(r, k, m))
			if (__atomic_load_n(&r->stop, __ATOMIC_RELAXED))
				goto out;
		continue;
out:
		rte_pktmbuf_free(m);
		return NULL;
	}
	return NULL;
}

static void run_race(struct race *r, const char *what)
{
	struct rte_mbuf *in[4];
	uint32_t sleeps = 0, k = 0, rechecks = 0, early = 0;
	unsigned int seed = 11;
	struct timespec t0, t;
	pthread_t th;

	assert_int_equal(pthread_create(&th, NULL, producer, r), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (k < N_PKTS) {
		uint16_t n = r->consume(r, in, 4);

		if (!n) {
			unsigned int d = (unsigned int)rand_r(&seed);
			int fd;

			/* random pauses on the way, so that the producer's
			 * publish lands in each window now and then */
			for (volatile unsigned int s = d % 200; s; s--)
				;
			fd = r->arm(r);
			assert_true(fd >= 0);
			for (volatile unsigned int s = (d >> 8) % 200; s; s--)
				;
			n = r->consume(r, in, 4);
			if (n) {
				rechecks++;	/* published between the empty look and the arm */
			} else {
				struct pollfd pf = { .fd = fd, .events = POLLIN };

				if (poll(&pf, 1, 0) == 1)
					early++;	/* the signal came before the sleep */
				else if (poll(&pf, 1, 5000) == 0) {
					__atomic_store_n(&r->stop, true, __ATOMIC_RELAXED);
					pthread_join(th, NULL);
					fail_msg("%s: lost wake-up: packet %u published, no signal in 5 s",
						 what, k);
				}
				sleeps++;
			}
			r->disarm(r);
		}
		for (uint16_t i = 0; i < n; i++) {
			check_pkt(in[i], k + i);
			rte_pktmbuf_free(in[i]);
		}
		k += n;
		__atomic_store_n(&r->taken, k, __ATOMIC_RELEASE);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 10)	/* sanitizer builds: fewer */
			break;
	}
	__atomic_store_n(&r->stop, true, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	print_message("%s: %u packets, %u sleeps (%u signalled before the sleep), %u taken "
		      "on the look after the arm, none lost\n", what, k, sleeps, early, rechecks);
	assert_true(k >= 1000);
}

/* back-end dequeues, sleeping on kicks */
static uint16_t be_consume(struct race *r, struct rte_mbuf **pkts, uint16_t n)
{
	return vh_vq_dequeue(&r->p->vq, pkts, n);
}

static int be_arm(struct race *r)
{
	return vh_vq_intr_arm(&r->p->vq);
}

static void be_disarm(struct race *r)
{
	vh_vq_intr_disarm(&r->p->vq);
}

/* our front-end transmits (kicks when the back-end asked) */
static int fe_produce(struct race *r, uint32_t seq, struct rte_mbuf *m)
{
	/* a full ring keeps m */
	return r->p->fq->packed ? vio_tx_burst_packed(r->p->fq, &m, 1)
				: vio_tx_burst(r->p->fq, &m, 1);
}

/* front-end receives, sleeping on calls */
static uint16_t fe_consume(struct race *r, struct rte_mbuf **pkts, uint16_t n)
{
	return r->p->fq->packed ? vio_rx_burst_packed(r->p->fq, pkts, n)
				: vio_rx_burst(r->p->fq, pkts, n);
}

static int fe_arm(struct race *r)
{
	return vio_rx_intr_arm(r->p->fq);
}

static void fe_disarm(struct race *r)
{
	vio_rx_intr_disarm(r->p->fq);
}

/* our back-end enqueues (calls when the front-end asked) */
static int be_produce(struct race *r, uint32_t seq, struct rte_mbuf *m)
{
	/* a full ring keeps m (the enqueue frees what it placed) */
	return vh_vq_enqueue(&r->p->vq, &m, 1);
}

static void backend_race(bool packed, bool event_idx, const char *what)
{
	struct pair p;
	struct race r = { .p = &p, .produce = fe_produce, .consume = be_consume,
			  .arm = be_arm, .disarm = be_disarm };

	pair_open(&p, packed, event_idx, false);
	run_race(&r, what);
	pair_close(&p);
}

static void frontend_race(bool packed, bool event_idx, const char *what)
{
	struct pair p;
	struct race r = { .p = &p, .produce = be_produce, .consume = fe_consume,
			  .arm = fe_arm, .disarm = fe_disarm };

	pair_open(&p, packed, event_idx, true);
	run_race(&r, what);
	pair_close(&p);
}

static void test_backend_split(void **state)
{
	backend_race(false, false, "back-end, split (used NO_NOTIFY)");
}

static void test_backend_packed_desc(void **state)
{
	backend_race(true, true, "back-end, packed, EVENT_IDX (device area DESC)");
}

static void test_backend_packed_enable(void **state)
{
	backend_race(true, false, "back-end, packed (device area ENABLE)");
}

static void test_frontend_split(void **state)
{
	frontend_race(false, false, "front-end, split (avail NO_INTERRUPT)");
}

static void test_frontend_packed_desc(void **state)
{
	frontend_race(true, true, "front-end, packed, EVENT_IDX (driver area DESC)");
}

static void test_frontend_packed_enable(void **state)
{
	frontend_race(true, false, "front-end, packed (driver area ENABLE)");
}

/* A split driver with EVENT_IDX, played by hand over the guest memfd
 * (vh_testring.h): one buffer in flight, posted, published, and a kick
 * when the avail event index asks for it (virtio 1.1, 2.7.10). */
#define EI_BUF_OFF 0x10000

static int ei_produce(struct race *r, uint32_t seq, struct rte_mbuf *m)
{
	struct split_fx *f = (struct split_fx *)r->p;
	uint16_t head = (uint16_t)(seq % f->vq.size), old = r->drv_avail, ev;
	uint8_t *buf = f->g.va + EI_BUF_OFF + (size_t)head * 2048;

	/* the back-end returned the previous one (one in flight) */
	if (__atomic_load_n(&f->used->idx, __ATOMIC_ACQUIRE) != old)
		return 0;
	memset(buf, 0, 12 + LEN);
	memset(buf + 12, 0xff, 6);
	memcpy(buf + 12 + 14, &seq, sizeof(seq));
	f->d[head] = (struct vring_desc){ GUEST_GPA + EI_BUF_OFF + (uint64_t)head * 2048,
					  12 + LEN, 0, 0 };
	f->avail->ring[old % f->vq.size] = head;
	r->drv_avail = (uint16_t)(old + 1);
	__atomic_store_n(&f->avail->idx, r->drv_avail, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	ev = __atomic_load_n((volatile uint16_t *)(void *)&f->used->ring[f->vq.size],
			     __ATOMIC_RELAXED);
	if (vring_need_event(ev, r->drv_avail, old)) {
		uint64_t one = 1;

		assert_int_equal(write(f->vq.kickfd, &one, sizeof(one)), sizeof(one));
	}
	rte_pktmbuf_free(m);	/* its bytes were written by hand above */
	return 1;
}

static uint16_t ei_consume(struct race *r, struct rte_mbuf **pkts, uint16_t n)
{
	return vh_vq_dequeue(&((struct split_fx *)r->p)->vq, pkts, n);
}

static int ei_arm(struct race *r)
{
	return vh_vq_intr_arm(&((struct split_fx *)r->p)->vq);
}

static void ei_disarm(struct race *r)
{
	vh_vq_intr_disarm(&((struct split_fx *)r->p)->vq);
}

static void test_backend_split_event_idx(void **state)
{
	struct split_fx *f = calloc(1, sizeof(*f));
	struct race r = { .p = (struct pair *)f, .produce = ei_produce, .consume = ei_consume,
			  .arm = ei_arm, .disarm = ei_disarm };

	assert_non_null(f);
	assert_int_equal(split_fx_open(f, 16, 12, true, true, -1, pool), 0);
	f->vq.kickfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	assert_true(f->vq.kickfd >= 0);
	__atomic_store_n(&f->vq.ready, true, __ATOMIC_RELEASE);
	/* polling: the avail event sits half the index space away */
	{
		uint16_t ev;

		memcpy(&ev, &f->used->ring[16], sizeof(ev));
		assert_int_equal(ev, 0x8000);
	}
	run_race(&r, "back-end, split, EVENT_IDX (avail event)");
	close(f->vq.kickfd);
	vh_mem_unmap(&f->mem);
	guest_close(&f->g);
	free(f);
}

/* Never armed: a ring that is not running, a broken one, a front-end rx
 * ring with no buffer posted; and what arming writes, disarming undoes. */
static void test_not_armed(void **state)
{
	struct pair p;

	pair_open(&p, false, false, false);
	assert_int_equal(p.fq->vq.used->flags, VRING_USED_F_NO_NOTIFY);
	assert_int_equal(vh_vq_intr_arm(&p.vq), p.fq->kickfd);
	assert_int_equal(p.fq->vq.used->flags, 0);
	vh_vq_intr_disarm(&p.vq);
	assert_int_equal(p.fq->vq.used->flags, VRING_USED_F_NO_NOTIFY);
	__atomic_store_n(&p.vq.ready, false, __ATOMIC_RELEASE);
	assert_int_equal(vh_vq_intr_arm(&p.vq), -1);
	__atomic_store_n(&p.vq.ready, true, __ATOMIC_RELEASE);
	p.vq.dp_broken = true;
	assert_int_equal(vh_vq_intr_arm(&p.vq), -1);
	p.vq.dp_broken = false;
	p.vq.kickfd = -1;	/* a front-end that never kicks */
	assert_int_equal(vh_vq_intr_arm(&p.vq), -1);
	pair_close(&p);

	pair_open(&p, true, true, true);
	assert_int_equal(p.fq->pq.drv->flags, VRING_PACKED_EVENT_FLAG_DISABLE);
	assert_int_equal(vio_rx_intr_arm(p.fq), p.fq->callfd);
	assert_int_equal(p.fq->pq.drv->flags, VRING_PACKED_EVENT_FLAG_DESC);
	vio_rx_intr_disarm(p.fq);
	assert_int_equal(p.fq->pq.drv->flags, VRING_PACKED_EVENT_FLAG_DISABLE);
	vio_set_ready(p.fq, false);
	assert_int_equal(vio_rx_intr_arm(p.fq), -1);
	pair_close(&p);

	/* nothing posted: nothing can come */
	pair_open(&p, false, false, false);
	assert_int_equal(vio_rx_intr_arm(p.fq), -1);
	pair_close(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_armed),
		cmocka_unit_test(test_backend_split),
		cmocka_unit_test(test_backend_split_event_idx),
		cmocka_unit_test(test_backend_packed_desc),
		cmocka_unit_test(test_backend_packed_enable),
		cmocka_unit_test(test_frontend_split),
		cmocka_unit_test(test_frontend_packed_desc),
		cmocka_unit_test(test_frontend_packed_enable),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
