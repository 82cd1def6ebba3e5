#!/bin/sh
# The 64-byte mac-forward loop over vhost-user, every pairing of front-end
# and back-end in one run:
#   dpdk<->dpdk  dpdk-testpmd virtio_user <-> dpdk-testpmd net_vhost (reference)
#   dpdk<->ours  dpdk-testpmd virtio_user <-> vhostd
#   ours<->dpdk  vfwd virtio_user         <-> dpdk-testpmd net_vhost
#   ours<->ours  vfwd virtio_user         <-> vhostd
# for each ring kind asked (split, split in-order, packed, packed in-order;
# mrg_rxbuf at its default, 1, on both front-ends) and each number of
# packets in flight asked (INFLIGHT, default 32,256: the front-end's shell
# sends `start tx_first N/32`, N/32 bursts of 32, LINKWAIT seconds after it
# starts, once the link is up; both sides then mac-forward them back and
# forth).  One forwarding core per side: the back-end forwards on lcore 0,
# the front-end on lcore 1 (each process's main thread sleeps on the other
# core); QUEUES=Q (bench/loopbench.py) gives each side Q queue pairs on Q
# cores of its own.  The rate is the front-end's rx packets per second between two
# `show port stats` DURATION seconds apart, the first WARMUP seconds after
# the start.
#
# Each round runs, per regime, the limit probe (bench/limit_probe.c: two
# pinned threads passing the same number of 64-byte packets through SPSC
# rings of inline slots) and then every ring kind and every pairing once, the
# order of the pairings rotated from round to round, so that a change in
# machine load hits all alike.  Printed per ring kind and regime: the median
# of the rounds with the min-max range (the range is the resolution: on a
# shared machine a single lucky round is no figure), the ratio of the
# medians to dpdk<->dpdk, and the fraction of the probe's median.
#
# Every testpmd gets its own --file-prefix, and its /var/run/dpdk/PREFIX is
# removed after it, also on failure or interrupt (as are the runtime
# folders of our tools if one had to be killed).  The busy-polling
# processes take /tmp/vf-poll.lock (flock) for the whole run, unless
# VF_POLL_LOCKED is set (the caller holds it).
# (bench/poll_lock.sh: under your own `flock /tmp/vf-poll.lock` without
# VF_POLL_LOCKED=1 it stops with that advice instead of waiting for itself.)
#
#   bench/vloop.sh [RINGS]     RINGS: comma list of split, split-io, packed,
#                              packed-io (default: all four)
#   env: INFLIGHT (32,256), ROUNDS (5), DURATION (s, 5), LINKWAIT (s, 3),
#        WARMUP (s, 2), VF_BUILD (build), VF_BENCH_JSON (file for every
#        round's figure), PAIRS (comma list: only these pairings, e.g.
#        dpdk<->dpdk,ours<->ours), VF_BUILD_BASE (a second build folder,
#        e.g. of the commit before a change: every pairing with one of our
#        tools runs once more with that build's tools, labelled base:PAIR,
#        in the same interleaved rounds -- the A/B test of one change)
# A full run (4 rings, 2 regimes, 5 rounds, 5 s) takes about 35 minutes.
#
# Smoke run on the 2-core build machine while other sessions built and
# tested on it (so no few-percent difference is resolved here), split-io,
# ROUNDS=3 DURATION=2 LINKWAIT=2 WARMUP=1, Mpps median [min-max], ratio to
# dpdk<->dpdk, fraction of the probe:
#   32 in flight:  dpdk<->dpdk 4.348 [4.061-4.842]; dpdk<->ours 5.027
#     [4.716-5.926] 1.16; ours<->dpdk 5.004 [4.776-5.154] 1.15; ours<->ours
#     6.983 [5.908-7.397] 1.61 (0.34 of the probe); probe 20.303
#     [19.845-20.973]
#   256 in flight: dpdk<->dpdk 7.065 [6.667-7.496]; dpdk<->ours 9.393
#     [8.757-10.808] 1.33; ours<->dpdk 7.530 [6.880-8.682] 1.07; ours<->ours
#     12.598 [12.268-14.300] 1.78 (0.19); probe 65.891 [61.845-69.400]
#   187 s; nothing left in /var/run/dpdk.  The DPDK net_vhost back-end
#   maps the front-end's memory slowly on a loaded machine (its vhost-events
#   thread ran for seconds), so the window now starts once the front-end's
#   rx counter moves instead of at a fixed time; before that change
#   dpdk<->dpdk measured 0 to 0.9 Mpps here.
set -eu
cd "$(dirname "$0")/.."
. bench/poll_lock.sh
vf_poll_lock "$@"
BUILD=${VF_BUILD:-build}
for b in "$BUILD" ${VF_BUILD_BASE:+"$VF_BUILD_BASE"}; do
    [ -x "$b/cmd/vfwd/vfwd" ] && [ -x "$b/cmd/vhostd/vhostd" ] || { echo "not built in $b" >&2; exit 1; }
