/* The control socket: the shell's commands for a running tool, from other
 * processes (cmd/vfctl), on a unix socket file.
 *
 * Connections are served on the control thread (lib/core/ctl.c) with
 * non-blocking sockets and bounded buffers; the commands themselves run one
 * at a time on a runner thread of their own, under the session lock like
 * the prompt's, so a slow command never holds up the control thread, and a
 * client that floods or stops reading is pushed back on or dropped without
 * touching forwarding, the prompt or other clients. */
#ifndef VF_CTLSOCK_H
#define VF_CTLSOCK_H

#include <stddef.h>

#include "vf_peercred.h"

struct vf_session;

#define VF_CTLSOCK_MAX_CLIENTS	16

/* Listens on path (a socket file created with a's mode and group; a stale
 * socket there, one nobody listens on, is replaced) and starts serving.
 * Who may connect is a's allow lists, checked with SO_PEERCRED on accept.
 * Returns 0, or -errno with a message in err: -EADDRINUSE when a running
 * process listens on path, -EALREADY when already serving. */
int vf_ctlsock_start(struct vf_session *ses, const char *path, const struct vf_access *a,
		     char *err, size_t len);
/* Can path be served?  Removes a stale socket there as start would.  For a
 * check before the run's set-up, so that an explicit --ctl fails early.
 * 0, or -errno with a message in err (as vf_ctlsock_start). */
int vf_ctlsock_check(const char *path, char *err, size_t len);
/* Stops serving: no command runs after it returns; clients are closed and
 * the socket file removed.  Call from the main thread, not holding the
 * session lock.  Does nothing when not serving. */
void vf_ctlsock_stop(void);
/* The path served, or NULL. */
const char *vf_ctlsock_path(void);

#endif
