/* memif interface lifecycle on the control thread: configuration, the
 * client's shared memory, mapping the peer's memory on the server, and the
 * connect / teardown transitions that the data path depends on. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/vring_sync.h"
#include "memif.h"
#include "vf_log.h"
#include "vf_mem.h"
#include "vf_peermem.h"
#include "vf_secret.h"
#include "vf_sync.h"

const char *memif_state_name(enum memif_state st)
{
	switch (st) {
	case MEMIF_ST_STOPPED: return "stopped";
	case MEMIF_ST_LISTENING: return "listening";
	case MEMIF_ST_CONNECTING: return "connecting";
	case MEMIF_ST_HANDSHAKE: return "handshake";
	case MEMIF_ST_CONNECTED: return "connected";
	}
	return "?";
}

void memif_if_peer_event(struct memif_if *mif, enum vf_event_peer state,
			 const struct vf_peer *p, const char *why)
{
	char where[MEMIF_SOCK_NAME_MAX + 2];

	vf_peer_event(mif->port_id, mif->cfg.if_name, state, p,
		      memif_sock_str(where, sizeof(where), mif->cfg.socket, mif->cfg.abstract), why);
}

void memif_if_connect_failed(struct memif_if *mif, int err)
{
	char where[MEMIF_SOCK_NAME_MAX + 2];

	vf_event_reconnect(mif->port_id, mif->cfg.if_name, ++mif->connect_attempts,
			   memif_sock_str(where, sizeof(where), mif->cfg.socket, mif->cfg.abstract),
			   strerror(-err));
}

void memif_sock_refused(const struct memif_conn *c, const char *why)
{
	char where[MEMIF_SOCK_NAME_MAX + 2];

	vf_peer_event(c->asked ? c->asked->port_id : VF_EVENT_NO_PORT,
		      c->asked ? c->asked->cfg.if_name : NULL, VF_EV_PEER_REFUSED, &c->peer,
		      memif_sock_str(where, sizeof(where), c->sock->name, c->sock->abstract), why);
}

struct memif_if *memif_if_new(const struct memif_cfg *cfg)
{
	struct memif_if *mif = calloc(1, sizeof(*mif));
	size_t qbytes = sizeof(struct memif_queue) * MEMIF_MAX_QUEUES;

	if (mif == NULL)
		return NULL;
	mif->port_id = VF_EVENT_NO_PORT;
	mif->rxq = aligned_alloc(RTE_CACHE_LINE_SIZE, qbytes);
	mif->txq = aligned_alloc(RTE_CACHE_LINE_SIZE, qbytes);
	if (mif->rxq == NULL || mif->txq == NULL) {
		free(mif->rxq);
		free(mif->txq);
		free(mif);
		return NULL;
	}
	memset(mif->rxq, 0, qbytes);
	memset(mif->txq, 0, qbytes);
	mif->cfg = *cfg;
	for (unsigned int i = 0; i < MEMIF_MAX_QUEUES; i++) {
		mif->rxq[i].mif = mif;
		mif->rxq[i].qid = i;
		mif->rxq[i].intr_fd = -1;
		mif->txq[i].mif = mif;
		mif->txq[i].qid = i;
		mif->txq[i].intr_fd = -1;
		mif->c2s[i].fd = -1;
		mif->s2c[i].fd = -1;
	}
	for (unsigned int i = 0; i <= MEMIF_MAX_REGION; i++)
		mif->regions[i].fd = -1;
	__atomic_store_n(&mif->state, MEMIF_ST_STOPPED, __ATOMIC_RELEASE);
	mif->nb_rxq = mif->nb_txq = 1;
	return mif;
}

void memif_if_free(struct memif_if *mif)
{
	if (mif == NULL)
		return;
	memif_if_teardown(mif, NULL);
	vf_secret_clear(mif->cfg.secret, sizeof(mif->cfg.secret));
	free(mif->rxq);
	free(mif->txq);
	free(mif);
}

int memif_if_configure(struct memif_if *mif, uint16_t nb_rxq, uint16_t nb_txq,
		       struct rte_mempool *pool)
{
	if (nb_rxq == 0 || nb_txq == 0 || nb_rxq > MEMIF_MAX_QUEUES ||
	    nb_txq > MEMIF_MAX_QUEUES)
		return -EINVAL;
	mif->nb_rxq = nb_rxq;
	mif->nb_txq = nb_txq;
	mif->pool = pool;
	return 0;
}

/* Client, copy mode: region 0 = C2S rings, S2C rings, then one bsize
 * buffer per slot in ring order (the layout DPDK's client uses). */
