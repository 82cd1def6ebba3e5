/* libFuzzer target: the vhost-user message handler.  The input is a
 * sequence of records {u32 request, u32 flags, u16 size, u8 nfds, payload};
 * attached fds are duplicates of one memfd (the "guest memory") or of an
 * eventfd.  A rejected message closes the "connection" as the real server
 * does; every fd must be closed and every mapping gone at the end. */
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vhost/vhost_dev.h"

static int guest_fd = -1, ev_fd = -1;
static struct vh_dev dev;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (guest_fd < 0) {
		guest_fd = memfd_create("fuzz-guest", MFD_CLOEXEC);
		if (ftruncate(guest_fd, 1 << 20))
			return 0;
		ev_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	}
	vh_dev_init(&dev, "fuzz", 2);
	while (size >= 11) {
		struct vhost_user_msg m, reply;
		int fds[VHOST_USER_MAX_FDS];
		uint16_t psize;
		uint32_t rlen;
		uint8_t nfds;

		memset(&m, 0, sizeof(m));
		memcpy(&m.hdr.request, data, 4);
		memcpy(&m.hdr.flags, data + 4, 4);
		memcpy(&psize, data + 8, 2);
		nfds = data[10] % (VHOST_USER_MAX_FDS + 1);
		data += 11;
		size -= 11;
		psize %= VHOST_USER_PAYLOAD_MAX + 1;
		if (psize > size)
			psize = (uint16_t)size;
		m.hdr.size = psize;
		memcpy(&m.p, data, psize);
		data += psize;
		size -= psize;
		for (unsigned int i = 0; i < nfds; i++)
			fds[i] = dup((i & 1) ? ev_fd : guest_fd);
		if (vh_user_handle(&dev, &m, VHOST_USER_HDR_SIZE + psize, fds, nfds,
				   &reply, &rlen) != 0)
			vh_dev_disconnect(&dev);
	}
	vh_dev_disconnect(&dev);
	return 0;
}
