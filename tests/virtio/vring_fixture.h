/* The virtqueue core tests' ring, once for both layouts: the ring's
 * memory and slot array, the device played in plain memory (vdev_emu.h,
 * vdev_emu_packed.h), and the cookies handed to the core.  A test file
 * defines VR_PACKED before including this for packed rings; without it
 * the ring is split.  It then initialises the core on ring_alloc's memory
 * with its layout's own init.  Include after cmocka.h. */
#ifndef VRING_FIXTURE_H
#define VRING_FIXTURE_H

#include <stdint.h>
#include <stdlib.h>

#ifdef VR_PACKED
#include "virtqueue_packed.h"
#include "vdev_emu_packed.h"
typedef struct vq_packed vr_vq;
typedef struct vqp_slot vr_slot;
typedef struct vpdev vr_dev;
#define vr_mem_size vqp_mem_size
#else
#include "virtqueue_split.h"
#include "vdev_emu.h"
typedef struct vq_split vr_vq;
typedef struct vqs_slot vr_slot;
typedef struct vdev vr_dev;
#define vr_mem_size vqs_mem_size
#endif

struct ring {
	vr_vq vq;
	void *mem;
	vr_slot *slots;
	vr_dev dev;
};

/* A ring of size entries: its memory (64-byte aligned, as the core
 * needs) and slots, the core not yet initialised. */
static struct ring *ring_alloc(uint16_t size)
{
	struct ring *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	assert_int_equal(posix_memalign(&r->mem, 64, vr_mem_size(size)), 0);
	r->slots = calloc(size, sizeof(*r->slots));
	return r;
}

static void ring_free(struct ring *r)
{
	free(r->mem);
	free(r->slots);
	free(r);
}

/* Cookies are small integers disguised as pointers (never NULL). */
#define CK(i) ((void *)(uintptr_t)((i) + 1))
#define UNCK(p) ((unsigned)((uintptr_t)(p) - 1))

#endif