/* Zero-copy: DPDK's memory as regions 1..k (the fds stay DPDK's). */
static int add_dpdk_regions(struct memif_if *mif)
{
	struct vf_mem_region regs[VF_MEM_MAX_REGIONS];
	int n = vf_mem_regions(regs, VF_MEM_MAX_REGIONS);

	if (n <= 0 || n > MEMIF_MAX_ZREGIONS)
		return -ENOTSUP;
	for (int i = 0; i < n; i++) {
		struct memif_region *r = &mif->regions[mif->nregions++];

		r->addr = (uint8_t *)regs[i].addr - regs[i].offset;
		r->map_off = regs[i].offset;
		r->size = regs[i].offset + regs[i].len;
		r->fd = regs[i].fd;
		r->owned = false;
		r->borrowed = true;
	}
	return 0;
}

int memif_if_build_regions(struct memif_if *mif)
{
	uint16_t nrings = mif->run_c2s + mif->run_s2c;
	size_t ring_bytes = memif_ring_bytes(mif->run_log2);
	uint32_t nslots = 1u << mif->run_log2;
	uint64_t bufs_off = RTE_ALIGN_CEIL((uint64_t)nrings * ring_bytes, 128);
	/* zero-copy: region 0 holds only the rings */
	uint64_t size = bufs_off + (mif->zc ? 0 : (uint64_t)nrings * nslots * mif->cfg.bsize);
	struct memif_region *r = &mif->regions[0];
	int fd;
	void *addr;

	if (size > UINT32_MAX) {
		/* Descriptor offsets are 32 bits. */
		VF_ERR("memif %s: %u rings of %u x %u bytes exceed 4 GiB",
		       mif->cfg.if_name, nrings, nslots, mif->cfg.bsize);
		return -E2BIG;
	}
	addr = vf_mem_shared_alloc(size, "memif", &fd);
	if (addr == NULL) {
		VF_ERR("memif %s: cannot allocate %" PRIu64 " bytes of shared memory: %s",
		       mif->cfg.if_name, size, strerror(errno));
		return -ENOMEM;
	}
	r->addr = addr;
	r->size = size;
	r->fd = fd;
	r->owned = true;
	r->borrowed = false;
	mif->nregions = 1;
	if (mif->zc && add_dpdk_regions(mif) < 0) {
		memif_if_teardown(mif, NULL);
		VF_ERR("memif %s: zero-copy: DPDK memory cannot be shared", mif->cfg.if_name);
		return -ENOTSUP;
	}

	for (uint16_t i = 0; i < nrings; i++) {
		bool c2s = i < mif->run_c2s;
		struct memif_ringinfo *ri = c2s ? &mif->c2s[i] : &mif->s2c[i - mif->run_c2s];
		struct memif_ring *ring = (struct memif_ring *)((uint8_t *)addr + i * ring_bytes);

		ri->region = 0;
		ri->offset = i * ring_bytes;
		ri->log2 = mif->run_log2;
		ri->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (ri->fd < 0) {
			int err = errno;

			memif_if_teardown(mif, NULL);
			VF_ERR("memif %s: eventfd: %s", mif->cfg.if_name, strerror(err));
			return -err;
		}
		ring->cookie = MEMIF_COOKIE;
		ring->flags = 0;
		ring->head = 0;
		ring->tail = 0;
		for (uint32_t s = 0; s < nslots && !mif->zc; s++) {
			ring->desc[s].region = 0;
			ring->desc[s].offset = bufs_off + ((uint64_t)i * nslots + s) * mif->cfg.bsize;
			ring->desc[s].length = mif->cfg.bsize;
			ring->desc[s].flags = 0;
		}
	}
	mif->n_c2s = mif->run_c2s;
	mif->n_s2c = mif->run_s2c;
	return 0;
}

/* Control thread: the client truncated one of its regions and a core (or
 * we) touched it; the region now reads zeros.  Drop the connection. */
