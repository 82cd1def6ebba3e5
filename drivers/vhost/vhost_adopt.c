/* The new daemon's side of a takeover (vhost_takeover.h): ask the running
 * daemon for its devices, rebuild each from its record, commit, and start
 * the rings once the old one has let go.
 *
 * A record is replayed as the vhost-user requests a front-end would have
 * sent (features, memory table, log, each ring's size, addresses, base,
 * kick, call, enable, status) through vh_user_handle: every value is
 * checked by the code that checks a front-end's, every fd consumed or
 * closed there.  The rings stay held (stopped) until the old daemon says
 * it let go, so that the two never run the same ring; on any failure
 * before the commit we give everything back untouched and the old daemon
 * serves on. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "vf_log.h"
#include "vhost_takeover_wire.h"

/* One request through the front-end's path; fds are taken. */
static int replay(struct vh_dev *dev, uint32_t req, const void *payload, uint32_t size,
		  int *fds, unsigned int nfds)
{
	struct vhost_user_msg m, reply;
	uint32_t rlen;

	memset(&m, 0, sizeof(m));
	m.hdr.request = req;
	m.hdr.flags = VHOST_USER_VERSION;
	m.hdr.size = size;
	memcpy(&m.p, payload, size);
	return vh_user_handle(dev, &m, VHOST_USER_HDR_SIZE + size, fds, nfds, &reply, &rlen);
}

static int take(int *fds, int nfds, int *next)
{
	return *next < nfds ? fds[(*next)++] : -1;
}

static int replay_ring(struct vh_dev *dev, unsigned int i, const struct vh_to_vq *q,
		       int *fds, int nfds, int *next)
{
	struct vhost_vring_state st = { .index = i };
	uint64_t u;
	int fd;

	if (q->flags & VH_TO_VQ_NUM) {
		st.num = q->size;
		if (replay(dev, VHOST_USER_SET_VRING_NUM, &st, sizeof(st), NULL, 0))
			return -1;
		/* packed: avail slot and wrap, used slot and wrap (§1.3) */
		st.num = dev->features & (1ull << VIRTIO_F_RING_PACKED) ?
			 (uint32_t)(q->last_avail & 0x7fff) | (q->avail_wrap ? 0x8000u : 0) |
			 ((uint32_t)(q->last_used & 0x7fff) | (q->used_wrap ? 0x8000u : 0)) << 16 :
			 q->last_avail;
		if (replay(dev, VHOST_USER_SET_VRING_BASE, &st, sizeof(st), NULL, 0))
			return -1;
		dev->vq[i].base_exact = true;	/* the old daemon's own position */
	}
	if (q->flags & VH_TO_VQ_ADDR) {
		struct vhost_vring_addr a = q->addr;

		a.index = i;
		if (replay(dev, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a), NULL, 0))
			return -1;
	}
	if (q->flags & VH_TO_VQ_KICK) {
		fd = (q->flags & VH_TO_VQ_KICKFD) ? take(fds, nfds, next) : -1;
		u = i | (fd < 0 ? VHOST_USER_VRING_NOFD_MASK : 0);
		if (replay(dev, VHOST_USER_SET_VRING_KICK, &u, sizeof(u), &fd, fd >= 0))
			return -1;
	}
	if (q->flags & VH_TO_VQ_CALL) {
		fd = (q->flags & VH_TO_VQ_CALLFD) ? take(fds, nfds, next) : -1;
		u = i | (fd < 0 ? VHOST_USER_VRING_NOFD_MASK : 0);
		if (replay(dev, VHOST_USER_SET_VRING_CALL, &u, sizeof(u), &fd, fd >= 0))
			return -1;
	}
	if (dev->features & (1ull << VHOST_USER_F_PROTOCOL_FEATURES)) {
		st.num = !!(q->flags & VH_TO_VQ_ENABLED);
		if (replay(dev, VHOST_USER_SET_VRING_ENABLE, &st, sizeof(st), NULL, 0))
			return -1;
	}
	/* The ring must be where the old daemon left it (vh_vq_start resumes
	 * from here, and from the used index in memory for split rings). */
	if (dev->vq[i].num_set != !!(q->flags & VH_TO_VQ_NUM) ||
	    dev->vq[i].addr_ok != !!(q->flags & VH_TO_VQ_ADDR) ||
	    (q->flags & VH_TO_VQ_NUM && dev->vq[i].last_avail != (dev->vq[i].packed ?
	     (q->last_avail & 0x7fff) : q->last_avail)))
		return -1;
	return 0;
}

