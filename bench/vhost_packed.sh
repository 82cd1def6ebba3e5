#!/bin/sh
# The 64-byte mac-forward loop over packed rings: DPDK virtio_user
# (packed_vq=1) against vhostd and against DPDK's net_vhost, same cores,
# same run, as bench/vhost_split.sh (which does the work).  Variants:
# packed, packed in-order, packed mergeable.
#   bench/vhost_packed.sh [SECONDS [ROUNDS]]   (default 5 3; needs ./build)
# Last figures (vhperf branch, 2 shared cores, noisy: see vhost_split.sh):
# best of 5 rounds of 4 s: packed 4.03 vs DPDK 2.91 Mpps (1.38), packed
# in-order 5.74 vs 3.55 (1.62), packed mergeable 3.40 vs 3.13 (1.09); best
# of 3 rounds of 5 s at load ~5: 0.94, 1.24, 0.85.  Before the
# four-descriptor path: 0.5 to 0.76.
VHB_VARIANTS="packed:,packed_vq=1,in_order=0,mrg_rxbuf=0 \
packed-in-order:,packed_vq=1,in_order=1,mrg_rxbuf=0 \
packed-mergeable:,packed_vq=1,in_order=0,mrg_rxbuf=1"
export VHB_VARIANTS
exec "$(dirname "$0")/vhost_split.sh" "$@"