static void region_fault(void *arg, void *addr)
{
	struct memif_if *mif = arg;

	(void)addr;
	mif->mem_faults++;
	mif->mem_fault = true;
	VF_WARN("memif %s: the peer truncated a shared region under us (SIGBUS); disconnecting",
		mif->cfg.if_name);
	if (mif->conn != NULL)
		mif->conn->drop(mif->conn, "Peer memory truncated");
	else
		memif_if_teardown(mif, "Peer memory truncated");
}

int memif_if_map_peer(struct memif_if *mif, char *reason, size_t len)
{
	for (uint16_t i = 0; i < mif->nregions; i++) {
		struct memif_region *r = &mif->regions[i];
		void *a = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
		int h;

		if (a == MAP_FAILED) {
			snprintf(reason, len, "Device error");
			VF_ERR("memif %s: mmap region %u (%" PRIu64 " bytes): %s",
			       mif->cfg.if_name, i, r->size, strerror(errno));
			return -1;
		}
		r->addr = a;
		/* From here a shrinking file is survived (vf_peermem.h). */
		h = vf_peermem_register(a, r->size, region_fault, mif);
		if (h < 0) {
			snprintf(reason, len, "Device error");
			VF_ERR("memif %s: region %u: cannot watch the mapping: %s",
			       mif->cfg.if_name, i, strerror(-h));
			return -1;
		}
		r->pm = h;
	}
	for (uint16_t i = 0; i < mif->n_c2s + mif->n_s2c; i++) {
		bool c2s = i < mif->n_c2s;
		const struct memif_ringinfo *ri = c2s ? &mif->c2s[i] : &mif->s2c[i - mif->n_c2s];
		const struct memif_ring *ring = (const struct memif_ring *)
			((const uint8_t *)mif->regions[ri->region].addr + ri->offset);

		if (ring->cookie != MEMIF_COOKIE) {
			snprintf(reason, len, "Wrong cookie on %s ring %u",
				 c2s ? "C2S" : "S2C", c2s ? i : i - mif->n_c2s);
			return -1;
		}
	}
	return 0;
}

static void queue_attach(struct memif_if *mif, struct memif_queue *q,
			 const struct memif_ringinfo *ri, bool rx)
{
	struct memif_region *r = &mif->regions[ri->region];
	uint16_t size = 1u << ri->log2;

	memif_queue_reset(q);
	q->ring = (struct memif_ring *)((uint8_t *)r->addr + ri->offset);
	q->size = size;
	q->mask = size - 1;
	q->intr_fd = ri->fd;
	q->regions = mif->regions;
	q->nregions = mif->nregions;
	q->region0 = mif->regions[0].addr;
	q->bsize = mif->cfg.bsize;
	/* Client copy mode: this ring's buffers follow the rings, in ring
	 * order (see memif_if_build_regions). */
	q->buf_base = q->ring->desc[0].offset;
	if (!mif->cfg.server) {
		uint16_t nrings = mif->run_c2s + mif->run_s2c;
		uint64_t bufs_off = RTE_ALIGN_CEIL((uint64_t)nrings *
						   memif_ring_bytes(ri->log2), 128);
		uint16_t ring_idx = ri->offset / memif_ring_bytes(ri->log2);

		q->buf_base = bufs_off + (uint64_t)ring_idx * size * mif->cfg.bsize;
	}
	if (mif->zc && !mif->cfg.server) {
		q->zc_mbufs = calloc(size, sizeof(*q->zc_mbufs));
		q->zc_freed = 0;
		q->nzr = 0;
		for (uint16_t i = 1; i < mif->nregions && q->nzr < MEMIF_MAX_ZREGIONS; i++) {
			const struct memif_region *zr = &mif->regions[i];
			struct memif_zregion *z = &q->zr[q->nzr++];

			z->index = i;
			z->base = (uintptr_t)zr->addr;
			z->lo = z->base + zr->map_off;
			z->hi = z->base + zr->size;
		}
	}
	q->pool = mif->pool;
	q->mbuf_room = mif->pool ? rte_pktmbuf_data_room_size(mif->pool) - RTE_PKTMBUF_HEADROOM : 0;
	/* We poll our receive rings: the peer need not signal us. */
	if (rx)
		__atomic_store_n(&q->ring->flags, MEMIF_RING_FLAG_MASK_INT, __ATOMIC_RELAXED);
}

