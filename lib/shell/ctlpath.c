/* A control socket's path before we listen there (ctlpath.h). */
#include "ctlpath.h"

#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int vf__ctl_clear_stale(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, ret;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	ret = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ? -EADDRINUSE
	      : errno == ECONNREFUSED ? 0 : -errno;
	close(fd);
	if (ret == 0 && unlink(path) < 0 && errno != ENOENT)
		ret = -errno;
	return ret;
}
