/* vhost-user wire format shared by the front-end (drivers/virtio) and the
 * back-end (drivers/vhost).  Host byte order, packed, as on the wire of
 * QEMU and DPDK 22.11.  Structures that the Linux UAPI already has
 * (vhost_vring_state, vhost_vring_addr) are used from <linux/vhost_types.h>. */
#ifndef VHOST_USER_PROTO_H
#define VHOST_USER_PROTO_H

#include <stdint.h>
#include <linux/vhost_types.h>

enum vhost_user_request {
	VHOST_USER_NONE = 0,
	VHOST_USER_GET_FEATURES = 1,
	VHOST_USER_SET_FEATURES = 2,
	VHOST_USER_SET_OWNER = 3,
	VHOST_USER_RESET_OWNER = 4,
	VHOST_USER_SET_MEM_TABLE = 5,
	VHOST_USER_SET_LOG_BASE = 6,
	VHOST_USER_SET_LOG_FD = 7,
	VHOST_USER_SET_VRING_NUM = 8,
	VHOST_USER_SET_VRING_ADDR = 9,
	VHOST_USER_SET_VRING_BASE = 10,
	VHOST_USER_GET_VRING_BASE = 11,
	VHOST_USER_SET_VRING_KICK = 12,
	VHOST_USER_SET_VRING_CALL = 13,
	VHOST_USER_SET_VRING_ERR = 14,
	VHOST_USER_GET_PROTOCOL_FEATURES = 15,
	VHOST_USER_SET_PROTOCOL_FEATURES = 16,
	VHOST_USER_GET_QUEUE_NUM = 17,
	VHOST_USER_SET_VRING_ENABLE = 18,
	VHOST_USER_SEND_RARP = 19,
	VHOST_USER_NET_SET_MTU = 20,
	VHOST_USER_SET_BACKEND_REQ_FD = 21,
	VHOST_USER_IOTLB_MSG = 22,
	VHOST_USER_SET_VRING_ENDIAN = 23,
	VHOST_USER_GET_CONFIG = 24,
	VHOST_USER_SET_CONFIG = 25,
	VHOST_USER_GET_INFLIGHT_FD = 31,
	VHOST_USER_SET_INFLIGHT_FD = 32,
	VHOST_USER_RESET_DEVICE = 34,
	VHOST_USER_GET_MAX_MEM_SLOTS = 36,
	VHOST_USER_ADD_MEM_REG = 37,
	VHOST_USER_REM_MEM_REG = 38,
	VHOST_USER_SET_STATUS = 39,
	VHOST_USER_GET_STATUS = 40,
	VHOST_USER_MAX = 44,
};

/* Header flags */
#define VHOST_USER_VERSION	0x1u
#define VHOST_USER_VERSION_MASK	0x3u
#define VHOST_USER_F_REPLY	0x4u
#define VHOST_USER_F_NEED_REPLY	0x8u
/* Replies carry exactly this: QEMU and DPDK reject anything else. */
#define VHOST_USER_REPLY_FLAGS	(VHOST_USER_VERSION | VHOST_USER_F_REPLY)

/* Virtio feature bit 30: the back-end speaks protocol features. */
#define VHOST_USER_F_PROTOCOL_FEATURES 30

/* Protocol feature bits */
#define VHOST_USER_PROTOCOL_F_MQ		0
#define VHOST_USER_PROTOCOL_F_LOG_SHMFD		1
#define VHOST_USER_PROTOCOL_F_RARP		2
#define VHOST_USER_PROTOCOL_F_REPLY_ACK		3
#define VHOST_USER_PROTOCOL_F_NET_MTU		4
#define VHOST_USER_PROTOCOL_F_BACKEND_REQ	5
#define VHOST_USER_PROTOCOL_F_CONFIG		9
#define VHOST_USER_PROTOCOL_F_INFLIGHT_SHMFD	12
#define VHOST_USER_PROTOCOL_F_CONFIGURE_MEM_SLOTS 15
#define VHOST_USER_PROTOCOL_F_STATUS		16

