/* Secret files (vf_secret.h). */
#include "vf_secret.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void vf_secret_clear(void *p, size_t n)
{
	/* explicit_bzero: a plain memset before free or return is dead code
	 * to the optimiser and may be dropped. */
	if (p != NULL && n > 0)
		explicit_bzero(p, n);
}

/* The ssh rule: ours or root's, nobody else's bits. */
static int check_file(int fd, const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "secret file %s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "secret file %s: not a regular file", path);
		return -1;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		snprintf(err, errlen, "secret file %s: owned by uid %u; expected ours (%u) or root",
			 path, (unsigned int)st.st_uid, (unsigned int)geteuid());
		return -1;
	}
	if (st.st_mode & 077) {
		snprintf(err, errlen, "secret file %s: mode %04o lets group or other in; "
			 "expected 0600 or stricter (chmod 600 %s)", path,
			 (unsigned int)(st.st_mode & 07777), path);
		return -1;
	}
	return 0;
}

int vf_secret_read_file(const char *path, char *out, size_t max, char *err, size_t errlen)
{
	/* Room for the longest secret, its "\r\n" and one byte more, which
	 * tells a file that is too long without reading all of it. */
	char buf[VF_SECRET_MAX + 3];
	size_t len = 0, cap;
	int fd, ret = -1;

	if (max == 0 || max > VF_SECRET_MAX) {
		snprintf(err, errlen, "secret file %s: bad bound %zu", path, max);
		return -1;
	}
	cap = max + 3;
	/* O_NONBLOCK: a FIFO put in the file's place must not hang us in
	 * open(); check_file refuses it right after. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "secret file %s: %s", path, strerror(errno));
		return -1;
	}
	if (check_file(fd, path, err, errlen) < 0)
		goto out;
	while (len < cap) {
		ssize_t n = read(fd, buf + len, cap - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "secret file %s: %s", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > 0 && buf[len - 1] == '\n') {
		len--;
		if (len > 0 && buf[len - 1] == '\r')
			len--;
	}
	if (len == 0) {
		snprintf(err, errlen, "secret file %s: empty; expected 1..%zu bytes", path, max);
		goto out;
	}
	if (len > max) {
		snprintf(err, errlen, "secret file %s: too long; expected 1..%zu bytes "
			 "(and at most one trailing newline)", path, max);
		goto out;
	}
	if (memchr(buf, '\0', len) != NULL) {
		snprintf(err, errlen, "secret file %s: contains a NUL byte", path);
		goto out;
	}
	memcpy(out, buf, len);
	out[len] = '\0';
	ret = (int)len;
out:
	vf_secret_clear(buf, sizeof(buf));
	close(fd);
	return ret;
}
