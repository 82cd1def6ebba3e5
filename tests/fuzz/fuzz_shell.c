/* libFuzzer: shell command lines (untrusted: piped stdin, scripts) through
 * tokenising, exact matching and argument checking.  Commands that pass
 * the checks run against an app with no ports and no EAL, so only the
 * parsing and the argument validation of each command are exercised. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vf_app.h"
#include "vf_shell.h"

static const struct vf_tool tool = { .name = "fuzz", .summary = "" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vf_app app;
	char line[512];

	if (size >= sizeof(line))
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	/* Commands that start things need the EAL; keep to parsing. */
	if (strstr(line, "start") || strstr(line, "attach") || strstr(line, "stop") ||
	    strstr(line, "config") || strstr(line, "quit") || strstr(line, "rate"))
		return 0;
	memset(&app, 0, sizeof(app));
	app.tool = &tool;
	app.fwd.mode = vf_fwd_mode_find("io");
	app.fwd.burst = 32;
	if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
		return 0;
	vf_shell_exec(&app, line);
	return 0;
}
