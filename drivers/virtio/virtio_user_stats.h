/* virtio_user's counters and port info (virtio_user_stats.c), for the
 * ops table in virtio_user.c. */
#ifndef VIRTIO_USER_STATS_H
#define VIRTIO_USER_STATS_H

struct vf_out;
struct vf_port;
struct vf_port_stats;
struct vf_xstat;

void vu_stats_get(struct vf_port *port, struct vf_port_stats *st);
void vu_stats_reset(struct vf_port *port);
int vu_xstats_get(struct vf_port *port, struct vf_xstat *xs, unsigned int n);
void vu_info(struct vf_port *port, struct vf_out *o);
void vu_ring_info(struct vf_port *port, struct vf_out *o);

#endif
