/* Unix sockets of the vhost-user front-end: connecting to a backend
 * (server=0) and listening for one (server=1). */
#ifndef VU_SOCKET_H
#define VU_SOCKET_H

#include <stdbool.h>
#include <stddef.h>

#include "vf_peercred.h"

/* Connected stream socket (blocking once connected), or -errno.  With
 * nonblock the connect itself does not wait (a full backlog fails). */
int vu_sock_connect(const char *path, bool nonblock);

/* Nonblocking listening socket on path, or -errno with a message in err.
 * The file gets acc's mode and group before anyone can connect.
 * A stale socket file (nobody accepts) is replaced; a live one, or a file
 * that is not a socket, is refused and left alone. */
int vu_sock_listen(const char *path, const struct vf_access *acc, char *err, size_t errlen);

#endif
