/* Control-socket connections handed to a protocol of their own: a line
 * whose first word is registered turns the connection over (ctlsock.c
 * calls the two functions below). */
#ifndef VF_CTLHANDOFF_H
#define VF_CTLHANDOFF_H

#include <stdbool.h>
#include <stddef.h>

/* A line whose first word is `word` hands its connection to fn (on the
 * control thread, which fn must not hold up): the connection leaves the
 * control socket's care, fn owns the fd.  For a protocol of its own on an
 * already authorised connection (vhostd's takeover).  Before start. */
void vf_ctlsock_set_handoff(const char *word, void (*fn)(int fd, void *arg), void *arg);
/* ctlsock.c: the line (n bytes) starts with the handoff's word. */
bool vf__ctl_is_handoff(const char *s, size_t n);
/* ctlsock.c: hands fd over (control thread). */
void vf__ctl_handoff(int fd);

#endif
