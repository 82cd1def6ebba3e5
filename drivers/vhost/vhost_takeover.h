/* Upgrading vhostd under running front-ends (vhostd --takeover CTL).
 *
 * The running daemon ("old") hands a new one everything a front-end's
 * session lives in: the listening sockets, the vhost-user connections, the
 * memory and log fds, the kick and call eventfds (SCM_RIGHTS), and each
 * device's negotiated state and ring positions in a small versioned record
 * (vhost_takeover_wire.h).  The fds stay open across the handover, so the
 * front-ends see no disconnect.  The new one rebuilds each device by
 * replaying the record as vhost-user requests through the same handlers
 * (and checks) a front-end's requests go through.  The protocol and its
 * failure rules are in vhostd(8), section TAKEOVER. */
#ifndef VH_TAKEOVER_H
#define VH_TAKEOVER_H

#include <stddef.h>

/* The control-socket line that asks for a takeover: "takeover 1". */
#define VF_TAKEOVER_WORD "takeover"

/* Old side: serves a takeover on fd, a control-socket connection that sent
 * the line (lib/shell/ctlsock.c hands it over; we own it from here).  Runs
 * the exchange on a thread of its own; arg is unused. */
void vf_vhost_takeover_serve(int fd, void *arg);

/* New side.  Before the ports open: the vhost ports do not listen, they
 * wait for the sockets of the daemon at ctl. */
void vf_vhost_takeover_expect(const char *ctl);
/* The path given to vf_vhost_takeover_expect, or NULL. */
const char *vf_vhost_takeover_pending(void);
/* Once the ports are open and forwarding: takes every port over from the
 * daemon at ctl and waits (30 s at most) for it to exit.  0, or -1 with
 * the reason in err (the old daemon then goes on serving). */
int vf_vhost_takeover_run(char *err, size_t errlen);

#endif
