#!/bin/sh
# The 64-byte mac-forward loop over packed rings: DPDK virtio_user
# (packed_vq=1) against vhostd and against DPDK's net_vhost, same cores,
# same run, as bench/vhost_split.sh (which does the work).  Variants:
# packed, packed in-order, packed mergeable.
#   bench/vhost_packed.sh [SECONDS [ROUNDS]]   (default 5 3; needs ./build)
VHB_VARIANTS="packed:,packed_vq=1,in_order=0,mrg_rxbuf=0 \
packed-in-order:,packed_vq=1,in_order=1,mrg_rxbuf=0 \
packed-mergeable:,packed_vq=1,in_order=0,mrg_rxbuf=1"
export VHB_VARIANTS
exec "$(dirname "$0")/vhost_split.sh" "$@"
