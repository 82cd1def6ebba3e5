/* Test helpers: play a memif peer over a socketpair against the real
 * handler and socket code (memif_conn_input), with real memfds and
 * eventfds.  Internal header of the memif tests. */
#ifndef MEMIF_PEER_H
#define MEMIF_PEER_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "memif/memif.h"

static inline int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Sends a 128-byte message (or len bytes) with up to 2 fds (-1: none). */
static inline int peer_send(int s, const struct memif_msg *m, size_t len, int fd1, int fd2)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr a;
	} ctl;
	struct iovec iov = { (void *)m, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fds[2], n = 0;

	/* only the fds given (>= 0), in order: fd2 alone travels alone */
	if (fd1 >= 0)
		fds[n++] = fd1;
	if (fd2 >= 0)
		fds[n++] = fd2;

	if (n) {
		struct cmsghdr *cm;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(n * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, n * sizeof(int));
	}
	return sendmsg(s, &mh, MSG_DONTWAIT) == (ssize_t)len ? 0 : -1;
}

/* Receives one message; returns its type, 0 if none waiting, -1 on EOF.
 * A received fd is closed (the test does not need it). */
static inline int peer_recv(int s, struct memif_msg *m)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr a;
	} ctl;
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
	ssize_t n = recvmsg(s, &mh, MSG_DONTWAIT);

	if (n < 0)
		return 0;
	if (n == 0)
		return -1;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		int fd;

		memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
		close(fd);
	}
	return m->type;
}

static inline struct memif_msg msg_of(uint16_t type)
{
	struct memif_msg m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	return m;
}

static inline struct memif_msg msg_init(uint32_t id, const char *secret)
{
	struct memif_msg m = msg_of(MEMIF_MSG_INIT);

	m.init.version = MEMIF_VERSION;
	m.init.id = id;
	m.init.mode = MEMIF_MODE_ETHERNET;
	if (secret)
		memcpy(m.init.secret, secret, strlen(secret));
	snprintf((char *)m.init.name, sizeof(m.init.name), "test");
	return m;
}

static inline struct memif_msg msg_region(uint16_t idx, uint64_t size)
{
	struct memif_msg m = msg_of(MEMIF_MSG_ADD_REGION);

	m.add_region.index = idx;
	m.add_region.size = size;
	return m;
}

static inline struct memif_msg msg_ring(bool c2s, uint16_t idx, uint16_t region,
					 uint32_t off, uint8_t log2)
{
	struct memif_msg m = msg_of(MEMIF_MSG_ADD_RING);

	m.add_ring.flags = c2s ? MEMIF_RING_FLAG_C2S : 0;
	m.add_ring.index = idx;
	m.add_ring.region = region;
	m.add_ring.offset = off;
	m.add_ring.log2_ring_size = log2;
	return m;
}

/* A memfd of len bytes with two rings of 2^log2 at 0 and ring_bytes,
 * cookies set; returns the fd, the mapping in *map. */
static inline int peer_region(size_t len, unsigned int log2, void **map)
{
	int fd = memfd_create("peer", MFD_CLOEXEC);
	uint8_t *p;

	if (fd < 0 || ftruncate(fd, len) < 0)
		return -1;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	((struct memif_ring *)p)->cookie = MEMIF_COOKIE;
	if (2 * memif_ring_bytes(log2) <= len)
		((struct memif_ring *)(p + memif_ring_bytes(log2)))->cookie = MEMIF_COOKIE;
	*map = p;
	return fd;
}

#endif
