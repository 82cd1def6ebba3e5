#!/bin/sh
# vhostd --takeover under traffic: N takeovers (default 10) in a row under
# nullgen's measure stream through vhostd (virtio_user, split then packed),
# then under DPDK testpmd's virtio_user looping 128 frames (io mode),
# at RATE packets/s (default 20000; the issue's target is 1 Mpps, which a
# shared 2-core machine cannot pace while three pollers share it).  Prints
# per kind the gap (how long the rings were stopped, as the new vhostd logs
# it: median and range), nullgen's loss and worst latency.
#   bench/takeover.sh [N [RATE]]   (needs ./build)
set -e
cd "$(dirname "$0")/.."
. bench/poll_lock.sh
vf_poll_lock "$@"
N=${1:-10}
RATE=${2:-20000}
for fe in "" --testpmd; do
    for kind in split packed; do
        echo "== $kind ${fe:-nullgen}"
        python3 tests/vhost/test_takeover.py "$kind" $fe --takeovers "$N" --rate "$RATE" |
            grep -E '^(nullgen|testpmd:|vhostd generations|split|packed|ok: (split|packed)|FAIL)'
    done
done
