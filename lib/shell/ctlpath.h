/* A control socket's path before we listen there (ctlpath.c), for
 * ctlsock.c: a crashed run's socket is replaced, a live one is not. */
#ifndef VF_CTLPATH_H
#define VF_CTLPATH_H

/* What is at path: nothing (0), a socket nobody listens on (removed, 0), a
 * live one (-EADDRINUSE), something else (-EEXIST); -errno when it cannot
 * be told. */
int vf__ctl_clear_stale(const char *path);

#endif