void memif_if_connected(struct memif_if *mif)
{
	bool srv = mif->cfg.server;
	uint16_t nrx = srv ? mif->run_c2s : mif->run_s2c;
	uint16_t ntx = srv ? mif->run_s2c : mif->run_c2s;

	nrx = RTE_MIN(nrx, mif->nb_rxq);
	ntx = RTE_MIN(ntx, mif->nb_txq);
	for (uint16_t i = 0; i < nrx; i++)
		queue_attach(mif, &mif->rxq[i], srv ? &mif->c2s[i] : &mif->s2c[i], true);
	for (uint16_t i = 0; i < ntx; i++)
		queue_attach(mif, &mif->txq[i], srv ? &mif->s2c[i] : &mif->c2s[i], false);
	/* Client: give the server our receive buffers now, so that it can
	 * send as soon as it sees CONNECTED answered (DPDK's client posts
	 * them on its first poll instead). */
	if (!srv)
		for (uint16_t i = 0; i < nrx; i++) {
			if (mif->zc)
				memif_client_refill_zc(&mif->rxq[i]);
			else
				memif_client_refill(&mif->rxq[i]);
		}
	/* Release: everything above is visible to a core that reads ready. */
	for (uint16_t i = 0; i < nrx; i++)
		__atomic_store_n(&mif->rxq[i].ready, 1, __ATOMIC_RELEASE);
	for (uint16_t i = 0; i < ntx; i++)
		__atomic_store_n(&mif->txq[i].ready, 1, __ATOMIC_RELEASE);
	/* A core asleep (rx modes) on the rings of a connection before, or
	 * on none, arms these now, not at its sleep's timeout (up to 1 s:
	 * a short run of a new client went by unseen). */
	vf_sync_kick();
	__atomic_store_n(&mif->state, MEMIF_ST_CONNECTED, __ATOMIC_RELEASE);
	/* Release, paired with memif_link_get(): a core that sees the link
	 * up sees the rings above ready. */
	__atomic_store_n(&mif->link_up, true, __ATOMIC_RELEASE);
	mif->link_changes++;
	vf_event_link(mif->port_id, mif->cfg.if_name, true);
	mif->nb_connects++;
	mif->mem_fault = false;
	mif->reason[0] = '\0';
	VF_INFO("memif %s: connected (%s, id %u) to \"%s\" %s (pid %d uid %u gid %u): "
		"%u rx / %u tx rings of %u, %u region(s)",
		mif->cfg.if_name, srv ? "server" : "client", mif->cfg.id,
		mif->peer_name, mif->peer_if, (int)mif->peer.pid, (unsigned int)mif->peer.uid,
		(unsigned int)mif->peer.gid, nrx, ntx, 1u << mif->run_log2, mif->nregions);
}

#define DRAIN_IDLE_US	20000	/* give up after this long without progress */
#define DRAIN_MAX_US	500000

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void memif_if_drain(struct memif_if *mif)
{
	uint16_t target[MEMIF_MAX_QUEUES], seen[MEMIF_MAX_QUEUES];
	uint64_t start = now_us(), progress = start, left = 0;
	bool any = false;

	if (mif->mem_fault)
		return;
	for (unsigned int i = 0; i < MEMIF_MAX_QUEUES; i++) {
		struct memif_queue *q = &mif->rxq[i];
		uint16_t last = __atomic_load_n(&q->last, __ATOMIC_RELAXED);

		target[i] = seen[i] = last;
		if (!__atomic_load_n(&q->ready, __ATOMIC_ACQUIRE) ||
		    __atomic_load_n(&q->broken, __ATOMIC_RELAXED) || q->ring == NULL)
			continue;
		/* What the peer published: server rx reads the client's
		 * head, client rx the server's tail. */
		uint16_t prod = mif->cfg.server ? vf_load_acq16(&q->ring->head)
						: vf_load_acq16(&q->ring->tail);

		if ((uint16_t)(prod - last) <= q->size) {
			target[i] = prod;
			any |= prod != last;
		}
	}
	while (any) {
		uint64_t t;

		any = false;
		for (unsigned int i = 0; i < MEMIF_MAX_QUEUES; i++) {
			struct memif_queue *q = &mif->rxq[i];
			uint16_t last = __atomic_load_n(&q->last, __ATOMIC_RELAXED);

			if (last == target[i] || __atomic_load_n(&q->broken, __ATOMIC_RELAXED))
				continue;
			if (last != seen[i]) {
				seen[i] = last;
				progress = now_us();
			}
			any = true;
		}
		t = now_us();
		if (!any || t - progress > DRAIN_IDLE_US || t - start > DRAIN_MAX_US)
			break;
		usleep(50);
	}
	for (unsigned int i = 0; i < MEMIF_MAX_QUEUES; i++) {
		struct memif_queue *q = &mif->rxq[i];
		uint16_t n = target[i] - __atomic_load_n(&q->last, __ATOMIC_RELAXED);

		if (n <= q->size) {
			vf_ctr_add(q->undelivered, n);
			left += n;
		}
	}
	if (left)
		VF_WARN("memif %s: %" PRIu64 " packet(s) the peer had sent were not taken in time and are dropped (rx_dropped_disconnect)",
			mif->cfg.if_name, left);
}

