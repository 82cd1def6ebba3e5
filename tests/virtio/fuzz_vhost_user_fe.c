/* libFuzzer: the vhost-user front-end reading fuzzer bytes as the backend's
 * replies (with EOF after them) through a whole negotiate/start/stop.  No
 * crash, no hang (EOF or a bad reply ends each call), no fd leaked. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "vf_mem.h"
#include "vhost_user_fe.h"

static int lowest_free_fd(void)
{
	int fd = dup(0);

	close(fd);
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static void *mem;
	static int memfd = -1;
	struct vu_fe fe;
	struct vf_mem_region reg;
	struct vu_fe_ring rings[2];
	struct vu_fe_want want = { true, true, 1 };
	int sv[2], before = lowest_free_fd();

	if (size > 16384)
		return 0;
	if (memfd < 0) {
		memfd = memfd_create("fz", 0);
		if (memfd < 0 || ftruncate(memfd, 65536) < 0)
			abort();
		mem = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
		before = lowest_free_fd();
	}
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		abort();
	/* The whole "backend" is queued up front, then EOF. */
	if (size && write(sv[1], data, size) != (ssize_t)size)
		abort();
	shutdown(sv[1], SHUT_WR);
	memset(&fe, 0, sizeof(fe));
	fe.fd = sv[0];
	fe.timeout_ms = 1000;
	reg = (struct vf_mem_region){ mem, 65536, memfd, 0 };
	for (int i = 0; i < 2; i++)
		rings[i] = (struct vu_fe_ring){ (uint32_t)i, 64, (uintptr_t)mem, (uintptr_t)mem + 1024,
						(uintptr_t)mem + 2048, memfd, memfd };
	if (vu_fe_negotiate(&fe, &want, true) == 0 && vu_fe_start(&fe, &reg, 1, rings, 2) == 0)
		vu_fe_stop(&fe, rings, 2);
	close(sv[0]);
	close(sv[1]);
	if (lowest_free_fd() != before)
		abort();		/* an fd from a reply leaked */
	return 0;
}
