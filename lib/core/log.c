#include "vf_log.h"

#include <stdio.h>

static enum vf_log_level cur_level = VF_LOG_INFO;
static __thread char *cap_buf;
static __thread size_t cap_len;
static __thread bool cap_got;

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
	char buf[1024];
	va_list ap;

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
	fprintf(stderr, "%s: %s\n", tag[lvl], buf);
}
