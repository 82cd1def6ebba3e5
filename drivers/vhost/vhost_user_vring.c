/* vhost-user requests on one vring: size, addresses, base index, kick
 * and call fds, enable (vhost_user_req.h; protocols.md §1.3, pitfalls 6,
 * 9, 11). */
#include "vhost_user_req.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "vf_sync.h"

int h_set_vring_num(struct vh_ctx *c)
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

int h_set_vring_addr(struct vh_ctx *c)
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

int h_set_vring_base(struct vh_ctx *c)
{
	if (c->vq->ready)
		return reject(c, "SET_VRING_BASE on running vring %u", c->vq->idx);
	uint32_t num = c->msg->p.state.num;

	c->vq->base_exact = false;
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

int h_get_vring_base(struct vh_ctx *c)
{
	struct vh_vq *vq = c->vq;

	/* Takes what the front-end already put in the ring, then stops it;
	 * the index is reported as it was (pitfall 9). */
	vh_dev_stop_rings(c->dev, vq->idx, true);
	c->reply->p.state.index = vq->idx;
	/* packed: bits 0-14 avail slot, 15 its wrap counter, 16-30 used
	 * slot, 31 its wrap counter (QEMU reads all four) */
	c->reply->p.state.num = vq->packed ?
		(uint32_t)(vq->last_avail | (vq->avail_wrap ? 0x8000u : 0)) |
		((uint32_t)vq->last_used << 16) | (vq->used_wrap ? 0x80000000u : 0) :
		vq->last_avail;
	c->reply_size = sizeof(struct vhost_vring_state);
	/* The ring stopped above (no core touches it or its fds now). */
	int old = __atomic_exchange_n(&vq->kickfd, -1, __ATOMIC_ACQ_REL);
	close_fd(&old);
	old = __atomic_exchange_n(&vq->callfd, -1, __ATOMIC_ACQ_REL);
	close_fd(&old);
	vq->kick_set = false;
	vq->call_set = false;
	return 0;
}

int h_set_vring_kick(struct vh_ctx *c)
{
	struct vh_vq *vq = c->vq;
	int fd = c->nfds ? take_fd(c, 0) : -1;
	/* The core that dequeues the ring reads it to sleep on (rx modes,
	 * virtqueue_intr.c), only while the ring runs. */
	int old = __atomic_exchange_n(&vq->kickfd, fd, __ATOMIC_ACQ_REL);

	if (old >= 0) {
		/* A core may have read the old fd: close it only once every
		 * core has left its burst or gone to sleep (a sleep on a
		 * closed fd ends at once, and the kick below ends any other). */
		if (vq->ready)
			vf_sync_wait();
		close(old);
	}
	if (vq->ready)
		vf_sync_kick();	/* a core asleep on the old fd takes the new one */
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

int h_set_vring_call(struct vh_ctx *c)
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

int h_set_vring_err(struct vh_ctx *c)
{
	return 0;	/* we never signal errors that way; the fd is closed */
}

int h_set_vring_enable(struct vh_ctx *c)
{
	uint32_t num = c->msg->p.state.num;

	if (num > 1)
		return reject(c, "SET_VRING_ENABLE %u", num);
	c->vq->enabled = num;
	return 0;
}
