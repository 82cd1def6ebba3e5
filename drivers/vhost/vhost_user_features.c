/* vhost-user requests on the device as a whole: features, protocol
 * features, owner, status and queue count (vhost_user_req.h; protocols.md
 * §1, pitfalls 5-6). */
#include "vhost_user_req.h"

#include "vf_log.h"

static bool any_ready(const struct vh_dev *dev)
{
	for (unsigned int i = 0; i < 2u * dev->nb_qp; i++)
		if (dev->vq[i].ready)
			return true;
	return false;
}

int h_get_features(struct vh_ctx *c)
{
	reply_u64(c, VH_FEATURES | c->dev->ol_offer);
	return 0;
}

int h_set_features(struct vh_ctx *c)
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

int h_nop(struct vh_ctx *c)
{
	return 0;
}

int h_reset_owner(struct vh_ctx *c)
{
	vh_dev_stop_rings(c->dev, -1, true);
	return 0;
}

int h_get_protocol_features(struct vh_ctx *c)
{
	reply_u64(c, VH_PROTOCOL_FEATURES);
	return 0;
}

int h_set_protocol_features(struct vh_ctx *c)
{
	uint64_t f = c->msg->p.u64;

	if (f & ~VH_PROTOCOL_FEATURES)
		return reject(c, "SET_PROTOCOL_FEATURES 0x%llx has bits we did not offer",
			      (unsigned long long)f);
	c->dev->protocol_features = f;
	return 0;
}

int h_get_queue_num(struct vh_ctx *c)
{
	reply_u64(c, c->dev->nb_qp);
	return 0;
}

int h_set_status(struct vh_ctx *c)
{
	uint64_t s = c->msg->p.u64;

	if (s > 0xff)
		return reject(c, "SET_STATUS 0x%llx", (unsigned long long)s);
	c->dev->status = (uint8_t)s;
	return 0;
}

int h_get_status(struct vh_ctx *c)
{
	reply_u64(c, c->dev->status);
	return 0;
}
