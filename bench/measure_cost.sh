#!/bin/sh
# What measuring costs against plain forwarding on one core (issue 26,
# item 1): does nullgen --fwd measure keep up with a mac loop through the
# same peer?
#
#   null    two null ports, one core: io against measure (tx Mpps per port).
#           io never touches a frame there, measure builds, stamps and checks
#           every one, so this is the bare cost of the measuring itself.
#   memif   a memifctl mac reflector (server, own core) and, on the other
#           core, a vfwd mac loop with INFLIGHT frames (`start tx_first`)
#           against nullgen --fwd measure unthrottled: Mpps that came back.
#   vhost   the same through vhostd (our virtio_user front-end).
#
# ROUNDS interleaved rounds; each figure is the median and [min-max].
# VF_BUILD_BASE: a second build whose nullgen also runs (as "base"), in the
# same rounds, so a change is measured before and after on the same load.
#
#   bench/measure_cost.sh   env: ROUNDS (5), DURATION (3 s), INFLIGHT (256),
#                           PARTS ("null memif vhost"), VF_BUILD (build),
#                           VF_BUILD_BASE (unset), RINGS (log2 ring sizes for
#                           extra measure rows with smaller rings, e.g. 8,9),
#                           QUEUES (1), TXPKTS (64: the frame length, every
#                           row), STAMP (1: an extra row "measure stamp",
#                           nullgen --check stamp)
#
# QUEUES=Q: every port with Q queue pairs, each on a forwarding core of its
# own on both sides (the peer: main lcore 0, forwarding 1..Q; nullgen and
# the mac loop's vfwd: main Q+1, forwarding Q+2..2Q+1; 2Q+2 CPUs), the mac
# loop with INFLIGHT per queue; one queue on fewer than 4 CPUs keeps the
# two-core layout above.  The issue's scaling test: measuring with Q queues
# moves at least 0.9 x Q times what it moves with one.
#
# The busy-polling processes take /tmp/vf-poll.lock (flock) for the whole
# run, unless VF_POLL_LOCKED is set (the caller holds it).
set -eu
cd "$(dirname "$0")/.."
. bench/poll_lock.sh
vf_poll_lock "$@"
BUILD=${VF_BUILD:-build}
export NULLGEN="$BUILD/cmd/nullgen/nullgen" MEMIFCTL="$BUILD/cmd/memifctl/memifctl" \
    VHOSTD="$BUILD/cmd/vhostd/vhostd" VFWD="$BUILD/cmd/vfwd/vfwd" \
    NULLGEN_BASE="${VF_BUILD_BASE:+$VF_BUILD_BASE/cmd/nullgen/nullgen}"
for b in "$NULLGEN" "$MEMIFCTL" "$VHOSTD" "$VFWD" ${NULLGEN_BASE:+"$NULLGEN_BASE"}; do
    [ -x "$b" ] || { echo "not built: $b" >&2; exit 1; }
done
export TXPKTS="${TXPKTS:-64}" STAMP="${STAMP:-0}"
export ROUNDS="${ROUNDS:-5}" DURATION="${DURATION:-3}" INFLIGHT="${INFLIGHT:-256}" \
    PARTS="${PARTS:-null memif vhost}" QUEUES="${QUEUES:-1}"

PYTHONPATH="$(pwd)/bench${PYTHONPATH:+:$PYTHONPATH}" exec python3 - <<'EOF'
import json, os, shutil, statistics, subprocess, sys, tempfile, time
from benchlib import last_json, stop

E = os.environ
NULLGEN, MEMIFCTL, VHOSTD, VFWD = E["NULLGEN"], E["MEMIFCTL"], E["VHOSTD"], E["VFWD"]
BASE = E.get("NULLGEN_BASE") or None
ROUNDS, DUR, INFLIGHT = int(E["ROUNDS"]), float(E["DURATION"]), int(E["INFLIGHT"])
LEN = ["--txpkts", E["TXPKTS"]]
STAMP = E["STAMP"] == "1"
PARTS = E["PARTS"].split()
Q = int(E["QUEUES"])
NCPU = os.cpu_count() or 1
if Q == 1 and NCPU < 4:
    PEER = ["-l", "0-1", "--main-lcore", "0"]	# forwards on lcore 1
    GEN = ["-l", "0-1", "--main-lcore", "1"]	# forwards on lcore 0
elif 2 * Q + 2 > NCPU:
    sys.exit(f"QUEUES={Q} needs {2 * Q + 2} CPUs, this machine has {NCPU}")
else:
    PEER = ["-l", f"0-{Q}", "--main-lcore", "0"]
    GEN = ["-l", f"{Q + 1}-{2 * Q + 1}", "--main-lcore", str(Q + 1)]
GEN_Q = ["--rxq", str(Q), "--txq", str(Q)]
GENS = [("new", NULLGEN)] + ([("base", BASE)] if BASE else [])


