/* A vhost-user device's state (vhost_dev.h): its rings started and
 * stopped, drained before they stop, pointed at the dirty log, and the
 * whole of it forgotten when the front-end leaves. */
#include "vhost_dev.h"

#include <stdio.h>
#include <string.h>

#include "vf_log.h"
#include "vf_sync.h"

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
void vh_dev_stop_rings(struct vh_dev *dev, int only, bool drain)
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
	dev->port_id = VF_EVENT_NO_PORT;
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
	if (dev->held || !dev->features_set || !dev->mem.nregions || !vq->num_set ||
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
	bool stop = false, started = false;

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
		started = true;
	}
	if (stop)
		vf_sync_wait();
	/* A core asleep (rx modes) while the ring was stopped arms it now,
	 * not at its sleep's timeout. */
	if (started)
		vf_sync_kick();

	bool up = dev->vq[0].ready && dev->vq[1].ready;

	if (up != dev->link_up) {
		__atomic_store_n(&dev->link_up, up, __ATOMIC_RELEASE);
		dev->link_changes++;
		VF_INFO("%s: link %s", dev->name, up ? "up" : "down");
		vf_event_link(dev->port_id, dev->name, up);
		if (up)
			VF_INFO("%s: %s virtqueues, features 0x%llx", dev->name,
				dev->vq[0].packed ? "packed" : "split",
				(unsigned long long)dev->features);
	}
}

void vh_dev_disconnect(struct vh_dev *dev)
{
	/* The caller drained, or must not (memory truncated). */
	vh_dev_stop_rings(dev, -1, false);
	for (unsigned int i = 0; i < VH_MAX_VRINGS; i++) {
		struct vh_vq *vq = &dev->vq[i];

		int fd = __atomic_exchange_n(&vq->kickfd, -1, __ATOMIC_RELAXED);

		close_fd(&fd);
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
		vq->base_exact = false;
		memset(&vq->addr, 0, sizeof(vq->addr));
		vq->dirty_log = NULL;	/* the cores are out (vh_dev_stop_rings) */
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
