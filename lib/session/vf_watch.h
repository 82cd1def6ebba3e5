/* The port watch (watch.c): the events no driver raises as they happen,
 * made from the ports' counters once a second on the control thread:
 *   drops   one event per port and reason whose count grew since the last
 *           look ({"event":"drops","reason":"imissed","packets":12,...});
 *           the reasons are the port's imissed, ierrors, oerrors and
 *           rx_nombuf, its extended counters named "...drop...", summed
 *           over queues ("rx_q0_dropped_ring_full" -> "rx_dropped_ring_full"),
 *           and fwd_dropped: what the engine could not send on the port;
 *   link    for ports whose driver does not raise link events itself
 *           (vf_driver.link_events: dpdk:, null).
 * A counter that went down (clear port stats) starts over without an
 * event.  The watch reads the ports only under the session lock, taken
 * when free: a second that finds it held is folded into the next. */
#ifndef VF_WATCH_H
#define VF_WATCH_H

#define VF_WATCH_MS 1000

/* Starts the timer (events on, control thread running).  0 or -errno. */
int vf_session_watch_start(void);
/* Stops it; the callback is not running when this returns.  Idempotent. */
void vf_session_watch_stop(void);

#endif
