#!/bin/sh
# The measure mode (nullgen --fwd measure) as a benchmark: what measuring
# costs, how much latency the measuring side adds, and NDR/PDR with
# latency of several devices under test, all in one run.
#
#  (a) cost     on one null port, nullgen --fwd measure against txonly
#               (tx Mpps) and rxonly (rx Mpps) on one forwarding core; over
#               memif, nullgen measure against a memifctl mac reflector
#               (Mpps that came back) against nullgen txonly into memifctl
#               rxonly (Mpps the generator sent).  The frames a null port
#               returns are not stamped: there rx only tells them foreign.
#  (b) bias     p50/p99 latency of nullgen <-> memifctl (mac reflector)
#               back to back at LOW_RATES (default 10 kpps and 100 kpps):
#               the floor every other figure includes (both memif drivers,
#               the reflector and our own polling).
#  (c) DUTs     nullgen --search (NDR, PDR at loss <= 0.5 %, latency at
#               10/50/90 % of PDR) against
#                 memifctl       memif, mac reflector
#                 vhostd         our virtio_user <-> vhostd (mac)
#                 testpmd-memif  dpdk-testpmd net_memif server, macswap
#                 testpmd-vhost  our virtio_user <-> dpdk-testpmd net_vhost, macswap
#
# One forwarding core per side: the device under test forwards on lcore 1
# (-l 0-1 --main-lcore 0), nullgen on lcore 0.  ROUNDS interleaved rounds;
# each figure is printed as the median and [min-max] over the rounds.
# 64-byte frames.  A testpmd instance gets its own --file-prefix, and its
# /var/run/dpdk/PREFIX is removed after it.
#
#   bench/measure.sh          env: ROUNDS (5), DURATION (s per cost/bias
#                             run, 3), TRIAL (s per search trial, 1),
#                             PRECISION (search, 0.005), LOW_RATES
#                             ("10000 100000"), PARTS ("cost bias dut"),
#                             DUTS (all four), VF_BUILD (build)
#
# The busy-polling processes take /tmp/vf-poll.lock (flock) for the whole
# run, unless VF_POLL_LOCKED is set (the caller holds it).
# (bench/poll_lock.sh: under your own `flock /tmp/vf-poll.lock` without
# VF_POLL_LOCKED=1 it stops with that advice instead of waiting for itself.)
#
# Figures, 2-core build machine (2 vCPUs, shared with other work, so the
# ranges are wide: NDR, a zero-loss rate, moves with every preemption),
# ROUNDS=3 DURATION=2 TRIAL=0.5 PRECISION=0.02, median [min-max]:
#  (a) null port, one core: txonly 83.9 [68.6-88.1] Mpps tx, rxonly 139.4
#      [109.8-140.1] rx, measure 16.3 [16.2-16.5] tx and 17.8 [17.6-17.9]
#      rx (0.19 of txonly): 61 ns per frame sent against 19 ns for a txonly
#      tx plus an rxonly rx.  memif: txonly into memifctl rxonly 22.8
#      [5.9-25.8] Mpps, measure through the memifctl reflector 8.1
#      [2.3-8.3] Mpps back (0.36; that includes the reflector's work).
#  (b) nullgen <-> memifctl, p50 / p99 us: 10 kpps 1.10 [1.06-8.77] / 57
#      [49-6193]; 100 kpps 0.99 [0.96-12.6] / 140 [51-963].
#  (c) Mpps NDR / PDR, then p50 / p99 us at 10 % and 90 % of PDR:
#      memifctl       3.56 [0.08-4.69] / 6.13 [2.23-7.23]  0.96/15.3  99.8/249
#      vhostd         1.55 [0.37-3.98] / 8.44 [7.12-9.26]  0.76/14.0  3.89/30.1
#      testpmd-memif  1.35 [0.86-4.22] / 8.26 [6.52-8.95]  1.02/293   102/255
#      testpmd-vhost  3.90 [2.55-4.25] / 6.08 [6.06-8.19]  0.76/14.7  4.13/58.6
#      PDR verified in every round; NDR in 1 to 2 of 3.  A search took 9 to
#      12 s (15 to 20 trials).
set -eu
cd "$(dirname "$0")/.."
. bench/poll_lock.sh
vf_poll_lock "$@"
BUILD=${VF_BUILD:-build}
export NULLGEN="$BUILD/cmd/nullgen/nullgen" MEMIFCTL="$BUILD/cmd/memifctl/memifctl" \
    VHOSTD="$BUILD/cmd/vhostd/vhostd"
for b in "$NULLGEN" "$MEMIFCTL" "$VHOSTD"; do
    [ -x "$b" ] || { echo "not built: $b" >&2; exit 1; }
done
command -v dpdk-testpmd >/dev/null || { echo "dpdk-testpmd missing" >&2; exit 1; }
export ROUNDS="${ROUNDS:-5}" DURATION="${DURATION:-3}" TRIAL="${TRIAL:-1}" \
    PRECISION="${PRECISION:-0.005}" LOW_RATES="${LOW_RATES:-10000 100000}" \
    PARTS="${PARTS:-cost bias dut}" DUTS="${DUTS:-memifctl vhostd testpmd-memif testpmd-vhost}"

