/* Takeover records on a unix stream socket, with their fds (SCM_RIGHTS).
 * Stream sockets keep a message's fds with its first byte and never merge
 * two sends' fds into one receive, so a record is read in as many receives
 * as it takes and the fds of all of them are gathered. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "vhost_takeover_wire.h"

void vh_to_close_fds(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
}

int vh_to_send(int fd, const void *buf, size_t len, const int *fds, int nfds)
{
	union {
		char buf[CMSG_SPACE(VH_TO_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} cb;
	size_t off = 0;

	if (nfds < 0 || nfds > VH_TO_MAX_FDS)
		return -EINVAL;
	while (off < len) {
		struct iovec iov = { (char *)buf + off, len - off };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;

		if (off == 0 && nfds > 0) {
			struct cmsghdr *cm;

			memset(&cb, 0, sizeof(cb));
			mh.msg_control = cb.buf;
			mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
			memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
		}
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (size_t)n;
	}
	return 0;
}

int vh_to_recv(int fd, void *buf, size_t len, int *fds, int maxfds, int *nfds)
{
	union {
		char buf[CMSG_SPACE(VH_TO_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} cb;
	size_t off = 0;
	int rc = 0;

	*nfds = 0;
	while (off < len && rc == 0) {
		struct iovec iov = { (char *)buf + off, len - off };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cb.buf, .msg_controllen = sizeof(cb.buf),
		};
		ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return rc = -errno, vh_to_close_fds(fds, *nfds), rc;
		/* every fd that came is ours to close, whatever else is wrong */
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS ||
			    cm->cmsg_len < CMSG_LEN(0))
				continue;
			size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			int *in = (int *)CMSG_DATA(cm);

			for (size_t i = 0; i < k; i++) {
				int got;

				memcpy(&got, &in[i], sizeof(got));
				if (*nfds < maxfds)
					fds[(*nfds)++] = got;
				else {
					close(got);
					rc = -E2BIG;
				}
			}
		}
		if (mh.msg_flags & MSG_CTRUNC)
			rc = -E2BIG;
		if (n == 0 && rc == 0)
			rc = -ECONNRESET;
		off += (size_t)n;
	}
	if (rc)
		vh_to_close_fds(fds, *nfds), *nfds = 0;
	return rc;
}
