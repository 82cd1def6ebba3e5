#!/bin/sh
# The 64-byte mac-forward loop over memif, one forwarding core per side,
# every pairing in one run (server <-> client):
#   dpdk<->dpdk     DPDK net_memif <-> DPDK net_memif (two testpmd; reference)
#   ours<->dpdk     memifctl       <-> DPDK net_memif
#   dpdk<->ours     DPDK net_memif <-> memifctl (copy)
#   ours<->ours     memifctl       <-> memifctl (copy)
#   dpdk<->ours-zc  DPDK net_memif <-> memifctl --zero-copy
#   ours<->ours-zc  memifctl       <-> memifctl --zero-copy
# for each number of packets in flight asked (INFLIGHT, default 32,256: the
# client's shell sends `start tx_first N/32`, N/32 bursts of 32, LINKWAIT
# seconds after it starts; both sides then mac-forward them back and
# forth).  The server forwards on lcore 1 (main lcore 0), the client on
# lcore 0 (main lcore 1); QUEUES=Q (bench/loopbench.py) gives each side Q
# queue pairs on Q cores of its own.  The rate is the client port's rx packets per
# second between two `show port stats` DURATION seconds apart, the first
# WARMUP seconds after the start.  Rings: both sides' defaults (1024
# slots, 2048-byte buffers).
#
# Each round runs, per regime, the limit probe (bench/limit_probe.c) and
# then every pairing once, the order rotated from round to round, so that a
# change in machine load hits all alike.  Printed per regime: the median of
# the rounds with the min-max range, the ratio of the medians to
# dpdk<->dpdk and the fraction of the probe's median.  Every testpmd gets its
# own --file-prefix, and its /var/run/dpdk/PREFIX is removed after it, also
# on failure or interrupt.  The busy-polling processes take
# /tmp/vf-poll.lock (flock) for the whole run, unless VF_POLL_LOCKED is set
# (the caller holds it).
# (bench/poll_lock.sh: under your own `flock /tmp/vf-poll.lock` without
# VF_POLL_LOCKED=1 it stops with that advice instead of waiting for itself.)
#
#   bench/memif.sh [SECONDS [ROUNDS]]   (the old positional form: DURATION, ROUNDS)
#   env: INFLIGHT (32,256), ROUNDS (5), DURATION (s, 5), LINKWAIT (s, 3),
#        WARMUP (s, 2), VF_BUILD (build), VF_BENCH_JSON (file for every
#        round's figure), PAIRS (only these pairings), VF_BUILD_BASE (a
#        second build: each pairing with memifctl also runs as base:PAIR
#        with that build's memifctl, the A/B test of one change), QUEUES (1)
# A full run (2 regimes, 5 rounds, 5 s) takes about 11 minutes.
#
# Smoke runs on the 2-core build machine while other sessions built and
# tested on it (a round of the first was hit by outside load: see the
# ranges), ROUNDS=3 DURATION=2 LINKWAIT=2 WARMUP=1, one run per regime,
# Mpps median [min-max], ratio to dpdk<->dpdk:
#   32 in flight:  dpdk<->dpdk 4.660 [4.148-4.857]; ours<->dpdk 4.532
#     [1.001-5.379] 0.97; dpdk<->ours 5.340 [1.167-8.496] 1.15; ours<->ours
#     3.824 [1.311-7.561] 0.82; dpdk<->ours-zc 5.160 [1.158-5.347] 1.11;
#     ours<->ours-zc 1.506 [1.423-5.866] 0.32; probe 20.399 [5.483-59.651]
#   256 in flight: dpdk<->dpdk 10.233 [9.963-13.213]; ours<->dpdk 11.136
#     [9.158-11.529] 1.09; dpdk<->ours 8.868 [7.266-13.103] 0.87;
#     ours<->ours 12.461 [4.520-12.564] 1.22; dpdk<->ours-zc 11.291
#     [4.191-12.136] 1.10; ours<->ours-zc 13.133 [10.218-15.834] 1.28;
#     probe 62.825 [61.603-69.173]
#   about 130 s each; nothing left in /var/run/dpdk.
set -eu
cd "$(dirname "$0")/.."
. bench/poll_lock.sh
vf_poll_lock "$@"
[ $# -ge 1 ] && export DURATION="$1"
[ $# -ge 2 ] && export ROUNDS="$2"
BUILD=${VF_BUILD:-build}
for b in "$BUILD" ${VF_BUILD_BASE:+"$VF_BUILD_BASE"}; do
    [ -x "$b/cmd/memifctl/memifctl" ] || { echo "not built: $b/cmd/memifctl/memifctl" >&2; exit 1; }
done
command -v dpdk-testpmd >/dev/null || { echo "dpdk-testpmd missing" >&2; exit 1; }

PYTHONPATH="$(pwd)/bench${PYTHONPATH:+:$PYTHONPATH}" exec python3 - <<'PY'
import os, time
import loopbench as lb

cfg = lb.configure()
BUILDS = {"": cfg.build, "base:": os.environ.get("VF_BUILD_BASE")}
EAL = ["--no-huge", "-m", "512", "--no-pci", "--log-level=*:error"]
S_CORES = lb.cores(cfg, "a", ["-l", "0-1", "--main-lcore", "0"])	# 2 CPUs: forwards on lcore 1
C_CORES = lb.cores(cfg, "b", ["-l", "0-1", "--main-lcore", "1"])	# 2 CPUs: forwards on lcore 0
Q = cfg.queues
OURS_Q = ["--queues", str(Q)]	# memifctl: rings per direction and the engine's queues
TPMD_Q = lb.testpmd_queues(cfg)
PAIRS = lb.pairs(["dpdk<->dpdk", "ours<->dpdk", "dpdk<->ours", "ours<->ours",
                  "dpdk<->ours-zc", "ours<->ours-zc"])


def listening(name):
    """Whether the abstract unix socket @name is bound."""
    try:
        with open("/proc/net/unix") as f:
            return any(ln.split()[-1] == "@" + name for ln in f if len(ln.split()) >= 8)
    except OSError:
        return False


def server(kind, sock, tag, memifctl):
    if kind == "ours":
        return lb.quiet([memifctl, *S_CORES, "--role", "server", "--socket", sock,
                         "--fwd", "mac", *OURS_Q], ours=True)
    pre = "bms" + tag
    return lb.quiet(["dpdk-testpmd", *S_CORES, *EAL, "--file-prefix", pre,
                     "--vdev", f"net_memif0,role=server,socket={sock}", "--",
                     f"--total-num-mbufs={8192 * Q}", "--forward-mode=mac", "--stats-period", "100",
                     *TPMD_Q],
                    prefix=pre)


def client(kind, sock, bursts, tag, memifctl):
    if kind.startswith("ours"):
        zc = ["--zero-copy"] if kind.endswith("-zc") else []
        return lb.shell_rate(cfg, [memifctl, *C_CORES, "--role", "client", "--socket", sock,
                                   "--reconnect-ms", "250", "--burst", "32", "--fwd", "mac", *zc, *OURS_Q],
                             True, bursts)
    pre = "bmc" + tag
    return lb.shell_rate(cfg, ["dpdk-testpmd", *C_CORES, *EAL, "--file-prefix", pre,
                               "--vdev", f"net_memif0,role=client,socket={sock}", "--", "-i",
                               f"--total-num-mbufs={8192 * Q}", "--forward-mode=mac", *TPMD_Q],
                         False, bursts, prefix=pre)


def one(group, pair, bursts, tag):
    base, pair = ("base:", pair[5:]) if pair.startswith("base:") else ("", pair)
    memifctl = f"{BUILDS[base]}/cmd/memifctl/memifctl"
    s_kind, c_kind = pair.split("<->")
    sock = "vfbench-" + tag	# abstract (both sides' default)
    srv = server(s_kind, sock, tag, memifctl)
    end = time.time() + 30
    while not listening(sock) and time.time() < end and srv.poll() is None:
        time.sleep(0.05)
    time.sleep(0.5)	# bound is not ready: a DPDK server registers its interface after
    return client(c_kind, sock, bursts, tag, memifctl)


lb.run(cfg, "memif 64 B mac loop (server<->client)", ["memif"], PAIRS, "dpdk<->dpdk", one)
PY