PYTHONPATH="$(pwd)/bench${PYTHONPATH:+:$PYTHONPATH}" exec python3 - <<'EOF'
import json, os, shutil, signal, statistics, subprocess, sys, tempfile, time
from benchlib import stop

NULLGEN, MEMIFCTL, VHOSTD = os.environ["NULLGEN"], os.environ["MEMIFCTL"], os.environ["VHOSTD"]
ROUNDS, DUR = int(os.environ["ROUNDS"]), float(os.environ["DURATION"])
TRIAL, PREC = os.environ["TRIAL"], os.environ["PRECISION"]
LOW = [int(x) for x in os.environ["LOW_RATES"].split()]
PARTS, DUTS = os.environ["PARTS"].split(), os.environ["DUTS"].split()
DUT_CORES = ["-l", "0-1", "--main-lcore", "0"]	# forwards on lcore 1
GEN_CORES = ["-l", "0-1", "--main-lcore", "1"]	# forwards on lcore 0
TP_EAL = ["--no-huge", "-m", "1024", "--no-pci", "--log-level=*:error"]
live, prefixes = [], []
seq = [0]


def popen(cmd):
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    live.append(p)
    return p


def gen(args, timeout):
    """Runs nullgen with --json; returns the last JSON object it printed (the
    final one), or None."""
    cmd = [NULLGEN, *GEN_CORES, "--json", *args]
    try:
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        print(f"  (timed out: {' '.join(cmd)})", file=sys.stderr)
        return None
    last = None
    for ln in r.stdout.splitlines():
        if ln.startswith("{"):
            try:
                last = json.loads(ln)
            except ValueError:
                pass
    if last is None:
        print(f"  (no result, rc {r.returncode}: {' '.join(cmd)}: {r.stderr.strip()[-300:]})",
              file=sys.stderr)
    return last


class Dut:
    """A device under test on a fresh socket; .port is nullgen's port spec."""

    def __init__(self, kind, fwd="mac"):
        seq[0] += 1
        self.dir = tempfile.mkdtemp(prefix="vfmeas-")
        sock = os.path.join(self.dir, "s.sock")
        self.prefix = None
        if kind == "memifctl":
            cmd = [MEMIFCTL, *DUT_CORES, "--role", "server", "--socket", sock,
                   "--socket-abstract", "no", "--fwd", fwd]
            self.port = f"memif,role=client,socket={sock},socket-abstract=no"
        elif kind == "vhostd":
            cmd = [VHOSTD, *DUT_CORES, "--iface", sock]
            self.port = f"virtio_user,path={sock}"
        elif kind in ("testpmd-memif", "testpmd-vhost"):
            self.prefix = f"vfmeas{os.getpid()}x{seq[0]}"
            prefixes.append(self.prefix)
            vdev = (f"net_memif0,role=server,socket={sock},socket-abstract=no"
                    if kind == "testpmd-memif" else f"net_vhost0,iface={sock}")
            cmd = ["dpdk-testpmd", *DUT_CORES, *TP_EAL, "--file-prefix", self.prefix,
                   "--vdev", vdev, "--", "--total-num-mbufs=16384",
                   "--forward-mode=macswap", "-a", "--stats-period", "1000"]
            self.port = (f"memif,role=client,socket={sock},socket-abstract=no"
                         if kind == "testpmd-memif" else f"virtio_user,path={sock}")
        else:
            raise SystemExit(f"unknown DUT {kind}")
        self.p = popen(cmd)
        end = time.time() + 20
        while not os.path.exists(sock) and time.time() < end and self.p.poll() is None:
            time.sleep(0.05)
        time.sleep(0.5)

    def close(self):
        stop(self.p)
        shutil.rmtree(self.dir, ignore_errors=True)
        if self.prefix:
            shutil.rmtree(f"/var/run/dpdk/{self.prefix}", ignore_errors=True)


def port_pps(o, key):
    return o["ports"][0][key] / 1e6 if o else float("nan")


def cost_round(res):
    d = ["--duration", str(DUR)]
    to = DUR + 30
    o = gen(["--port", "null", "--fwd", "txonly", *d], to)
    res.setdefault("null txonly tx", []).append(port_pps(o, "tx_pps"))
    o = gen(["--port", "null", "--fwd", "rxonly", *d], to)
    res.setdefault("null rxonly rx", []).append(port_pps(o, "rx_pps"))
    o = gen(["--port", "null", "--fwd", "measure", *d], to)
    res.setdefault("null measure tx", []).append(port_pps(o, "tx_pps"))
    res.setdefault("null measure rx", []).append(port_pps(o, "rx_pps"))
    dut = Dut("memifctl", "rxonly")
    try:
        o = gen(["--port", dut.port, "--fwd", "txonly", *d], to)
        res.setdefault("memif txonly tx", []).append(port_pps(o, "tx_pps"))
    finally:
        dut.close()
    dut = Dut("memifctl")
    try:
        o = gen(["--port", dut.port, "--fwd", "measure", *d], to)
        res.setdefault("memif measure rx", []).append(port_pps(o, "rx_pps"))
        m = o["measure"]["total"] if o else None
        res.setdefault("memif measure loss%", []).append(
            m["loss_ratio"] * 100 if m else float("nan"))
    finally:
        dut.close()


