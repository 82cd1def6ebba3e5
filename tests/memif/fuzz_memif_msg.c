/* libFuzzer target: the memif control-message handler, through the real
 * receive path (recvmsg with fds on a socketpair, memif_conn_input).
 *
 * Input: a role byte (even: we are the server, odd: the client), then
 * records of 1 fd byte + 128 message bytes.  fd byte & 3: 0 none,
 * 1 a 64 KiB memfd whose every 64-byte line starts with the ring cookie,
 * 2 an eventfd, 3 both (always refused).  A connection that we close is
 * replaced by a new one.  After each input every fd must be closed again
 * and nothing may crash or trip the sanitizers. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "memif/memif.h"
#include "memif_peer.h"
#include "vf_log.h"

#define REGION_BYTES (64 * 1024)

static struct memif_sock *sock;
static struct memif_if *srv, *cli;
static int fds_base;

static struct memif_if *make_if(bool server, uint32_t id)
{
	struct memif_cfg cfg = { .server = server, .id = id, .bsize = 256, .log2 = 4 };
	struct memif_if *mif;

	snprintf(cfg.socket, sizeof(cfg.socket), "vf-fuzz-%d", getpid());
	cfg.abstract = true;
	snprintf(cfg.if_name, sizeof(cfg.if_name), "fz%u", id);
	mif = memif_if_new(&cfg);
	if (mif == NULL || memif_if_configure(mif, 2, 2, NULL) != 0)
		abort();
	mif->enabled = true;
	mif->state = server ? MEMIF_ST_LISTENING : MEMIF_ST_CONNECTING;
	return mif;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[128], name[64];

	vf_log_set_level(VF_LOG_ERR);
	snprintf(name, sizeof(name), "vf-fuzz-%d", getpid());
	sock = memif_sock_get(name, true, err, sizeof(err));
	if (sock == NULL)
		abort();
	srv = make_if(true, 5);
	cli = make_if(false, 5);
	if (memif_sock_attach(sock, srv, err, sizeof(err)) != 0)
		abort();
	return 0;
}

static int region_fd(void)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	uint8_t *p;

	if (fd < 0 || ftruncate(fd, REGION_BYTES) < 0)
		abort();
	p = mmap(NULL, REGION_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		abort();
	for (size_t off = 0; off < REGION_BYTES; off += 64) {
		uint32_t c = MEMIF_COOKIE;

		memcpy(p + off, &c, sizeof(c));
	}
	munmap(p, REGION_BYTES);
	return fd;
}

static struct memif_conn *new_conn(bool server, int *peer)
{
	struct memif_conn *c;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	*peer = sv[1];
	c = memif_conn_new(sv[0], server ? sock : NULL, server ? NULL : cli);
	if (server) {
		memif_msg_queue_hello(c);
		memif_conn_send_next(c);
	}
	return c;
}

static void drain(int peer)
{
	char buf[256];

	/* replies may carry fds (client side: region, eventfds): close them */
	for (;;) {
		union {
			char b[CMSG_SPACE(4 * sizeof(int))];
			struct cmsghdr a;
		} ctl;
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = ctl.b, .msg_controllen = sizeof(ctl.b) };

		if (recvmsg(peer, &mh, MSG_DONTWAIT) <= 0)
			return;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < k; i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
				close(fd);
			}
		}
	}
}

static void send_rec(int peer, const uint8_t *msg, uint8_t fdsel)
{
	int f1 = (fdsel & 1) ? region_fd() : -1;
	int f2 = (fdsel & 2) ? eventfd(0, EFD_CLOEXEC) : -1;

	(void)peer_send(peer, (const struct memif_msg *)(const void *)msg, MEMIF_MSG_SZ, f1, f2);
	if (f1 >= 0)
		close(f1);
	if (f2 >= 0)
		close(f2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memif_conn *c;
	bool server;
	int peer;

	if (size < 1)
		return 0;
	fds_base = count_fds();	/* libFuzzer itself opens files between runs */
	server = !(data[0] & 1);
	data++;
	size--;
	c = new_conn(server, &peer);
	while (size >= 1 + MEMIF_MSG_SZ) {
		send_rec(peer, data + 1, data[0] & 3);
		if (memif_conn_input(c) < 0) {
			/* closed by us: a fresh connection for what follows */
			close(peer);
			c = new_conn(server, &peer);
		}
		drain(peer);
		data += 1 + MEMIF_MSG_SZ;
		size -= 1 + MEMIF_MSG_SZ;
	}
	memif_conn_close(c, "Device stopped");
	close(peer);
	if (srv->conn != NULL || cli->conn != NULL || srv->nregions != 0 || cli->nregions != 0)
		abort();
	if (count_fds() != fds_base)
		abort();	/* an fd leaked */
	return 0;
}
