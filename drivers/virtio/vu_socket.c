/* Unix sockets of the vhost-user front-end (see vu_socket.h). */
#include "vu_socket.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int vu_sock_connect(const char *path, bool nonblock)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);

	if (fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	/* Requests are written with blocking sendmsg; replies are polled. */
	if (nonblock)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int vu_sock_listen(const char *path, const struct vf_access *acc, char *err, size_t errlen)
{
	struct stat st;
	int fd, rc;

	if (stat(path, &st) == 0) {
		/* A live listener keeps its socket; a stale file is replaced. */
		int c = vu_sock_connect(path, true);

		if (c >= 0) {
			close(c);
			snprintf(err, errlen, "%s is in use by another listener", path);
			return -EADDRINUSE;
		}
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "%s exists and is not a socket", path);
			return -EEXIST;
		}
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto fail;
	/* Mode and group are set before the file appears at path. */
	rc = vf_sock_listen_file(fd, path, acc, 1, err, errlen);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
fail:
	snprintf(err, errlen, "cannot listen on %s: %s", path, strerror(errno));
	return -errno;
}
