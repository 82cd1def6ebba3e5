/* vhost-user socket handling for a device (server or client mode). */
#ifndef VH_CONN_H
#define VH_CONN_H

#include <stdbool.h>
#include <stddef.h>

#include "vhost_dev.h"

/* Starts listening (server) or connecting with retries (client) on
 * dev->path.  Returns 0 or -errno with a one-line message in err. */
int vh_conn_open(struct vh_dev *dev, char *err, size_t errlen);
/* Drops the connection, stops listening/retrying, removes our socket
 * file.  Idempotent. */
void vh_conn_close(struct vh_dev *dev);

/* For vhost_conn_takeover.c (control thread).  Defer: ports opened from
 * now on do not listen (vhostd --takeover: the sockets come later). */
void vh_conn_defer_listen(bool on);
/* The open devices, at most max. */
unsigned int vh_conn_devs(struct vh_dev **out, unsigned int max);
/* Watches a listening socket or a connection of dev; 0 or -errno. */
int vh_conn_watch(struct vh_dev *dev, int fd, bool listening);
/* Serves fd as dev's connection (closed on failure: conn_fd stays -1). */
void vh_conn_set(struct vh_dev *dev, int fd);
/* The peer on fd passes dev's allow lists (dev->peer: who it is). */
bool vh_conn_peer_ok(struct vh_dev *dev, int fd);
void vh_conn_drop(struct vh_dev *dev, const char *why);

#endif
