/* Diagnostics: always on stderr, so stdout stays clean for stats and JSON.
 * A line never waits for stderr's reader: where stderr is a pipe or a
 * socket that is full, the line is dropped and counted, and the next one
 * that gets through says how many went (log.c). */
#ifndef VF_LOG_H
#define VF_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum vf_log_level { VF_LOG_ERR, VF_LOG_WARN, VF_LOG_INFO, VF_LOG_DEBUG };

void vf_log_set_level(enum vf_log_level lvl);
enum vf_log_level vf_log_get_level(void);
void vf_log(enum vf_log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A stdio stream for DPDK's log (rte_openlog_stream): its lines reach
 * stderr the same way, never waiting on the reader.  Main thread, once. */
FILE *vf_log_stream(void);

/* Error lines of this thread go into buf (the last one wins) instead of
 * stderr until vf_log_capture_end(), which says whether one came: for a
 * caller that turns a callee's refusal into its own one-line message (a
 * port's probe, say).  Warnings and the rest still go to stderr. */
void vf_log_capture_begin(char *buf, size_t len);
bool vf_log_capture_end(void);

#define VF_ERR(...)   vf_log(VF_LOG_ERR, __VA_ARGS__)
#define VF_WARN(...)  vf_log(VF_LOG_WARN, __VA_ARGS__)
#define VF_INFO(...)  vf_log(VF_LOG_INFO, __VA_ARGS__)
#define VF_DEBUG(...) vf_log(VF_LOG_DEBUG, __VA_ARGS__)

/* Log at most once per flag: peers that misbehave in a loop must not flood
 * the log.  The flag lives in the caller's per-connection state so that a new
 * connection logs again. */
#define VF_LOG_ONCE(flag, lvl, ...) do {            \
		if (!(flag)) { (flag) = true; vf_log(lvl, __VA_ARGS__); } \
	} while (0)

#endif