void memif_if_teardown(struct memif_if *mif, const char *reason)
{
	bool any = false;

	for (unsigned int i = 0; i < MEMIF_MAX_QUEUES; i++) {
		any |= mif->rxq[i].ready | mif->txq[i].ready;
		__atomic_store_n(&mif->rxq[i].ready, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&mif->txq[i].ready, 0, __ATOMIC_RELEASE);
	}
	/* No core may still be inside a burst on the old rings once this
	 * returns; only then is the memory unmapped. */
	if (any)
		vf_sync_wait();
	for (unsigned int i = 0; i < MEMIF_MAX_QUEUES; i++) {
		/* Zero-copy: the mbufs still posted or in flight come back. */
		memif_queue_reclaim(&mif->rxq[i]);
		memif_queue_reclaim(&mif->txq[i]);
		free(mif->rxq[i].zc_mbufs);
		free(mif->txq[i].zc_mbufs);
		mif->rxq[i].zc_mbufs = mif->txq[i].zc_mbufs = NULL;
		mif->rxq[i].ring = NULL;
		mif->txq[i].ring = NULL;
		mif->rxq[i].intr_fd = -1;
		mif->txq[i].intr_fd = -1;
		if (mif->c2s[i].fd >= 0)
			close(mif->c2s[i].fd);
		if (mif->s2c[i].fd >= 0)
			close(mif->s2c[i].fd);
		mif->c2s[i].fd = -1;
		mif->s2c[i].fd = -1;
	}
	for (uint16_t i = 0; i < mif->nregions; i++) {
		struct memif_region *r = &mif->regions[i];

		if (r->borrowed) {
			/* DPDK's memory and fd: nothing to release */
		} else if (r->owned) {
			vf_mem_shared_free(r->addr, r->size, r->fd);
		} else {
			vf_peermem_unregister(r->pm);
			r->pm = 0;
			if (r->addr != NULL)
				munmap(r->addr, r->size);
			close(r->fd);
		}
		r->addr = NULL;
		r->fd = -1;
		r->borrowed = false;
	}
	mif->nregions = 0;
	mif->n_c2s = mif->n_s2c = 0;
	/* A core asleep on the interrupt fds closed above would sleep on them
	 * until its timeout: it looks again, finds no peer and naps short. */
	if (any)
		vf_sync_kick();
	if (mif->link_up) {
		__atomic_store_n(&mif->link_up, false, __ATOMIC_RELAXED);
		mif->link_changes++;
		vf_event_link(mif->port_id, mif->cfg.if_name, false);
		mif->nb_disconnects++;
	}
	if (reason != NULL)
		snprintf(mif->reason, sizeof(mif->reason), "%s", reason);
	if (!mif->enabled)
		__atomic_store_n(&mif->state, MEMIF_ST_STOPPED, __ATOMIC_RELEASE);
	else
		__atomic_store_n(&mif->state, mif->cfg.server ? MEMIF_ST_LISTENING : MEMIF_ST_CONNECTING, __ATOMIC_RELEASE);
}
