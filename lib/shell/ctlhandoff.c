/* The control socket's handoff (vf_ctlsock.h): one word that turns an
 * authorised connection over to another protocol (vhostd --takeover). */
#include "vf_ctlhandoff.h"

#include <string.h>

static const char *word;
static void (*fn)(int fd, void *arg);
static void *fn_arg;

void vf_ctlsock_set_handoff(const char *w, void (*f)(int fd, void *arg), void *arg)
{
	word = w;
	fn = f;
	fn_arg = arg;
}

bool vf__ctl_is_handoff(const char *s, size_t n)
{
	size_t w = word && fn ? strlen(word) : 0;

	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	return w && n >= w && !memcmp(s, word, w) && (n == w || s[w] == ' ' || s[w] == '\t');
}

void vf__ctl_handoff(int fd)
{
	fn(fd, fn_arg);
}
