/* memif wire format: control messages and shared-memory ring layout, as on
 * the wire of DPDK 22.11 net_memif, libmemif and VPP (protocol 2.0).
 *
 * Control channel: AF_UNIX SOCK_SEQPACKET, every message exactly 128 bytes,
 * at most one SCM_RIGHTS fd (ADD_REGION: region memfd, ADD_RING: interrupt
 * eventfd).  All integers are host order (both ends share the machine).
 *
 * Shared ring (one per queue and direction), in a region the client owns:
 *
 *   +0    cookie  (u32, MEMIF_COOKIE)
 *   +4    flags   (u16, bit0 MASK_INT: the consumer polls, no eventfd)
 *   +6    head    (u16, written by the CLIENT only)
 *   +64   tail    (u16, written by the SERVER only)
 *   +128  desc[2^log2] (16 bytes each)
 *
 * C2S ring: client produces (head), server consumes (tail).
 * S2C ring: client posts empty buffers (head), server fills them (tail).
 * head/tail are free-running u16 counters; slot = counter & (size - 1). */
#ifndef MEMIF_PROTO_H
#define MEMIF_PROTO_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#define MEMIF_COOKIE		0x3E31F20u
#define MEMIF_VERSION		0x0200u		/* major 2, minor 0 */
#define MEMIF_NAME_SZ		32
#define MEMIF_SECRET_SZ		24
#define MEMIF_REASON_SZ		96
#define MEMIF_MSG_SZ		128
#define MEMIF_MAX_LOG2_RING	14
#define MEMIF_MAX_REGIONS	256		/* indices 0..255 */
#define MEMIF_MAX_RINGS		256

enum memif_msg_type {
	MEMIF_MSG_NONE = 0,
	MEMIF_MSG_ACK = 1,
	MEMIF_MSG_HELLO = 2,
	MEMIF_MSG_INIT = 3,
	MEMIF_MSG_ADD_REGION = 4,
	MEMIF_MSG_ADD_RING = 5,
	MEMIF_MSG_CONNECT = 6,
	MEMIF_MSG_CONNECTED = 7,
	MEMIF_MSG_DISCONNECT = 8,
	MEMIF_MSG_TYPE_MAX = 8,
};

enum memif_mode { MEMIF_MODE_ETHERNET = 0, MEMIF_MODE_IP = 1, MEMIF_MODE_PUNT = 2 };

#define MEMIF_RING_FLAG_C2S	0x1u	/* ADD_RING flags: client->server ring */
#define MEMIF_RING_FLAG_MASK_INT 0x1u	/* ring->flags: consumer polls */
#define MEMIF_DESC_FLAG_NEXT	0x1u	/* packet continues in the next slot */

struct memif_msg_hello {		/* server -> client */
	uint8_t name[MEMIF_NAME_SZ];
	uint16_t min_version;
	uint16_t max_version;
	uint16_t max_region;		/* highest region index accepted */
	uint16_t max_s2c_ring;		/* highest ring index (libmemif m2s) */
	uint16_t max_c2s_ring;		/* highest ring index (libmemif s2m) */
	uint8_t max_log2_ring_size;
} __attribute__((packed));

struct memif_msg_init {			/* client -> server */
	uint16_t version;
	uint32_t id;
	uint8_t mode;
	uint8_t secret[MEMIF_SECRET_SZ];
	uint8_t name[MEMIF_NAME_SZ];
} __attribute__((packed));

struct memif_msg_add_region {		/* client -> server, + memfd */
	uint16_t index;
	uint64_t size;
} __attribute__((packed));

struct memif_msg_add_ring {		/* client -> server, + eventfd */
	uint16_t flags;
	uint16_t index;
	uint16_t region;
	uint32_t offset;
	uint8_t log2_ring_size;
	uint16_t private_hdr_size;
} __attribute__((packed));

struct memif_msg_connect {		/* client -> server */
	uint8_t if_name[MEMIF_NAME_SZ];
} __attribute__((packed));

struct memif_msg_connected {		/* server -> client */
	uint8_t if_name[MEMIF_NAME_SZ];
} __attribute__((packed));

struct memif_msg_disconnect {		/* either way */
	uint32_t code;
	uint8_t string[MEMIF_REASON_SZ];
} __attribute__((packed));

struct memif_msg {
	uint16_t type;
	union {
		struct memif_msg_hello hello;
		struct memif_msg_init init;
		struct memif_msg_add_region add_region;
		struct memif_msg_add_ring add_ring;
		struct memif_msg_connect connect;
		struct memif_msg_connected connected;
		struct memif_msg_disconnect disconnect;
	};
	uint8_t pad[MEMIF_MSG_SZ - 2 - sizeof(struct memif_msg_disconnect)];
} __attribute__((packed));

struct memif_desc {
	uint16_t flags;
	uint16_t region;
	uint32_t length;
	uint32_t offset;
	uint32_t metadata;
};	/* naturally aligned: no packing needed, sizes asserted below */

struct memif_ring {
	uint32_t cookie;
	uint16_t flags;
	uint16_t head;			/* client writes */
	uint8_t pad0[56];
	uint16_t tail;			/* server writes */
	uint8_t pad1[62];
	struct memif_desc desc[];
};

/* Wire sizes and offsets, as DPDK 22.11 and libmemif lay them out. */
static_assert(sizeof(struct memif_msg_hello) == 43, "hello");
static_assert(sizeof(struct memif_msg_init) == 63, "init");
static_assert(offsetof(struct memif_msg_init, secret) == 7, "init.secret");
static_assert(offsetof(struct memif_msg_init, name) == 31, "init.name");
static_assert(sizeof(struct memif_msg_add_region) == 10, "add_region");
static_assert(sizeof(struct memif_msg_add_ring) == 13, "add_ring");
static_assert(offsetof(struct memif_msg_add_ring, offset) == 6, "add_ring.offset");
static_assert(offsetof(struct memif_msg_add_ring, private_hdr_size) == 11, "add_ring.phs");
static_assert(sizeof(struct memif_msg_connect) == 32, "connect");
static_assert(sizeof(struct memif_msg_disconnect) == 100, "disconnect");
static_assert(offsetof(struct memif_msg, hello) == 2, "payload at 2");
static_assert(sizeof(struct memif_msg) == MEMIF_MSG_SZ, "msg");
static_assert(sizeof(struct memif_desc) == 16, "desc");
static_assert(offsetof(struct memif_ring, flags) == 4, "ring.flags");
static_assert(offsetof(struct memif_ring, head) == 6, "ring.head");
static_assert(offsetof(struct memif_ring, tail) == 64, "ring.tail");
static_assert(offsetof(struct memif_ring, desc) == 128, "ring.desc");
static_assert(sizeof(struct memif_ring) == 128, "ring header");

/* Bytes of one ring with 2^log2 descriptors. */
static inline size_t memif_ring_bytes(unsigned int log2)
{
	return sizeof(struct memif_ring) + sizeof(struct memif_desc) * ((size_t)1 << log2);
}

#endif
