#include "vf_log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static enum vf_log_level cur_level = VF_LOG_INFO;
static __thread char *cap_buf;
static __thread size_t cap_len;
static __thread bool cap_got;

/* How a line reaches stderr without ever waiting on its reader.  A daemon's
 * control thread logs what its peers do; when stderr is a pipe nobody reads
 * or a journald stream that stalls, a blocking write there would stop the
 * vhost-user and memif conversations and the control socket with it.  So a
 * pipe is written through a second, non-blocking open of the same pipe
 * (/proc/self/fd/2: its own file description, so the flags of the one we
 * share with our parent stay as they are), a socket with MSG_DONTWAIT, and
 * a line that does not fit now is dropped and counted; the next line that
 * fits says how many went.  Files and terminals are written as before. */
enum log_sink { SINK_PLAIN, SINK_PIPE, SINK_SOCKET };
static pthread_once_t sink_once = PTHREAD_ONCE_INIT;
static enum log_sink sink = SINK_PLAIN;
static int sink_fd = STDERR_FILENO;
static unsigned long long dropped;	/* atomic */

static void sink_init(void)
{
	struct stat st;

	if (fstat(STDERR_FILENO, &st) != 0)
		return;
	if (S_ISSOCK(st.st_mode)) {
		sink = SINK_SOCKET;
	} else if (S_ISFIFO(st.st_mode)) {
		int fd = open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_CLOEXEC);

		if (fd >= 0) {
			sink = SINK_PIPE;
			sink_fd = fd;
		}
	}
}

/* At load time, so that the pipe's second open is there before anything
 * counts our descriptors (the tests' fd baselines, the soak's). */
__attribute__((constructor)) static void sink_at_load(void)
{
	pthread_once(&sink_once, sink_init);
}

/* true: the whole line went.  A file or terminal is written to the end,
 * as stdio did before; lines up to PIPE_BUF go whole or not at all into a
 * pipe; a stream socket may take part of one, then the rest is tried once
 * more and a line cut short is counted as dropped. */
static bool sink_write(const char *s, size_t n)
{
	ssize_t w;

	for (int tries = 0; n && (sink == SINK_PLAIN || tries < 2); tries++) {
		do {
			w = sink == SINK_SOCKET ? send(sink_fd, s, n, MSG_DONTWAIT | MSG_NOSIGNAL)
						: write(sink_fd, s, n);
		} while (w < 0 && errno == EINTR);
		if (w <= 0)
			return false;
		s += w;
		n -= (size_t)w;
	}
	return n == 0;
}

static void emit(const char *line, size_t n)
{
	pthread_once(&sink_once, sink_init);
	unsigned long long gone = __atomic_exchange_n(&dropped, 0, __ATOMIC_RELAXED);

	if (gone) {
		char note[96];
		int k = snprintf(note, sizeof(note),
				 "warning: %llu log line(s) dropped: stderr was not taking them\n",
				 gone);

		if (!sink_write(note, (size_t)k)) {
			__atomic_fetch_add(&dropped, gone + 1, __ATOMIC_RELAXED);
			return;
		}
	}
	if (!sink_write(line, n))
		__atomic_fetch_add(&dropped, 1, __ATOMIC_RELAXED);
}

/* DPDK's own log lines take the same way: a stdio stream whose writes go
 * to emit().  DPDK writes them from its own threads too (at -v, its vhost
 * library logs every message a net_vhost port's front-end sends, from the
 * one thread that serves all such ports); a blocking write there would
 * stop them all.  Line-buffered: each line is one write, whole or
 * dropped and counted, as ours are. */
static ssize_t dpdk_line(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	emit(buf, n);
	return (ssize_t)n;
}

FILE *vf_log_stream(void)
{
	static FILE *f;

	if (!f) {
		cookie_io_functions_t io = { .write = dpdk_line };

		f = fopencookie(NULL, "w", io);
		if (!f || setvbuf(f, NULL, _IOLBF, 0) != 0) {
			if (f)
				fclose(f);
			f = stderr;
		}
	}
	return f;
}

void vf_log_capture_begin(char *buf, size_t len)
{
	cap_buf = len ? buf : NULL;
	cap_len = len;
	cap_got = false;
	if (cap_buf)
		cap_buf[0] = '\0';
}

bool vf_log_capture_end(void)
{
	bool got = cap_got;

	cap_buf = NULL;
	cap_len = 0;
	cap_got = false;
	return got;
}

void vf_log_set_level(enum vf_log_level lvl) { cur_level = lvl; }
enum vf_log_level vf_log_get_level(void) { return cur_level; }

void vf_log(enum vf_log_level lvl, const char *fmt, ...)
{
	static const char *const tag[] = { "error", "warning", "info", "debug" };
	char buf[1024], line[1040];
	va_list ap;
	int n;

	if (lvl > cur_level)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (lvl == VF_LOG_ERR && cap_buf) {
		snprintf(cap_buf, cap_len, "%s", buf);
		cap_got = true;
		return;
	}
	/* One write per line so lines from several threads do not interleave. */
	n = snprintf(line, sizeof(line), "%s: %s\n", tag[lvl], buf);
	if (n >= (int)sizeof(line)) {
		n = (int)sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	emit(line, (size_t)n);
}
