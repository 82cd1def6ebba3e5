#include "vf_log.h"

#include <stdio.h>

static enum vf_log_level cur_level = VF_LOG_INFO;

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
	/* One write per line so lines from several threads do not interleave. */
	fprintf(stderr, "%s: %s\n", tag[lvl], buf);
}