static int replay_all(struct vh_dev *dev, const struct vh_to_dev *rec, int *fds, int nfds,
		      int *next, char *why, size_t len)
{
	uint64_t u;

	if (rec->flags & VH_TO_DEV_FEATURES) {
		u = rec->features;
		if (replay(dev, VHOST_USER_SET_FEATURES, &u, sizeof(u), NULL, 0))
			goto bad;
		u = rec->protocol_features;
		if ((u || (rec->features & (1ull << VHOST_USER_F_PROTOCOL_FEATURES))) &&
		    replay(dev, VHOST_USER_SET_PROTOCOL_FEATURES, &u, sizeof(u), NULL, 0))
			goto bad;
	}
	if (rec->nregions) {
		struct vhost_user_mem_table t = { .nregions = rec->nregions };
		int mfds[VHOST_USER_MAX_REGIONS];

		for (uint32_t i = 0; i < rec->nregions; i++) {
			t.regions[i] = (struct vhost_user_mem_region){
				rec->r[i].gpa, rec->r[i].size, rec->r[i].uva, rec->r[i].offset };
			mfds[i] = take(fds, nfds, next);
		}
		if (replay(dev, VHOST_USER_SET_MEM_TABLE, &t, (uint32_t)(8 + rec->nregions *
			   sizeof(t.regions[0])), mfds, rec->nregions))
			goto bad;
	}
	if (rec->flags & VH_TO_DEV_LOG) {
		struct vhost_user_log lg = { .mmap_size = rec->log_size,
					     .mmap_offset = rec->log_offset };
		int lfd = take(fds, nfds, next);

		if (replay(dev, VHOST_USER_SET_LOG_BASE, &lg, sizeof(lg), &lfd, 1))
			goto bad;
	}
	for (unsigned int i = 0; i < 2u * dev->nb_qp; i++)
		if (replay_ring(dev, i, &rec->vq[i], fds, nfds, next))
			goto bad;
	if (dev->protocol_features & (1ull << VHOST_USER_PROTOCOL_F_STATUS)) {
		u = rec->status;
		if (replay(dev, VHOST_USER_SET_STATUS, &u, sizeof(u), NULL, 0))
			goto bad;
	}
	return 0;
bad:
	snprintf(why, len, "%s: state refused: %s", dev->name,
		 dev->last_error[0] ? dev->last_error : "a ring's state differs");
	return -1;
}

int vh_to_adopt(struct vh_dev *dev, const struct vh_to_dev *rec, int *fds, int nfds,
		char *why, size_t len)
{
	int next = 0, want = vh_to_dev_nfds(rec);

	if (want < 0 || want != nfds || rec->nb_qp != dev->nb_qp) {
		snprintf(why, len, "%s: record has %d fds for %d sent, %u queue pairs for our %u",
			 dev->name, want, nfds, rec->nb_qp, dev->nb_qp);
		vh_to_close_fds(fds, nfds);
		return -1;
	}
	dev->last_error[0] = '\0';
	int lfd = take(fds, nfds, &next);
	int cfd = (rec->flags & VH_TO_DEV_CONN) ? take(fds, nfds, &next) : -1;

	if (vh_conn_adopt(dev, lfd, cfd, why, len)) {
		vh_to_close_fds(fds + next, nfds - next);
		return -1;
	}
	if (replay_all(dev, rec, fds, nfds, &next, why, len)) {
		vh_to_close_fds(fds + next, nfds - next);
		return -1;
	}
	return 0;
}
