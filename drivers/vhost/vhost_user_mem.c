/* vhost-user requests on the front-end's memory: the memory table, the
 * dirty log for migration and the RARP announcement that follows one
 * (vhost_user_req.h; protocols.md §1.11, hardening.md A). */
#include "vhost_user_req.h"

#include <string.h>

#include "vf_log.h"
#include "vf_peermem.h"
#include "vhost_announce.h"

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

int h_set_mem_table(struct vh_ctx *c)
{
	struct vh_dev *dev = c->dev;
	struct vh_mem fresh;
	char why[96];

	if (vh_mem_map(&fresh, &c->msg->p.mem, c->msg->hdr.size, c->fds, c->nfds,
		       why, sizeof(why)) != 0)
		return reject(c, "SET_MEM_TABLE: %s", why);
	/* The old mapping goes only after no core can be reading it; what
	 * the front-end published in it is taken first. */
	vh_dev_stop_rings(dev, -1, true);
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

/* The dirty log QEMU shares for migration (LOG_SHMFD): replaced as a
 * whole; the reply is a bare header (QEMU waits for it). */
int h_set_log_base(struct vh_ctx *c)
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

int h_send_rarp(struct vh_ctx *c)
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
