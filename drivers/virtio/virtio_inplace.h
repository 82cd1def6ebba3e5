/* virtio-net frames in place (vf_port.h, struct vf_slot_ops): split rings. */
#ifndef VIRTIO_INPLACE_H
#define VIRTIO_INPLACE_H

#include "vf_port.h"

extern const struct vf_slot_ops vio_slots_split;

#endif
