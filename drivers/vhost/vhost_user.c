/* vhost-user protocol, device side: one table says, per request, the
 * payload sizes and fds it may carry and whether it has a reply; the
 * handlers then only do the work (protocols.md §1, pitfalls 1-10, 18-19;
 * hardening.md A). */
#include "vhost_dev.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "vf_log.h"
#include "vf_peermem.h"
#include "vf_sync.h"
#include "vhost_announce.h"

enum fd_rule { FDS_NONE, FDS_VRING, FDS_MEM, FDS_ONE };

struct vh_ctx {
	struct vh_dev *dev;
	const struct vhost_user_msg *msg;
	int *fds;
	unsigned int nfds;
	struct vhost_user_msg *reply;
	uint32_t reply_size;		/* payload bytes of the reply */
	struct vh_vq *vq;		/* the ring the request names, if any */
};

struct vh_req {
	int (*fn)(struct vh_ctx *c);
	uint16_t min_size, max_size;	/* payload bytes */
	uint8_t fds;			/* enum fd_rule */
	bool reply;			/* has a reply of its own */
	uint8_t vring;			/* 1: payload starts with u32 index,
					 * 2: u64 index | NOFD (KICK/CALL/ERR) */
};

static int reject(struct vh_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int reject(struct vh_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->dev->last_error, sizeof(c->dev->last_error), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void reply_u64(struct vh_ctx *c, uint64_t v)
{
	c->reply->p.u64 = v;
	c->reply_size = sizeof(uint64_t);
}

/* Takes fds[i] out of the message so the common code does not close it. */
static int take_fd(struct vh_ctx *c, unsigned int i)
{
	int fd = c->fds[i];

	c->fds[i] = -1;
	return fd;
}

static bool any_ready(const struct vh_dev *dev)
{
	for (unsigned int i = 0; i < 2u * dev->nb_qp; i++)
		if (dev->vq[i].ready)
			return true;
	return false;
}

static bool drains(const struct vh_dev *dev, const struct vh_vq *vq, int only)
{
	/* Odd rings are the front-end's transmit rings: we dequeue them. */
	return (vq->idx & 1) && (only < 0 || (unsigned int)only == vq->idx) &&
	       __atomic_load_n(&vq->ready, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&vq->dp_broken, __ATOMIC_RELAXED);
}

/* The front-end stopped publishing (it says so by the request that stops
 * the ring, or by leaving): the forwarding cores take what is already
 * there before the ring stops (vf_sync_drain: each ring's core confirms
 * it found the ring empty after the request). */
void vh_dev_drain(struct vh_dev *dev, int only)
{
	struct vf_drain_ring r[VH_MAX_VRINGS];
	unsigned int n = 0;

	if (dev->drain_max_us == 0)
		return;
	for (unsigned int i = 1; i < 2u * dev->nb_qp; i += 2) {
		struct vh_vq *vq = &dev->vq[i];

		if (drains(dev, vq, only))
			r[n++] = (struct vf_drain_ring){
				&vq->drain_req, &vq->drain_ack,
				{ &vq->st.packets, &vq->st.nombuf, &vq->st.bad_packet },
				&vq->dp_broken };
	}
	if (n)
		dev->drain_unfinished += vf_sync_drain(r, n, dev->drain_max_us);
}

/* Marks rings not ready and waits until no forwarding core is inside a
 * burst on them: after this, ring memory and fds may change.  With drain,
 * the cores first take what the front-end already published. */
static void stop_rings(struct vh_dev *dev, int only, bool drain)
{
	bool wait = false;

	if (drain)
		vh_dev_drain(dev, only);
	for (unsigned int i = 0; i < 2u * dev->nb_qp; i++) {
		struct vh_vq *vq = &dev->vq[i];

		if ((only < 0 || (unsigned int)only == i) && vq->ready) {
			__atomic_store_n(&vq->ready, false, __ATOMIC_RELEASE);
			wait = true;
		}
	}
	if (wait)
		vf_sync_wait();
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ---- handlers --------------------------------------------------------- */

static int h_get_features(struct vh_ctx *c)
{
	reply_u64(c, VH_FEATURES | c->dev->ol_offer);
	return 0;
}

static int h_set_features(struct vh_ctx *c)
{
	struct vh_dev *dev = c->dev;
	uint64_t f = c->msg->p.u64;

	if (f & ~(VH_FEATURES | dev->ol_offer))
		return reject(c, "SET_FEATURES 0x%llx has bits we did not offer",
			      (unsigned long long)f);
	bool running = any_ready(dev);

	/* QEMU turns dirty logging on and off under running rings; nothing
	 * else may change then. */
	if (dev->features_set && ((f ^ dev->features) & ~(1ull << VHOST_F_LOG_ALL)) &&
	    running)
		return reject(c, "features changed while rings run");
	running = running && dev->features_set;
	dev->features = f;
	dev->features_set = true;
	/* Under running rings the per-ring copies below are what they were
	 * (only LOG_ALL changed, vh_log_update() handles it): not rewritten
	 * under the cores that read them. */
	for (unsigned int i = 0; !running && i < 2u * dev->nb_qp; i++) {
		struct vh_vq *vq = &dev->vq[i];

		vq->event_idx = f & (1ull << VIRTIO_RING_F_EVENT_IDX);
		vq->mrg_rxbuf = f & (1ull << VIRTIO_NET_F_MRG_RXBUF);
		vq->in_order = f & (1ull << VIRTIO_F_IN_ORDER);
		/* Relaxed: no ring is ready here, and vh_vq_dequeue/enqueue
		 * read it only after their acquire of ready, which the ring's
		 * start releases after this. */
		__atomic_store_n(&vq->packed, !!(f & (1ull << VIRTIO_F_RING_PACKED)),
				 __ATOMIC_RELAXED);
		vh_ol_set_features(vq, f);
		vq->hdr_len = (f & ((1ull << VIRTIO_NET_F_MRG_RXBUF) |
				    (1ull << VIRTIO_F_VERSION_1))) ? 12 : 10;
		/* Without bit 30 rings are enabled from the start; never
		 * disable them here (pitfall 6). */
		if (!(f & (1ull << VHOST_USER_F_PROTOCOL_FEATURES)))
			vq->enabled = true;
	}
	if ((f & (1ull << VHOST_F_LOG_ALL)) && !dev->log)
		VF_WARN("%s: dirty logging on without SET_LOG_BASE: written pages are "
			"counted in log_miss, not logged", dev->name);
	vh_log_update(dev);
	return 0;
}

static int h_nop(struct vh_ctx *c)
{
	return 0;
}

static int h_reset_owner(struct vh_ctx *c)
{
	stop_rings(c->dev, -1, true);
	return 0;
}

/* Control thread: the front-end truncated its memory under us; a core
 * touched it and now reads zeros there.  The connection goes. */
static void mem_fault(void *arg, void *addr)
{
	struct vh_dev *dev = arg;

	(void)addr;
	dev->mem_faults++;
	snprintf(dev->last_error, sizeof(dev->last_error),
		 "front-end memory truncated under us (SIGBUS)");
	VF_WARN("%s: %s; closing the connection", dev->name, dev->last_error);
	if (dev->drop != NULL)
		dev->drop(dev, "memory truncated");
	else
		vh_dev_disconnect(dev);
}

static int h_set_mem_table(struct vh_ctx *c)
{
	struct vh_dev *dev = c->dev;
	struct vh_mem fresh;
	char why[96];

	if (vh_mem_map(&fresh, &c->msg->p.mem, c->msg->hdr.size, c->fds, c->nfds,
		       why, sizeof(why)) != 0)
		return reject(c, "SET_MEM_TABLE: %s", why);
	/* The old mapping goes only after no core can be reading it; what
	 * the front-end published in it is taken first. */
	stop_rings(dev, -1, true);
	vh_mem_unmap(&dev->mem);
	dev->mem = fresh;
	dev->mem_unsealed = false;
	for (uint32_t i = 0; i < dev->mem.nregions; i++)
		dev->mem_unsealed |= !dev->mem.r[i].sealed;
	if (vh_mem_watch(&dev->mem, mem_fault, dev) != 0) {
		vh_mem_unmap(&dev->mem);
		return reject(c, "SET_MEM_TABLE: cannot watch the mappings");
	}
	/* QEMU grows the log before the table; pages past it are counted. */
	if (dev->log && dev->log->size < vh_log_need(&dev->mem))
		VF_WARN("%s: the dirty log (%llu bytes) does not cover the new memory table "
			"(%llu bytes needed): pages past it are counted in log_miss_pages",
			dev->name, (unsigned long long)dev->log->size,
			(unsigned long long)vh_log_need(&dev->mem));
	for (unsigned int i = 0; i < 2u * dev->nb_qp; i++) {
		struct vh_vq *vq = &dev->vq[i];
		const char *w;

		vq->desc = NULL;
		vq->avail = NULL;
		vq->used = NULL;
		vq->pdesc = NULL;
		vq->drv_ev = vq->dev_ev = NULL;
		if (vq->addr_ok && vh_vq_map(vq, &dev->mem, &w) != 0) {
			vq->addr_ok = false;
			VF_WARN("%s: vring %u: %s after SET_MEM_TABLE", dev->name, i, w);
		}
	}
	return 0;	/* the common code closes the fds; the mappings stay */
}

static int h_set_vring_num(struct vh_ctx *c)
{
	uint32_t num = c->msg->p.state.num;

	if (c->vq->ready)
		return reject(c, "SET_VRING_NUM on running vring %u", c->vq->idx);
	if (num == 0 || num > 32768 || (num & (num - 1)))
		return reject(c, "SET_VRING_NUM %u: not a power of two in 1..32768", num);
	c->vq->size = (uint16_t)num;
	c->vq->mask = (uint16_t)(num - 1);
	c->vq->num_set = true;
	c->vq->addr_ok = false;	/* lengths changed: check the addresses again */
	return 0;
}

/* Where the split used ring is marked in the dirty log: the address the
 * front-end gave for it, else ours translated back. */
static void set_log_addr(struct vh_vq *vq)
{
	uint64_t gpa = (vq->addr.flags & (1u << VHOST_VRING_F_LOG)) ?
		vq->addr.log_guest_addr : VH_LOG_NO_GPA;

	__atomic_store_n(&vq->log_used_gpa, gpa, __ATOMIC_RELAXED);
}

static int h_set_vring_addr(struct vh_ctx *c)
{
	struct vh_vq *vq = c->vq;
	const char *why;
	struct vhost_vring_addr na = c->msg->p.addr, *a = &na;

	if (vq->ready) {
		/* Logging on/off (VHOST_VRING_F_LOG) under a running ring:
		 * the rings stay where they are. */
		if (a->desc_user_addr != vq->addr.desc_user_addr ||
		    a->avail_user_addr != vq->addr.avail_user_addr ||
		    a->used_user_addr != vq->addr.used_user_addr)
			return reject(c, "SET_VRING_ADDR moves running vring %u", vq->idx);
		vq->addr.flags = a->flags;
		vq->addr.log_guest_addr = a->log_guest_addr;
		set_log_addr(vq);
		return 0;
	}
	if (!c->dev->mem.nregions)
		return reject(c, "SET_VRING_ADDR before SET_MEM_TABLE");
	if (!vq->num_set)
		return reject(c, "SET_VRING_ADDR before SET_VRING_NUM");
	vq->addr = c->msg->p.addr;
	if (vh_vq_map(vq, &c->dev->mem, &why) != 0) {
		vq->addr_ok = false;
		return reject(c, "SET_VRING_ADDR vring %u: %s", vq->idx, why);
	}
	vq->addr_ok = true;
	set_log_addr(vq);
	return 0;
}

static int h_set_vring_base(struct vh_ctx *c)
{
	if (c->vq->ready)
		return reject(c, "SET_VRING_BASE on running vring %u", c->vq->idx);
	uint32_t num = c->msg->p.state.num;

	if (c->dev->features & (1ull << VIRTIO_F_RING_PACKED)) {
		/* packed: bits 0-14 avail slot, bit 15 its wrap counter; the
		 * used position restarts there (§1.3, pitfall 11): bits 16-31
		 * (QEMU's used slot and wrap) are the same for a back-end
		 * that returned every buffer it took, and DPDK sends 0 */
		c->vq->last_avail = num & 0x7fff;
		c->vq->avail_wrap = num & 0x8000;
		c->vq->last_used = c->vq->last_avail;
		c->vq->used_wrap = c->vq->avail_wrap;
		return 0;
	}
	/* split: bits 0-15 are the next avail index (§1.3) */
	c->vq->last_avail = (uint16_t)num;
	return 0;
}

static int h_get_vring_base(struct vh_ctx *c)
{
	struct vh_vq *vq = c->vq;

	/* Takes what the front-end already put in the ring, then stops it;
	 * the index is reported as it was (pitfall 9). */
	stop_rings(c->dev, vq->idx, true);
	c->reply->p.state.index = vq->idx;
	/* packed: bits 0-14 avail slot, 15 its wrap counter, 16-30 used
	 * slot, 31 its wrap counter (QEMU reads all four) */
	c->reply->p.state.num = vq->packed ?
		(uint32_t)(vq->last_avail | (vq->avail_wrap ? 0x8000u : 0)) |
		((uint32_t)vq->last_used << 16) | (vq->used_wrap ? 0x80000000u : 0) :
		vq->last_avail;
	c->reply_size = sizeof(struct vhost_vring_state);
	close_fd(&vq->kickfd);
	int old = __atomic_exchange_n(&vq->callfd, -1, __ATOMIC_ACQ_REL);
	close_fd(&old);
	vq->kick_set = false;
	vq->call_set = false;
	return 0;
}

static int h_set_vring_kick(struct vh_ctx *c)
{
	struct vh_vq *vq = c->vq;

	close_fd(&vq->kickfd);
	if (c->nfds)
		vq->kickfd = take_fd(c, 0);	/* we poll: kept, never read */
	vq->kick_set = true;
	if (!(c->dev->features & (1ull << VHOST_USER_F_PROTOCOL_FEATURES)))
		vq->enabled = true;
	return 0;
}

/* The data path writes the call fd: it must be an eventfd, and must never
 * block (a pipe from a hostile peer would stall a forwarding core). */
static bool usable_eventfd(int fd)
{
	char path[64], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = '\0';
	if (strcmp(link, "anon_inode:[eventfd]") != 0)
		return false;
	int fl = fcntl(fd, F_GETFL);
	return fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0;
}

static int h_set_vring_call(struct vh_ctx *c)
{
	struct vh_vq *vq = c->vq;

	if (c->nfds && !usable_eventfd(c->fds[0]))
		return reject(c, "SET_VRING_CALL vring %u: the fd is not an eventfd", vq->idx);

	int fd = c->nfds ? take_fd(c, 0) : -1;
	int old = __atomic_exchange_n(&vq->callfd, fd, __ATOMIC_ACQ_REL);

	/* A core may be about to write the old fd: close it only after
	 * every core has left its burst, or the write could hit a reused
	 * fd number. */
	if (old >= 0) {
		if (vq->ready)
			vf_sync_wait();
		close(old);
	}
	vq->call_set = true;
	return 0;
}

static int h_set_vring_err(struct vh_ctx *c)
{
	return 0;	/* we never signal errors that way; the fd is closed */
}

/* The dirty log QEMU shares for migration (LOG_SHMFD): replaced as a
 * whole; the reply is a bare header (QEMU waits for it). */
static int h_set_log_base(struct vh_ctx *c)
{
	struct vh_dev *dev = c->dev;
	struct vhost_user_log lg = c->msg->p.log, *lp = &lg;
	struct vh_log *fresh, *old;
	char why[160];
	int rc;

	rc = vh_log_map(&fresh, c->fds[0], lp->mmap_size, lp->mmap_offset, &dev->mem,
			why, sizeof(why));
	if (rc)
		return reject(c, "SET_LOG_BASE: %s", why);
	rc = vf_peermem_register(fresh->map_base, fresh->map_len, mem_fault, dev);
	if (rc < 0) {
		vh_log_free(fresh);
		return reject(c, "SET_LOG_BASE: cannot watch the mapping");
	}
	fresh->pm = rc;
	old = dev->log;
	dev->log = fresh;
	vh_log_update(dev);	/* no core uses the old one after this */
	vh_log_free(old);
	dev->log_bases++;
	c->reply_size = 0;
	return 0;
}

static int h_send_rarp(struct vh_ctx *c)
{
	uint8_t mac[8];

	memcpy(mac, &c->msg->p.u64, sizeof(mac));
	if (mac[0] & 1)
		return reject(c, "SEND_RARP for a multicast MAC");
	c->dev->rarp_requests++;
	VF_INFO("%s: announcing %02x:%02x:%02x:%02x:%02x:%02x (SEND_RARP)", c->dev->name,
		mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	vh_rarp_request(&c->dev->vq[1], mac);
	return 0;
}

static int h_get_protocol_features(struct vh_ctx *c)
{
	reply_u64(c, VH_PROTOCOL_FEATURES);
	return 0;
}

static int h_set_protocol_features(struct vh_ctx *c)
{
	uint64_t f = c->msg->p.u64;

	if (f & ~VH_PROTOCOL_FEATURES)
		return reject(c, "SET_PROTOCOL_FEATURES 0x%llx has bits we did not offer",
			      (unsigned long long)f);
	c->dev->protocol_features = f;
	return 0;
}

static int h_get_queue_num(struct vh_ctx *c)
{
	reply_u64(c, c->dev->nb_qp);
	return 0;
}

static int h_set_vring_enable(struct vh_ctx *c)
{
	uint32_t num = c->msg->p.state.num;

	if (num > 1)
		return reject(c, "SET_VRING_ENABLE %u", num);
	c->vq->enabled = num;
	return 0;
}

static int h_set_status(struct vh_ctx *c)
{
	uint64_t s = c->msg->p.u64;

	if (s > 0xff)
		return reject(c, "SET_STATUS 0x%llx", (unsigned long long)s);
	c->dev->status = (uint8_t)s;
	return 0;
}

static int h_get_status(struct vh_ctx *c)
{
	reply_u64(c, c->dev->status);
	return 0;
}

#define U64 sizeof(uint64_t)
#define STATE sizeof(struct vhost_vring_state)
#define ADDR sizeof(struct vhost_vring_addr)

static const struct vh_req reqs[VHOST_USER_MAX] = {
	[VHOST_USER_GET_FEATURES] = { h_get_features, 0, U64, FDS_NONE, true, 0 },
	[VHOST_USER_SET_FEATURES] = { h_set_features, U64, U64, FDS_NONE, false, 0 },
	[VHOST_USER_SET_OWNER] = { h_nop, 0, U64, FDS_NONE, false, 0 },
	[VHOST_USER_RESET_OWNER] = { h_reset_owner, 0, U64, FDS_NONE, false, 0 },
	[VHOST_USER_SET_MEM_TABLE] = { h_set_mem_table, 8,
		sizeof(struct vhost_user_mem_table), FDS_MEM, false, 0 },
	[VHOST_USER_SET_VRING_NUM] = { h_set_vring_num, STATE, STATE, FDS_NONE, false, 1 },
	[VHOST_USER_SET_VRING_ADDR] = { h_set_vring_addr, ADDR, ADDR, FDS_NONE, false, 1 },
	[VHOST_USER_SET_VRING_BASE] = { h_set_vring_base, STATE, STATE, FDS_NONE, false, 1 },
	[VHOST_USER_GET_VRING_BASE] = { h_get_vring_base, STATE, STATE, FDS_NONE, true, 1 },
	[VHOST_USER_SET_VRING_KICK] = { h_set_vring_kick, U64, U64, FDS_VRING, false, 2 },
	[VHOST_USER_SET_VRING_CALL] = { h_set_vring_call, U64, U64, FDS_VRING, false, 2 },
	[VHOST_USER_SET_VRING_ERR] = { h_set_vring_err, U64, U64, FDS_VRING, false, 2 },
	[VHOST_USER_GET_PROTOCOL_FEATURES] = { h_get_protocol_features, 0, U64,
		FDS_NONE, true, 0 },
	[VHOST_USER_SET_PROTOCOL_FEATURES] = { h_set_protocol_features, U64, U64,
		FDS_NONE, false, 0 },
	[VHOST_USER_GET_QUEUE_NUM] = { h_get_queue_num, 0, U64, FDS_NONE, true, 0 },
	[VHOST_USER_SET_VRING_ENABLE] = { h_set_vring_enable, STATE, STATE, FDS_NONE, false, 1 },
	[VHOST_USER_SET_STATUS] = { h_set_status, U64, U64, FDS_NONE, false, 0 },
	[VHOST_USER_GET_STATUS] = { h_get_status, 0, U64, FDS_NONE, true, 0 },
	[VHOST_USER_SET_LOG_BASE] = { h_set_log_base, sizeof(struct vhost_user_log),
		sizeof(struct vhost_user_log), FDS_ONE, true, 0 },
	[VHOST_USER_SEND_RARP] = { h_send_rarp, U64, U64, FDS_NONE, false, 0 },
};

/* Requests that only exist once a protocol feature was negotiated. */
static bool allowed(const struct vh_dev *dev, uint32_t req)
{
	switch (req) {
	case VHOST_USER_GET_QUEUE_NUM:
		return dev->protocol_features & (1ull << VHOST_USER_PROTOCOL_F_MQ);
	case VHOST_USER_SET_STATUS:
	case VHOST_USER_GET_STATUS:
		return dev->protocol_features & (1ull << VHOST_USER_PROTOCOL_F_STATUS);
	case VHOST_USER_SET_LOG_BASE:	/* a bare address means nothing to us */
		return dev->protocol_features & (1ull << VHOST_USER_PROTOCOL_F_LOG_SHMFD);
	case VHOST_USER_SEND_RARP:
		return dev->protocol_features & (1ull << VHOST_USER_PROTOCOL_F_RARP);
	default:
		return true;
	}
}

static int check_and_dispatch(struct vh_ctx *c, uint32_t len)
{
	const struct vhost_user_msg *m = c->msg;
	uint32_t req = m->hdr.request, size = m->hdr.size;
	const struct vh_req *r;
	unsigned int want_fds = 0;

	if (len < VHOST_USER_HDR_SIZE || size > VHOST_USER_PAYLOAD_MAX ||
	    len - VHOST_USER_HDR_SIZE != size)
		return reject(c, "message of %u bytes declares %u payload bytes", len, size);
	if ((m->hdr.flags & VHOST_USER_VERSION_MASK) != VHOST_USER_VERSION ||
	    (m->hdr.flags & VHOST_USER_F_REPLY))
		return reject(c, "%s with flags 0x%x", vhost_user_request_name(req),
			      m->hdr.flags);
	r = req < VHOST_USER_MAX ? &reqs[req] : NULL;
	if (!r || !r->fn || !allowed(c->dev, req))
		return reject(c, "unsupported request %u (%s)", req,
			      vhost_user_request_name(req));
	if (size < r->min_size || size > r->max_size)
		return reject(c, "%s with %u payload bytes", vhost_user_request_name(req), size);

	if (r->vring) {
		/* Full width before narrowing (hardening.md A3). */
		uint64_t idx = r->vring == 1 ? m->p.state.index : m->p.u64;

		if (r->vring == 2) {
			if (idx & ~(uint64_t)(VHOST_USER_VRING_IDX_MASK |
					      VHOST_USER_VRING_NOFD_MASK))
				return reject(c, "%s payload 0x%llx",
					      vhost_user_request_name(req),
					      (unsigned long long)idx);
			want_fds = (idx & VHOST_USER_VRING_NOFD_MASK) ? 0 : 1;
			idx &= VHOST_USER_VRING_IDX_MASK;
		}
		if (idx >= 2u * c->dev->nb_qp)
			return reject(c, "%s for vring %llu of %u",
				      vhost_user_request_name(req),
				      (unsigned long long)idx, 2u * c->dev->nb_qp);
		c->vq = &c->dev->vq[idx];
	}
	if (r->fds == FDS_MEM)
		want_fds = c->nfds;	/* vh_mem_map checks it against nregions */
	else if (r->fds == FDS_ONE)
		want_fds = 1;
	if (c->nfds != want_fds)
		return reject(c, "%s with %u fds", vhost_user_request_name(req), c->nfds);
	return r->fn(c);
}

int vh_user_handle(struct vh_dev *dev, const struct vhost_user_msg *msg, uint32_t len,
		   int *fds, unsigned int nfds, struct vhost_user_msg *reply,
		   uint32_t *reply_len)
{
	struct vh_ctx c = {
		.dev = dev, .msg = msg, .fds = fds, .nfds = nfds, .reply = reply,
	};
	uint32_t req = len >= VHOST_USER_HDR_SIZE ? msg->hdr.request : 0;
	bool natural = req < VHOST_USER_MAX && reqs[req].fn && reqs[req].reply;
	int rc;

	*reply_len = 0;
	memset(reply, 0, sizeof(*reply));
	rc = check_and_dispatch(&c, len);
	/* Every fd a handler did not take is closed, error or not (A2). */
	for (unsigned int i = 0; i < nfds; i++)
		close_fd(&fds[i]);
	if (rc) {
		dev->ctl_rejects++;
		return rc;
	}
	vh_dev_update(dev);
	if (natural) {
		/* the handler filled the payload and c.reply_size */
	} else if ((msg->hdr.flags & VHOST_USER_F_NEED_REPLY) &&
		   (dev->protocol_features & (1ull << VHOST_USER_PROTOCOL_F_REPLY_ACK))) {
		/* REPLY_ACK: u64 0 = success (pitfall 2); errors close instead. */
		reply_u64(&c, 0);
	} else {
		return 0;
	}
	reply->hdr.request = req;
	reply->hdr.flags = VHOST_USER_REPLY_FLAGS;	/* exactly 0x5 (pitfall 1) */
	reply->hdr.size = c.reply_size;
	*reply_len = VHOST_USER_HDR_SIZE + c.reply_size;
	return 0;
}

void vh_rxmsg_reset(struct vh_rxmsg *rx, bool close_fds)
{
	for (unsigned int i = 0; close_fds && i < rx->nfds; i++)
		close(rx->fds[i]);
	rx->nfds = 0;
	rx->got = 0;
}

static int rx_fail(struct vh_rxmsg *rx, int rc)
{
	vh_rxmsg_reset(rx, true);
	return rc;
}

int vh_user_recv(int fd, struct vh_rxmsg *rx)
{
	union {
		char buf[CMSG_SPACE(VHOST_USER_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} cbuf;
	uint8_t *base = (uint8_t *)&rx->msg;
	ssize_t n;

	if (rx->got < VHOST_USER_HDR_SIZE) {
		struct iovec iov = { .iov_base = base + rx->got,
				     .iov_len = VHOST_USER_HDR_SIZE - rx->got };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf.buf, .msg_controllen = sizeof(cbuf.buf),
		};

		do {
			n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		} while (n < 0 && errno == EINTR);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		/* Harvest every fd first, so that all of them are closed on error. */
		for (struct cmsghdr *cm = n >= 0 ? CMSG_FIRSTHDR(&mh) : NULL; cm;
		     cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
				continue;
			unsigned int k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (unsigned int i = 0; i < k; i++) {
				int f;

				memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
				if (rx->nfds < VHOST_USER_MAX_FDS)
					rx->fds[rx->nfds++] = f;
				else
					close(f);
			}
		}
		if (n < 0)
			return rx_fail(rx, -errno);
		if (n == 0)
			return rx_fail(rx, rx->got ? -EPROTO : -ECONNRESET);
		if (mh.msg_flags & MSG_CTRUNC)
			return rx_fail(rx, -EPROTO);
		rx->got += (uint32_t)n;
		if (rx->got < VHOST_USER_HDR_SIZE)
			return 0;
		if (rx->msg.hdr.size > VHOST_USER_PAYLOAD_MAX)
			return rx_fail(rx, -EPROTO);
	}
	while (rx->got < VHOST_USER_HDR_SIZE + rx->msg.hdr.size) {
		n = recv(fd, base + rx->got, VHOST_USER_HDR_SIZE + rx->msg.hdr.size - rx->got,
			 MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return rx_fail(rx, -EPROTO);	/* EOF inside a message */
		rx->got += (uint32_t)n;
	}
	return 1;
}

/* ---- device state ----------------------------------------------------- */

void vh_log_update(struct vh_dev *dev)
{
	const struct vh_log *want = NULL;
	bool changed = false, running = false;

	if (dev->features & (1ull << VHOST_F_LOG_ALL))
		want = dev->log ? dev->log : &vh_log_none;
	for (unsigned int i = 0; i < VH_MAX_VRINGS; i++) {
		struct vh_vq *vq = &dev->vq[i];

		if (vq->dirty_log == want)
			continue;
		__atomic_store_n(&vq->dirty_log, want, __ATOMIC_RELEASE);
		changed = true;
		running |= vq->ready;
	}
	/* A burst that read the old pointer ends before the caller goes on:
	 * the old log may then be unmapped, and a front-end that enabled
	 * logging knows every write from here on is marked. */
	if (changed && running)
		vf_sync_wait();
}

void vh_dev_init(struct vh_dev *dev, const char *name, uint16_t nb_qp)
{
	memset(dev, 0, sizeof(*dev));
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	dev->nb_qp = nb_qp;
	dev->listen_fd = dev->conn_fd = -1;
	dev->stall_timer = -1;
	for (unsigned int i = 0; i < VH_MAX_VRINGS; i++) {
		struct vh_vq *vq = &dev->vq[i];

		vq->idx = (uint16_t)i;
		vq->kickfd = vq->callfd = -1;
		vq->mem = &dev->mem;
		vq->port_name = dev->name;
		vq->hdr_len = 12;
		vq->log_used_gpa = VH_LOG_NO_GPA;
	}
}

static bool vq_should_run(const struct vh_dev *dev, const struct vh_vq *vq)
{
	if (!dev->features_set || !dev->mem.nregions || !vq->num_set ||
	    !vq->addr_ok || !vq->kick_set || !vq->call_set || !vq->enabled)
		return false;
	/* With STATUS the device starts at DRIVER_OK (pitfall 5). */
	if ((dev->protocol_features & (1ull << VHOST_USER_PROTOCOL_F_STATUS)) &&
	    !(dev->status & VIRTIO_CONFIG_S_DRIVER_OK))
		return false;
	return true;
}

void vh_dev_update(struct vh_dev *dev)
{
	bool stop = false;

	for (unsigned int i = 0; i < 2u * dev->nb_qp; i++) {
		struct vh_vq *vq = &dev->vq[i];
		bool run = vq_should_run(dev, vq);
		const char *why;

		if (run == vq->ready)
			continue;
		if (!run) {
			/* SET_VRING_ENABLE 0, a status without DRIVER_OK: the
			 * front-end stopped publishing (it stops before it
			 * says so); what it published is still taken. */
			vh_dev_drain(dev, (int)i);
			__atomic_store_n(&vq->ready, false, __ATOMIC_RELEASE);
			stop = true;
			continue;
		}
		/* Features may have changed the lengths since SET_VRING_ADDR. */
		if (vh_vq_map(vq, &dev->mem, &why) != 0) {
			VF_WARN("%s: vring %u: %s", dev->name, i, why);
			vq->addr_ok = false;
			continue;
		}
		vh_vq_start(vq);
		vh_log_ring_start(vq);
		/* Release: the ring set-up above is visible to the core that
		 * sees ready. */
		__atomic_store_n(&vq->ready, true, __ATOMIC_RELEASE);
	}
	if (stop)
		vf_sync_wait();

	bool up = dev->vq[0].ready && dev->vq[1].ready;

	if (up != dev->link_up) {
		__atomic_store_n(&dev->link_up, up, __ATOMIC_RELEASE);
		dev->link_changes++;
		VF_INFO("%s: link %s", dev->name, up ? "up" : "down");
		if (up)
			VF_INFO("%s: %s virtqueues, features 0x%llx", dev->name,
				dev->vq[0].packed ? "packed" : "split",
				(unsigned long long)dev->features);
	}
}

void vh_dev_disconnect(struct vh_dev *dev)
{
	/* The caller drained, or must not (memory truncated). */
	stop_rings(dev, -1, false);
	for (unsigned int i = 0; i < VH_MAX_VRINGS; i++) {
		struct vh_vq *vq = &dev->vq[i];

		close_fd(&vq->kickfd);
		close_fd(&vq->callfd);
		vq->desc = NULL;
		vq->avail = NULL;
		vq->used = NULL;
		vq->size = vq->mask = 0;
		vq->last_avail = vq->last_used = 0;
		vq->avail_wrap = vq->used_wrap = true;
		vq->pdesc = NULL;
		vq->drv_ev = vq->dev_ev = NULL;
		vq->num_set = vq->addr_ok = vq->kick_set = vq->call_set = false;
		vq->enabled = false;
		vq->dp_broken = false;
		vq->log_broken = false;
		memset(&vq->addr, 0, sizeof(vq->addr));
		vq->dirty_log = NULL;	/* the cores are out (stop_rings) */
		vq->log_used_gpa = VH_LOG_NO_GPA;
		__atomic_store_n(&vq->rarp_pending, false, __ATOMIC_RELAXED);	/* read before ready */
	}
	vh_log_free(dev->log);
	dev->log = NULL;
	vh_mem_unmap(&dev->mem);
	dev->features = dev->protocol_features = 0;
	dev->features_set = false;
	dev->status = 0;
	vh_dev_update(dev);
}
