#!/bin/sh
# The 64-byte mac loop of bench/virtio_split.sh over packed rings
# (packed_vq=1 on both front-ends): ours vs DPDK's virtio_user against DPDK
# net_vhost, packed and packed in-order.
#   bench/virtio_packed.sh [BUILD_DIR]      env: DURATION (default 5), ROUNDS (1)
VIO_RING=packed exec "$(dirname "$0")/virtio_split.sh" "$@"
