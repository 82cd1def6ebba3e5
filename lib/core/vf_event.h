/* Events: what happened to ports and their peers, as JSON lines, one an
 * event, for whoever watches a running tool (the control socket's
 * "monitor", --event-file).  docs/control-socket.md has the list.
 *
 * Any thread raises an event (a driver's callback on the control thread, a
 * shell command on the runner, a forwarding core that goes to sleep): the
 * event is copied into a slot of a fixed ring, claimed with one
 * compare-and-swap, with no lock, no allocation and no system call (the
 * time is the vDSO's clock_gettime).  When the ring is full the event is
 * lost and counted.  The control thread drains the ring every
 * VF_EVENT_DRAIN_MS, turns each event into its line and hands the line to
 * the sinks (the event file, the control socket's monitors); a lost count
 * becomes a line of its own, {"event":"gap","lost":N}.  Nothing a sink does
 * can hold up the thread that raised an event.
 *
 * Until vf_event_start() nothing is recorded: raising costs one relaxed
 * load. */
#ifndef VF_EVENT_H
#define VF_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VF_EVENT_NO_PORT	0xffff
#define VF_EVENT_RING		2048	/* slots; a power of two */
#define VF_EVENT_DRAIN_MS	100
#define VF_EVENT_LINE_MAX	768	/* a formatted line, without its newline */

enum vf_event_type {
	VF_EV_LINK,		/* state: 1 up, 0 down */
	VF_EV_PEER,		/* state: enum vf_event_peer; pid/uid/gid; path: the
				 * socket; text: why (refused, disconnected) */
	VF_EV_RECONNECT,	/* count: the attempt (1, 2, ...); path; text: the error */
	VF_EV_DROPS,		/* what: the reason (a counter's name); count: packets;
				 * interval_ms: over how long */
	VF_EV_RX_MODE,		/* what: the mode set; text: the mode before */
	VF_EV_RX_STATE,		/* queue; what: the port's mode; state: 1 the core
				 * sleeps between packets (interrupt), 0 it polls */
	VF_EV_READY,		/* count: ports set up; path: the control socket */
	VF_EV_STOPPING,
	VF_EV_NB_TYPES
};

enum vf_event_peer {
	VF_EV_PEER_CONNECTED,	/* let in (allow-uid/gid passed) */
	VF_EV_PEER_REFUSED,	/* turned away: text says why */
	VF_EV_PEER_DISCONNECTED,	/* a peer that was let in is gone */
};

struct vf_event {
	uint64_t seq;		/* set by vf_event_raise: 0, 1, 2 ... */
	int64_t time_ns;	/* set by vf_event_raise: CLOCK_REALTIME */
	enum vf_event_type type;
	uint16_t port;		/* VF_EVENT_NO_PORT: none */
	int32_t queue;		/* -1: none */
	int32_t state;		/* by type, above */
	int64_t pid, uid, gid;	/* a peer's credentials; -1: not known */
	uint64_t count;		/* by type */
	uint32_t interval_ms;
	char name[32];		/* the port's name ("" with no port) */
	char what[32];		/* by type */
	char path[108];		/* a socket's path ("@name": abstract) */
	char text[112];		/* by type */
};

/* Raises ev (its seq and time_ns are set here; strings must be
 * terminated).  Any thread; lock-free; lost and counted when the ring is
 * full; nothing when events are off. */
void vf_event_raise(struct vf_event *ev);
/* Are events recorded?  (Sources that need work to make an event can
 * skip it.) */
bool vf_event_on(void);

/* Helpers that fill and raise the common kinds; name may be NULL. */
void vf_event_link(uint16_t port, const char *name, bool up);
void vf_event_peer(uint16_t port, const char *name, enum vf_event_peer state, int64_t pid,
		   int64_t uid, int64_t gid, const char *path, const char *why);
void vf_event_reconnect(uint16_t port, const char *name, uint64_t attempt, const char *path,
			const char *error);

/* Sinks: called on the control thread (or under vf_ctl_call) with each
 * line (no newline; len bytes), in order, then once with line NULL when a
 * drain is over (time to flush).  At most VF_EVENT_MAX_SINKS. */
#define VF_EVENT_MAX_SINKS 4
typedef void (*vf_event_sink_fn)(const char *line, size_t len, void *arg);
int vf_event_sink_add(vf_event_sink_fn fn, void *arg);	/* 0 or -ENOSPC */
void vf_event_sink_del(vf_event_sink_fn fn, void *arg);

/* Starts recording and the drain (the control thread must run); with a
 * file (not NULL), every line is appended to it as well.  0, or -errno with
 * a message in err (the file cannot be opened). */
int vf_event_start(const char *file, char *err, size_t len);
/* Drains what is in the ring to the sinks now (from any thread: it runs
 * under vf_ctl_call). */
void vf_event_flush(void);
/* Stops recording: a last drain, the file closed.  Idempotent. */
void vf_event_stop(void);

/* One event as its JSON line (no newline) in buf; returns its length (a
 * line that does not fit is cut to a valid one with fewer fields). */
size_t vf_event_format(const struct vf_event *ev, char *buf, size_t len);
/* The line that says n events were lost here: {"event":"gap",...}. */
size_t vf_event_format_gap(uint64_t lost, char *buf, size_t len);
/* The first line a monitor gets: {"event":"monitor","ts":...,"tool":...,
 * "pid":...}. */
size_t vf_event_format_hello(const char *tool, char *buf, size_t len);
/* "link", "peer", ... (NULL past the last). */
const char *vf_event_type_name(enum vf_event_type t);

#endif
