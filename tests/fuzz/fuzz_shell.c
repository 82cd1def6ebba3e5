/* libFuzzer: shell command lines (untrusted: piped stdin, scripts) through
 * tokenising, exact matching and argument checking.  Commands that pass
 * the checks run against a session with no ports and no EAL, so only the
 * parsing and the argument validation of each command are exercised. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vf_session.h"
#include "vf_shell.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vf_session ses;
	char line[512];

	if (size >= sizeof(line))
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	/* Commands that start things need the EAL; keep to parsing. */
	if (strstr(line, "start") || strstr(line, "attach") || strstr(line, "stop") ||
	    strstr(line, "config") || strstr(line, "quit") || strstr(line, "rate"))
		return 0;
	memset(&ses, 0, sizeof(ses));
	vf_session_init(&ses, "fuzz");
	ses.fwd.mode = vf_fwd_mode_find("io");
	if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
		return 0;
	vf_shell_exec(&ses, line);
	return 0;
}
