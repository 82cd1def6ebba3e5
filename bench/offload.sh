#!/bin/sh
# The cost of negotiated offloads on the fast path when no packet asks for
# one (issue 15): the 64-byte mac loop vfwd virtio_user <-> vhostd, both
# sides with checksum and TSO offloads negotiated (vhostd tso=1, the
# virtio_user asking for csum, guest_csum, host_tso4/6, guest_tso4/6)
# against neither (vhostd csum=0,guest_csum=0,guest_tso4=0,guest_tso6=0;
# the virtio_user asking for none).  The frames carry no offload request,
# so the difference is the per-packet header test on dequeue and the flag
# test on enqueue; it must stay within the rounds' range.  The machinery is
# bench/vloop.sh's (loopbench.py): one forwarding core per side, medians of
# ROUNDS interleaved rounds with min-max, ratio to "ol-off".
#
#   bench/offload.sh [RINGS]   RINGS: comma list of split, split-io, packed,
#                              packed-io (default: split-io)
#   env: INFLIGHT (32,256), ROUNDS (5), DURATION (s, 5), LINKWAIT (s, 3),
#        WARMUP (s, 2), VF_BUILD (build), VF_BENCH_JSON
#
# Smoke run on the shared 2-core build machine (no few-percent difference
# is resolved here), split-io, ROUNDS=5 DURATION=2 INFLIGHT=32, Mpps median
# [min-max]: ol-off 5.315 [2.196-6.535], ol-on 5.632 [1.667-6.618] (1.06;
# the ranges overlap: within noise).  Deterministic instead: bench/vhost_micro
# under callgrind (64 B, dequeue + enqueue, instructions per packet): split
# 300.0 without offloads, 315.5 with them negotiated and no frame asking;
# packed 393.0 and 408.5.
#
# Guest-to-guest TCP with and without offloads is printed by
# tests/vhost/test_qemu_tcp.py (THROUGHPUT lines; VF_TCP_MB for more data).
set -eu
cd "$(dirname "$0")/.."
. bench/poll_lock.sh
vf_poll_lock "$@"
BUILD=${VF_BUILD:-build}
export VFWD="$BUILD/cmd/vfwd/vfwd" VHOSTD="$BUILD/cmd/vhostd/vhostd"
[ -x "$VFWD" ] && [ -x "$VHOSTD" ] || { echo "not built in $BUILD" >&2; exit 1; }
export RINGS="${1:-split-io}"

PYTHONPATH="$(pwd)/bench${PYTHONPATH:+:$PYTHONPATH}" exec python3 - <<'PY'
import os, shutil, tempfile, time
import loopbench as lb

cfg = lb.configure()
VFWD, VHOSTD = os.environ["VFWD"], os.environ["VHOSTD"]
RINGS = {"split": "packed_vq=0,in_order=0", "split-io": "packed_vq=0,in_order=1",
         "packed": "packed_vq=1,in_order=0", "packed-io": "packed_vq=1,in_order=1"}
rings = os.environ["RINGS"].split(",")
for r in rings:
    if r not in RINGS:
        raise SystemExit(f"unknown ring kind {r}: one of {', '.join(RINGS)}")
BE_CORES = ["-l", "0-1", "--main-lcore", "1"]	# forwards on lcore 0
FE_CORES = ["-l", "0-1", "--main-lcore", "0"]	# forwards on lcore 1
PAIRS = ["ol-off", "ol-on"]
BE = {"ol-off": "csum=0,guest_csum=0,guest_tso4=0,guest_tso6=0", "ol-on": "tso=1"}
FE = {"ol-off": "", "ol-on": ",csum=1,guest_csum=1,host_tso4=1,host_tso6=1,guest_tso4=1,guest_tso6=1"}


def one(ring, pair, bursts, tag):
    d = tempfile.mkdtemp(prefix="olbench-")
    sock = os.path.join(d, "vh.sock")
    try:
        be = lb.quiet([VHOSTD, *BE_CORES, "--port", f"vhost,iface={sock},{BE[pair]}",
                       "--fwd", "mac"], ours=True)
        end = time.time() + 30
        while not os.path.exists(sock) and time.time() < end and be.poll() is None:
            time.sleep(0.05)
        return lb.shell_rate(cfg, [VFWD, *FE_CORES, "--port",
                                   f"virtio_user,path={sock},{RINGS[ring]}{FE[pair]}",
                                   "--fwd", "mac"], True, bursts)
    finally:
        shutil.rmtree(d, ignore_errors=True)


lb.run(cfg, "vhost-user 64 B mac loop, ours<->ours, offloads negotiated or not", rings, PAIRS,
       "ol-off", one)
PY
