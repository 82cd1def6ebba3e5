/* virtio_user's connection state machine and its worker thread
 * (virtio_user_dev.c): what the port ops call, on the control thread
 * unless said otherwise. */
#ifndef VIRTIO_USER_DEV_H
#define VIRTIO_USER_DEV_H

#include <stdbool.h>
#include <stdint.h>

#include "virtio_user_priv.h"

/* Port started: rings reset and filled, the start sequence posted (once
 * negotiated, and no job in flight). */
void vu_dev_run(struct vu_dev *d);
/* Port stopped or the backend left: queues not ready; with tell, the
 * backend is asked for the rings back (a stop job). */
void vu_dev_halt(struct vu_dev *d, bool tell);
/* fe.fd off the control loop. */
void vu_unwatch(struct vu_dev *d);
/* allow-uid / allow-gid: may the backend on fd stay? */
bool vu_peer_allowed(struct vu_dev *d, int fd);
/* A backend let in on fd: the negotiation is posted to the worker. */
void vu_attach_start(struct vu_dev *d, int fd);
/* server=1: the listening socket's and the device's timer's callbacks
 * (vf_ctl_add_fd, vf_ctl_add_timer; arg: the device). */
void vu_on_listen(int fd, uint32_t events, void *arg);
void vu_on_timer(void *arg);
/* The worker thread: started at probe, stopped after every job ended
 * (main thread). */
int vu_worker_start(struct vu_dev *d);
void vu_worker_stop(struct vu_dev *d);
/* Main thread, control lock not held: until no job (or none holding the
 * rings) is in flight. */
void vu_wait_jobs(struct vu_dev *d, bool rings_only);

#endif