done
command -v dpdk-testpmd >/dev/null || { echo "dpdk-testpmd missing" >&2; exit 1; }
export RINGS="${1:-split,split-io,packed,packed-io}"

PYTHONPATH="$(pwd)/bench${PYTHONPATH:+:$PYTHONPATH}" exec python3 - <<'PY'
import os, shutil, tempfile, time
import loopbench as lb

cfg = lb.configure()
BUILDS = {"": cfg.build, "base:": os.environ.get("VF_BUILD_BASE")}
RINGS = {"split": "packed_vq=0,in_order=0", "split-io": "packed_vq=0,in_order=1",
         "packed": "packed_vq=1,in_order=0", "packed-io": "packed_vq=1,in_order=1"}
rings = os.environ["RINGS"].split(",")
for r in rings:
    if r not in RINGS:
        raise SystemExit(f"unknown ring kind {r}: one of {', '.join(RINGS)}")
EAL = ["--no-huge", "-m", "1024", "--no-pci", "--log-level=*:error"]
BE_CORES = lb.cores(cfg, "a", ["-l", "0-1", "--main-lcore", "1"])	# 2 CPUs: forwards on lcore 0
FE_CORES = lb.cores(cfg, "b", ["-l", "0-1", "--main-lcore", "0"])	# 2 CPUs: forwards on lcore 1
Q = cfg.queues
TPMD_Q = lb.testpmd_queues(cfg)
# a DPDK virtio_user front-end wants a control queue for more than one pair
VU_Q = f",queues={Q}" + (",cq=1" if Q > 1 else "")
PAIRS = lb.pairs(["dpdk<->dpdk", "dpdk<->ours", "ours<->dpdk", "ours<->ours"])


def backend(kind, sock, tag, build):
    if kind == "ours":
        return lb.quiet([f"{build}/cmd/vhostd/vhostd", *BE_CORES, "--iface", sock, "--fwd", "mac",
                         "--queues", str(Q)], ours=True)
    pre = "vlb" + tag
    return lb.quiet(["dpdk-testpmd", *BE_CORES, *EAL, "--file-prefix", pre,
                     "--vdev", f"net_vhost0,iface={sock},queues={Q}", "--",
                     f"--total-num-mbufs={16384 * Q}", "--forward-mode=mac", "--stats-period", "100",
                     *TPMD_Q], prefix=pre)


def frontend(kind, sock, args, bursts, tag, build):
    if kind == "ours":
        return lb.shell_rate(cfg, [f"{build}/cmd/vfwd/vfwd", *FE_CORES, "--port",
                                   f"virtio_user,path={sock},{args},queues={Q}",
                                   "--rxq", str(Q), "--txq", str(Q), "--fwd", "mac"], True, bursts)
    pre = "vlf" + tag
    return lb.shell_rate(cfg, ["dpdk-testpmd", *FE_CORES, *EAL, "--file-prefix", pre,
                               "--vdev", f"virtio_user0,path={sock},{args}{VU_Q}", "--", "-i",
                               f"--total-num-mbufs={16384 * Q}", "--forward-mode=mac", *TPMD_Q],
                         False, bursts, prefix=pre)


def one(ring, pair, bursts, tag):
    base, pair = ("base:", pair[5:]) if pair.startswith("base:") else ("", pair)
    build = BUILDS[base]
    fe_kind, be_kind = pair.split("<->")
    d = tempfile.mkdtemp(prefix="vloop-")
    sock = os.path.join(d, "vh.sock")
    try:
        be = backend(be_kind, sock, tag, build)
        end = time.time() + 30
        while not os.path.exists(sock) and time.time() < end and be.poll() is None:
            time.sleep(0.05)
        return frontend(fe_kind, sock, RINGS[ring], bursts, tag, build)
    finally:
        shutil.rmtree(d, ignore_errors=True)


lb.run(cfg, "vhost-user 64 B mac loop (front-end<->back-end)", rings, PAIRS, "dpdk<->dpdk", one)
PY