def bias_round(res):
    dut = Dut("memifctl")
    try:
        for rate in LOW:
            n = max(1, int(rate * DUR))
            o = gen(["--port", dut.port, "--fwd", "measure", "--rate", str(rate),
                     "--count", str(n)], DUR + 30)
            lat = o["measure"]["total"]["latency_us"] if o else {}
            for k in ("p50", "p99", "p99_9"):
                res.setdefault(f"{rate} {k}", []).append(lat.get(k, float("nan")))
    finally:
        dut.close()


def dut_round(kind, res):
    dut = Dut(kind)
    try:
        # the bisection's figures, as recorded below; MLRsearch's
        # repeatability is bench/search.sh
        o = gen(["--port", dut.port, "--fwd", "measure", "--search", "--search-method", "bisect",
                 "--trial", TRIAL, "--precision", PREC], 600)
    finally:
        dut.close()
    s = o.get("search") if o else None
    nan = float("nan")
    r = res.setdefault(kind, {})
    r.setdefault("NDR", []).append(s["ndr"]["rate_pps"] / 1e6 if s else nan)
    r.setdefault("PDR", []).append(s["pdr"]["rate_pps"] / 1e6 if s else nan)
    r.setdefault("verified", []).append(
        f'{"y" if s and s["ndr"]["verified"] else "n"}{"y" if s and s["pdr"]["verified"] else "n"}')
    lat = {l["load"]: l["latency_us"] for l in s["latency"]} if s else {}
    for load in ("min", "10%", "50%", "90%"):
        for k in ("p50", "p99"):
            r.setdefault(f"{k}@{load}", []).append(lat.get(load, {}).get(k, nan))
    r.setdefault("trials", []).append(s["trials"] if s else nan)
    r.setdefault("elapsed", []).append(s["elapsed"] if s else nan)


def fig(v, fmt="%.3f"):
    v = [x for x in v if x == x]
    if not v:
        return "n/a"
    return (fmt % statistics.median(v)) + " [" + (fmt % min(v)) + "-" + (fmt % max(v)) + "]"


try:
    cost, bias, duts = {}, {}, {}
    t0 = time.time()
    for rnd in range(ROUNDS):
        if "cost" in PARTS:
            cost_round(cost)
        if "bias" in PARTS:
            bias_round(bias)
        if "dut" in PARTS:
            for kind in DUTS:
                dut_round(kind, duts)
        print(f"round {rnd + 1}/{ROUNDS} done after {time.time() - t0:.0f} s",
              file=sys.stderr, flush=True)
    print(f"measure mode, 64-byte frames, 1 forwarding core per side, {ROUNDS} rounds: "
          "median [min-max]")
    if cost:
        med = lambda k: statistics.median([x for x in cost[k] if x == x] or [0])
        print("\n(a) cost of measuring (Mpps)")
        for k in cost:
            print(f"  {k:<22} {fig(cost[k])}")
        for a, b in (("null measure tx", "null txonly tx"), ("null measure rx", "null rxonly rx"),
                     ("memif measure rx", "memif txonly tx")):
            if med(b):
                print(f"  ratio {a} / {b}: {med(a) / med(b):.2f}")
        if med("null measure tx") and med("null txonly tx") and med("null rxonly rx"):
            # per frame sent: its tx and one rx burst's share, against the
            # plain modes' tx and rx costs added up
            m = 1e3 / med("null measure tx")
            p = 1e3 / med("null txonly tx") + 1e3 / med("null rxonly rx")
            print(f"  null: measure {m:.1f} ns per frame sent (and the frames received"
                  f" meanwhile), txonly + rxonly {p:.1f} ns per frame sent + received")
    if bias:
        print("\n(b) nullgen <-> memifctl back to back, latency (us)")
        for k in bias:
            print(f"  {k:<22} {fig(bias[k], '%.2f')}")
    if duts:
        print(f"\n(c) search (trial {TRIAL} s, precision {PREC}, PDR loss <= 0.5 %), "
              "Mpps and latency (us)")
        for kind, r in duts.items():
            print(f"  {kind}")
            for k, v in r.items():
                if k == "verified":
                    print(f"    {'verified (ndr,pdr)':<14} {' '.join(v)}")
                else:
                    print(f"    {k:<14} {fig(v, '%.3f' if k in ('NDR', 'PDR') else '%.2f')}")
finally:
    for p in live:
        stop(p, signal.SIGKILL, 5)
    for pre in prefixes:
        shutil.rmtree(f"/var/run/dpdk/{pre}", ignore_errors=True)
EOF