class Peer:
    """A reflector on its own core and a fresh socket; .port is our spec."""

    def __init__(self, kind):
        self.dir = tempfile.mkdtemp(prefix="vfcost-")
        sock = os.path.join(self.dir, "s.sock")
        if kind == "memif":
            cmd = [MEMIFCTL, *PEER, "--role", "server", "--socket", sock,
                   "--socket-abstract", "no", "--fwd", "mac", "--queues", str(Q)]
            self.port = f"memif,role=client,socket={sock},socket-abstract=no"
        else:
            cmd = [VHOSTD, *PEER, "--iface", sock, "--queues", str(Q)]
            self.port = f"virtio_user,path={sock},queues={Q}"
        self.p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        end = time.time() + 20
        while not os.path.exists(sock) and time.time() < end:
            time.sleep(0.05)
        time.sleep(0.5)

    def close(self):
        stop(self.p)
        shutil.rmtree(self.dir, ignore_errors=True)


def mac_loop(port):
    """vfwd's mac loop with INFLIGHT frames: Mpps received."""
    cli = subprocess.Popen([VFWD, *GEN, *GEN_Q, *LEN, "-i", "--port", port, "--fwd", "mac"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)

    def rx():
        cli.stdin.write("show port stats 0 json\n")
        cli.stdin.flush()
        while True:
            ln = cli.stdout.readline()
            if not ln:
                return None
            if ln.startswith('{"ports"'):
                return json.loads(ln)["ports"][0]["ipackets"], time.time()

    try:
        time.sleep(2.0)
        cli.stdin.write(f"start tx_first {max(1, INFLIGHT // 32)}\n")
        cli.stdin.flush()
        time.sleep(1.5)
        a = rx()
        time.sleep(DUR)
        b = rx()
        cli.stdin.write("quit\n")
        cli.stdin.flush()
    except BrokenPipeError:
        a = b = None
    stop(cli)
    if not a or not b:
        return float("nan")
    return (b[0] - a[0]) / (b[1] - a[1]) / 1e6


def measure(gen, port, extra=()):
    o = last_json([gen, *GEN, *GEN_Q, *LEN, *extra, "--json", "--port", port, "--fwd", "measure",
                   "--duration", str(DUR)], DUR + 40)
    return o["ports"][0]["rx_pps"] / 1e6 if o else float("nan")


res = {}
RINGS = [int(x) for x in os.environ.get("RINGS", "").split(",") if x]


def add(k, v):
    res.setdefault(k, []).append(v)


for rnd in range(ROUNDS):
    gens = GENS if rnd % 2 == 0 else GENS[::-1]
    if "null" in PARTS:
        o = last_json([NULLGEN, *GEN, *GEN_Q, *LEN, "--json", "--port", "null", "--port", "null",
                       "--fwd", "io", "--duration", str(DUR)], DUR + 40)
        add(("null", "io"), o["ports"][0]["tx_pps"] / 1e6 if o else float("nan"))
        for name, g in gens:
            o = last_json([g, *GEN, *GEN_Q, *LEN, "--json", "--port", "null", "--port", "null",
                           "--fwd", "measure", "--duration", str(DUR)], DUR + 40)
            add(("null", f"measure {name}"), o["ports"][0]["tx_pps"] / 1e6 if o else float("nan"))
    for kind in ("memif", "vhost"):
        if kind not in PARTS:
            continue
        peer = Peer(kind)
        try:
            add((kind, "mac loop"), mac_loop(peer.port))
            for name, g in gens:
                add((kind, f"measure {name}"), measure(g, peer.port))
            if STAMP:
                add((kind, "measure stamp"), measure(NULLGEN, peer.port, ["--check", "stamp"]))
            # the same with smaller rings on nullgen's side: fewer frames
            # in flight, as in the mac loop (what a full ring costs)
            for lg in RINGS:
                extra = f",rsize={lg}" if kind == "memif" else f",queue_size={1 << lg}"
                add((kind, f"measure ring {1 << lg}"), measure(NULLGEN, peer.port + extra))
        finally:
            peer.close()
    print(f"round {rnd + 1}/{ROUNDS} done", file=sys.stderr)


def med(k):
    v = [x for x in res.get(k, []) if x == x]
    return statistics.median(v) if v else float("nan")


print(f"\nMpps, median [min-max] of {ROUNDS} rounds, {DUR:g} s each, {Q} queue pair(s) on as "
      f"many cores per side, mac loop with {INFLIGHT} in flight per queue, "
      f"{E['TXPKTS']}-byte frames")
for k in sorted(res, key=lambda k: (["null", "memif", "vhost"].index(k[0]), k[1])):
    v = [x for x in res[k] if x == x]
    ref = ("null", "io") if k[0] == "null" else (k[0], "mac loop")
    ratio = med(k) / med(ref) if k != ref else 1.0
    rng = f"[{min(v):.2f}-{max(v):.2f}]" if v else "[-]"
    print(f"  {k[0]:6} {k[1]:14} {med(k):7.2f} {rng:15} {ratio:5.2f}x")
EOF
