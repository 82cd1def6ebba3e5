/* vhost-user socket handling for a device (server or client mode). */
#ifndef VH_CONN_H
#define VH_CONN_H

#include <stddef.h>

#include "vhost_dev.h"

/* Starts listening (server) or connecting with retries (client) on
 * dev->path.  Returns 0 or -errno with a one-line message in err. */
int vh_conn_open(struct vh_dev *dev, char *err, size_t errlen);
/* Drops the connection, stops listening/retrying, removes our socket
 * file.  Idempotent. */
void vh_conn_close(struct vh_dev *dev);

#endif
