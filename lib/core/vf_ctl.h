/* The control thread: one epoll loop for sockets, eventfds and timers
 * (vhost-user and memif connections).  Callbacks run on that thread only, so
 * driver control state needs no locks against other callbacks. */
#ifndef VF_CTL_H
#define VF_CTL_H

#include <stdint.h>

typedef void (*vf_ctl_fd_cb)(int fd, uint32_t events, void *arg);
typedef void (*vf_ctl_timer_cb)(void *arg);

int vf_ctl_start(void);		/* idempotent */
void vf_ctl_stop(void);		/* joins the thread */

/* Watch fd for EPOLLIN (and EPOLLHUP/ERR, always reported).  Safe from any
 * thread and from callbacks.  Returns 0 or -errno. */
int vf_ctl_add_fd(int fd, vf_ctl_fd_cb cb, void *arg);
/* Stop watching; after it returns (from a non-ctl thread) the callback is
 * not running and will not run again for fd. */
void vf_ctl_del_fd(int fd);
/* Change what a watched fd reports: EPOLLIN and/or EPOLLOUT (a writer with
 * output pending asks for EPOLLOUT and, to push back on its peer, may drop
 * EPOLLIN).  Safe from any thread.  0, or -ENOENT when fd is not watched. */
int vf_ctl_set_events(int fd, uint32_t events);

/* Call cb every period_ms (first after period_ms) until vf_ctl_del_timer.
 * Returns a timer id > 0 or -errno. */
int vf_ctl_add_timer(unsigned int period_ms, vf_ctl_timer_cb cb, void *arg);
void vf_ctl_del_timer(int id);

/* Run fn(arg) serialised against every control callback (driver set-up
 * and teardown from the main thread): it holds the lock callbacks run under,
 * so fn never overlaps a callback. */
void vf_ctl_call(void (*fn)(void *arg), void *arg);
int vf_ctl_is_ctl_thread(void);

#endif