/* SET_VRING_KICK/CALL/ERR payload */
#define VHOST_USER_VRING_IDX_MASK	0xffu
#define VHOST_USER_VRING_NOFD_MASK	0x100u

#define VHOST_USER_MAX_REGIONS	8
#define VHOST_USER_MAX_FDS	8

struct vhost_user_hdr {
	uint32_t request;
	uint32_t flags;
	uint32_t size;		/* payload bytes that follow */
} __attribute__((packed));

struct vhost_user_mem_region {
	uint64_t guest_phys_addr;	/* address space of descriptors */
	uint64_t memory_size;
	uint64_t userspace_addr;	/* front-end VA: ring addresses */
	uint64_t mmap_offset;		/* region start inside the fd */
} __attribute__((packed));

struct vhost_user_mem_table {
	uint32_t nregions;
	uint32_t padding;
	struct vhost_user_mem_region regions[VHOST_USER_MAX_REGIONS];
} __attribute__((packed));

/* SET_LOG_BASE with PROTOCOL_F_LOG_SHMFD: the log is [mmap_offset,
 * mmap_offset + mmap_size) of the fd that comes with it. */
struct vhost_user_log {
	uint64_t mmap_size;
	uint64_t mmap_offset;
} __attribute__((packed));

union vhost_user_payload {
	uint64_t u64;
	struct vhost_user_log log;
	struct vhost_vring_state state;
	struct vhost_vring_addr addr;
	struct vhost_user_mem_table mem;
};

struct vhost_user_msg {
	struct vhost_user_hdr hdr;
	union vhost_user_payload p;
} __attribute__((packed));

#define VHOST_USER_HDR_SIZE sizeof(struct vhost_user_hdr)
#define VHOST_USER_PAYLOAD_MAX sizeof(union vhost_user_payload)

_Static_assert(sizeof(struct vhost_user_hdr) == 12, "vhost-user header");
_Static_assert(sizeof(struct vhost_user_mem_region) == 32, "mem region");
_Static_assert(sizeof(struct vhost_vring_addr) == 40, "vring addr");

static inline const char *vhost_user_request_name(uint32_t req)
{
	static const char *const names[VHOST_USER_MAX] = {
		[1] = "GET_FEATURES", [2] = "SET_FEATURES", [3] = "SET_OWNER",
		[4] = "RESET_OWNER", [5] = "SET_MEM_TABLE", [6] = "SET_LOG_BASE",
		[7] = "SET_LOG_FD", [8] = "SET_VRING_NUM", [9] = "SET_VRING_ADDR",
		[10] = "SET_VRING_BASE", [11] = "GET_VRING_BASE",
		[12] = "SET_VRING_KICK", [13] = "SET_VRING_CALL",
		[14] = "SET_VRING_ERR", [15] = "GET_PROTOCOL_FEATURES",
		[16] = "SET_PROTOCOL_FEATURES", [17] = "GET_QUEUE_NUM",
		[18] = "SET_VRING_ENABLE", [19] = "SEND_RARP", [20] = "NET_SET_MTU",
		[21] = "SET_BACKEND_REQ_FD", [22] = "IOTLB_MSG",
		[23] = "SET_VRING_ENDIAN", [24] = "GET_CONFIG", [25] = "SET_CONFIG",
		[31] = "GET_INFLIGHT_FD", [32] = "SET_INFLIGHT_FD",
		[34] = "RESET_DEVICE", [36] = "GET_MAX_MEM_SLOTS",
		[37] = "ADD_MEM_REG", [38] = "REM_MEM_REG", [39] = "SET_STATUS",
		[40] = "GET_STATUS",
	};
	return req < VHOST_USER_MAX && names[req] ? names[req] : "UNKNOWN";
}

#endif
