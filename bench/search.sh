#!/bin/sh
# Repeatability of nullgen's default search (MLRsearch, RFC 9971): ROUNDS
# searches in a row against each device under test, and per device the
# median and the spread ((max - min) / median) of NDR, PDR and their
# conditional throughput, how many results were regular or tester-limited,
# and the time each search took.
#
# Devices (DUTS): memifctl (memif, mac reflector), testpmd-memif
# (dpdk-testpmd net_memif server, macswap), vhostd (our virtio_user), and
# testpmd-vhost (dpdk-testpmd net_vhost, macswap).  One forwarding core
# per side: on two CPUs the device on lcore 1, nullgen on lcore 0, each
# main thread on the other's core; with 4 CPUs or more, cores of their
# own (the device: main 0, forwarding 1; nullgen: main 2, forwarding 3),
# so that neither process's main thread preempts the other's forwarding
# (the "dedicated cores" row of the issue's target).  Rounds interleave
# the devices.  A fresh device per search.
#
#   bench/search.sh     env: ROUNDS (5), DUTS ("memifctl testpmd-memif"),
#                       ARGS (extra nullgen options, e.g. "--trial 0.5"),
#                       METHOD (mlr or bisect), VF_BUILD (build)
#
# Results: bench/RESULTS.md, "Search repeatability".
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
export ROUNDS="${ROUNDS:-5}" DUTS="${DUTS:-memifctl testpmd-memif}" ARGS="${ARGS:-}" \
    METHOD="${METHOD:-mlr}"

PYTHONPATH="$(pwd)/bench${PYTHONPATH:+:$PYTHONPATH}" exec python3 - <<'PY'
import json, os, shutil, signal, statistics, subprocess, sys, tempfile, time
from benchlib import stop

NULLGEN, MEMIFCTL, VHOSTD = os.environ["NULLGEN"], os.environ["MEMIFCTL"], os.environ["VHOSTD"]
ROUNDS, DUTS = int(os.environ["ROUNDS"]), os.environ["DUTS"].split()
ARGS, METHOD = os.environ["ARGS"].split(), os.environ["METHOD"]
if (os.cpu_count() or 1) >= 4:
    DUT_CORES = ["-l", "0-1", "--main-lcore", "0"]	# forwards on 1
    GEN_CORES = ["-l", "2-3", "--main-lcore", "2"]	# forwards on 3
else:
    DUT_CORES = ["-l", "0-1", "--main-lcore", "0"]	# forwards on 1
    GEN_CORES = ["-l", "0-1", "--main-lcore", "1"]	# forwards on 0
TP_EAL = ["--no-huge", "-m", "1024", "--no-pci", "--log-level=*:error"]
live, seq = [], [0]


class Dut:
    def __init__(self, kind):
        seq[0] += 1
        self.dir = tempfile.mkdtemp(prefix="vfsearch-")
        sock = os.path.join(self.dir, "s.sock")
        self.prefix = None
        if kind == "memifctl":
            cmd = [MEMIFCTL, *DUT_CORES, "--role", "server", "--socket", sock, "--socket-abstract", "no"]
            self.port = f"memif,role=client,socket={sock},socket-abstract=no"
        elif kind == "vhostd":
            cmd = [VHOSTD, *DUT_CORES, "--iface", sock]
            self.port = f"virtio_user,path={sock}"
        else:
            self.prefix = f"vfsearch{os.getpid()}x{seq[0]}"
            vdev = (f"net_memif0,role=server,socket={sock},socket-abstract=no"
                    if kind == "testpmd-memif" else f"net_vhost0,iface={sock}")
            cmd = ["dpdk-testpmd", *DUT_CORES, *TP_EAL, "--file-prefix", self.prefix, "--vdev", vdev,
                   "--", "--total-num-mbufs=16384", "--forward-mode=macswap", "-a",
                   # without -i, testpmd forwards until its stdin gives a line or
                   # EOF (ours is /dev/null: it quit at once, "ID not found"),
                   # unless it prints stats periodically
                   "--stats-period", "1000"]
            self.port = (f"memif,role=client,socket={sock},socket-abstract=no"
                         if kind == "testpmd-memif" else f"virtio_user,path={sock}")
        self.p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        live.append(self.p)
        end = time.time() + 20
        while not os.path.exists(sock) and time.time() < end and self.p.poll() is None:
            time.sleep(0.05)
        time.sleep(0.5)

    def close(self):
        stop(self.p)
        shutil.rmtree(self.dir, ignore_errors=True)
        if self.prefix:
            shutil.rmtree(f"/var/run/dpdk/{self.prefix}", ignore_errors=True)


def search(kind):
    dut = Dut(kind)
    t0 = time.time()
    try:
        r = subprocess.run([NULLGEN, *GEN_CORES, "--json", "--port", dut.port, "--fwd", "measure",
                            "--search", "--search-method", METHOD, *ARGS],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=900)
    finally:
        dut.close()
    last = None
    for ln in r.stdout.splitlines():
        if ln.startswith("{"):
            o = json.loads(ln)
            if o.get("final"):
                last = o["search"]
    if last is None:
        print(f"  ({kind}: no result, rc {r.returncode}: {r.stderr.strip()[-300:]})", file=sys.stderr)
    return last, time.time() - t0


def spread(v):
    v = [x for x in v if x == x]
    if not v:
        return "n/a"
    med = statistics.median(v)
    sp = (max(v) - min(v)) / med * 100 if med else float("nan")
    return f"{med / 1e6:8.4f} [{min(v) / 1e6:.4f}-{max(v) / 1e6:.4f}] {sp:5.1f} %"


res = {k: [] for k in DUTS}
try:
    for rnd in range(ROUNDS):
        for kind in DUTS:
            res[kind].append(search(kind))
        print(f"round {rnd + 1}/{ROUNDS} done", file=sys.stderr, flush=True)
    print(f"{METHOD} search {' '.join(ARGS)}, 64-byte frames, {ROUNDS} searches per device: "
          "median [min-max] spread, Mpps")
    for kind, runs in res.items():
        print(f"  {kind}")
        ok = [(s, t) for s, t in runs if s]
        if not ok:
            continue
        if METHOD == "bisect":
            for g in ("ndr", "pdr"):
                print(f"    {g.upper():<5} {spread([s[g]['rate_pps'] for s, _ in ok])}")
        else:
            names = [g["name"] for g in ok[0][0]["goals"]]
            for i, n in enumerate(names):
                gs = [s["goals"][i] for s, _ in ok]
                print(f"    {n:<5} lower {spread([g.get('lower_pps', float('nan')) for g in gs])}"
                      f"  cond. throughput {spread([g.get('conditional_throughput_pps', float('nan')) for g in gs])}"
                      f"  regular {sum(g['regular'] for g in gs)}/{len(gs)}"
                      f"  tester-limited {sum(g['tester_limited'] for g in gs)}/{len(gs)}")
            print(f"    tester limit {spread([s['tester_limit_pps'] for s, _ in ok])}")
        ts = [t for _, t in ok]
        tr = [s["trials"] for s, _ in ok]
        print(f"    time per search {statistics.median(ts):.1f} s [{min(ts):.1f}-{max(ts):.1f}], "
              f"trials {statistics.median(tr):.0f} [{min(tr)}-{max(tr)}]")
finally:
    for p in live:
        stop(p, signal.SIGKILL)
PY
