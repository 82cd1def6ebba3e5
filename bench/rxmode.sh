#!/bin/sh
# Rx modes (poll, interrupt, adaptive) on memifctl or vhostd (DEVICE), the
# three figures that decide whether a daemon may sleep when idle:
#   idle    CPU seconds per second of the daemon with N ports (IDLE_PORTS,
#           default 1,16,31): memifctl's memif servers, one connected to an
#           idle vfwd client, the others listening; vhostd's --iface ports,
#           every one connected to an idle vfwd virtio_user port;
#   wake    nullgen --fwd measure through the daemon (mac reflector) at 1
#           and 10 kpps for DURATION s: latency p50 and p99 in us;
#   load    the 64-byte mac loop daemon (the mode) <-> vfwd (memif client
#           or virtio_user, poll) with 32 and 256 frames in flight: Mpps at
#           vfwd, and the ratio to poll.
# Rounds (ROUNDS, default 5) rotate the modes; printed: the median of the
# rounds and the min-max range.  One forwarding core per side (lcores 0
# and 1).  Takes /tmp/vf-poll.lock like the other benchmarks.
#
#   bench/rxmode.sh     env: DEVICE (memifctl|vhostd), ROUNDS (5), DURATION (3),
#                       PARTS ("idle wake load"), IDLE_PORTS (1,16,31),
#                       MODES (poll interrupt adaptive), VF_BUILD (build)
#
# Results: bench/RESULTS.md, "Rx modes".
set -eu
cd "$(dirname "$0")/.."
. bench/poll_lock.sh
vf_poll_lock "$@"
BUILD=${VF_BUILD:-build}
export MEMIFCTL="$BUILD/cmd/memifctl/memifctl" VFWD="$BUILD/cmd/vfwd/vfwd" \
    NULLGEN="$BUILD/cmd/nullgen/nullgen" VHOSTD="$BUILD/cmd/vhostd/vhostd"
for b in "$MEMIFCTL" "$VFWD" "$NULLGEN" "$VHOSTD"; do
    [ -x "$b" ] || { echo "not built: $b" >&2; exit 1; }
done
export ROUNDS="${ROUNDS:-5}" DURATION="${DURATION:-3}" PARTS="${PARTS:-idle wake load}" \
    IDLE_PORTS="${IDLE_PORTS:-1,16,31}" DEVICE="${DEVICE:-memifctl}" \
    MODES="${MODES:-poll interrupt adaptive}"

PYTHONPATH="$(pwd)/bench${PYTHONPATH:+:$PYTHONPATH}" exec python3 - <<'PY'
import json, os, signal, statistics, subprocess, sys, tempfile, time
import benchlib

MEMIFCTL, VFWD, NULLGEN = os.environ["MEMIFCTL"], os.environ["VFWD"], os.environ["NULLGEN"]
VHOSTD, DEVICE = os.environ["VHOSTD"], os.environ["DEVICE"]
VH = DEVICE == "vhostd"
ROUNDS, DURATION = int(os.environ["ROUNDS"]), float(os.environ["DURATION"])
PARTS = os.environ["PARTS"].split()
IDLE_PORTS = [int(x) for x in os.environ["IDLE_PORTS"].split(",")]
MODES = os.environ["MODES"].split()
SRV = ["-l", "0-1", "--main-lcore", "0"]
CLI = ["-l", "0-1", "--main-lcore", "1"]
live = []


def stop(p, sig=signal.SIGINT):
    benchlib.stop(p, sig, 10)


def cleanup(*_):
    for p in live:
        stop(p, signal.SIGKILL)
    sys.exit(1)


signal.signal(signal.SIGTERM, cleanup)
signal.signal(signal.SIGINT, cleanup)


def start(cmd, stdin=subprocess.DEVNULL):
    p = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.PIPE if stdin != subprocess.DEVNULL
                         else subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True, bufsize=1)
    live.append(p)
    return p


def cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        v = f.read().rsplit(")", 1)[1].split()
    return (int(v[11]) + int(v[12])) / os.sysconf("SC_CLK_TCK")


def sock(d, tag):
    return os.path.join(d, tag + ".sock")


def memif(role, path, i=0, extra=""):
    return f"memif,role={role},socket={path},socket-abstract=no,id={i}{extra}"


def daemon(mode, paths, extra=()):
    """The device under test with one port per path, reflecting."""
    ports = []
    for i, s in enumerate(paths):
        ports += ["--iface", s] if VH else ["--port", memif("server", s, i)]
    return start([VHOSTD if VH else MEMIFCTL, *SRV, "--rx-mode", mode, *ports, "--fwd", "mac",
                  *extra, "--duration", "600"])


def peer(s, i=0):
    """The port that talks to the daemon's port i on socket s."""
    return f"virtio_user,path={s}" if VH else memif("client", s, i)


def idle(mode, nports, d):
    if VH:
        paths = [sock(d, f"idle{i}") for i in range(nports)]
    else:
        paths = [sock(d, "idle")] * nports
    srv = daemon(mode, paths)
    time.sleep(1.0)
    conns = paths if VH else paths[:1]
    args = []
    for i, s in enumerate(conns):
        args += ["--port", peer(s, i)]
    cli = start([VFWD, *CLI, *args, "--fwd", "rxonly", "--duration", "600",
                 "--rx-mode", "interrupt"])
    time.sleep(1.5)
    a = cpu_s(srv.pid)
    time.sleep(DURATION)
    v = (cpu_s(srv.pid) - a) / DURATION
    stop(cli)
    stop(srv)
    return v


def wake(mode, rate, d):
    s = sock(d, "wake")
    srv = daemon(mode, [s])
    time.sleep(1.0)
    r = subprocess.run([NULLGEN, *CLI, "--json", "--port", peer(s), "--fwd", "measure",
                        "--rate", str(rate), "--duration", str(DURATION)],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    stop(srv)
    objs = [json.loads(ln) for ln in r.stdout.splitlines() if ln.startswith("{")]
    if r.returncode != 0 or not objs:
        return None
    lat = objs[-1]["measure"]["streams"][0]["latency_us"]
    return (lat["p50"], lat["p99"])


def load(mode, inflight, d):
    s = sock(d, "load")
    srv = daemon(mode, [s], ["-a"])
    time.sleep(1.0)
    cli = start([VFWD, *CLI, "-i", "--port", peer(s), "--fwd", "mac"], stdin=subprocess.PIPE)

    def stats():
        cli.stdin.write("show port stats 0 json\n")
        cli.stdin.flush()
        while True:
            ln = cli.stdout.readline()
            if not ln:
                return None
            if ln.startswith('{"ports"'):
                return json.loads(ln)["ports"][0]["ipackets"], time.time()

    time.sleep(2.0)
    cli.stdin.write(f"start tx_first {inflight // 32}\n")
    cli.stdin.flush()
    time.sleep(2.0)
    a = stats()
    time.sleep(DURATION)
    b = stats()
    try:
        cli.stdin.write("quit\n")
        cli.stdin.flush()
    except BrokenPipeError:
        pass
    stop(cli)
    stop(srv)
    if not a or not b:
        return None
    return (b[0] - a[0]) / (b[1] - a[1]) / 1e6


res = {}
d = tempfile.mkdtemp(prefix="vfrxm-")
for rnd in range(ROUNDS):
    modes = MODES[rnd % len(MODES):] + MODES[:rnd % len(MODES)]
    for mode in modes:
        if "idle" in PARTS:
            for n in IDLE_PORTS:
                res.setdefault(("idle", n, mode), []).append(idle(mode, n, d))
        if "wake" in PARTS:
            for rate in (1000, 10000):
                v = wake(mode, rate, d)
                if v:
                    res.setdefault(("wake", rate, mode), []).append(v)
        if "load" in PARTS:
            for inf in (32, 256):
                v = load(mode, inf, d)
                if v:
                    res.setdefault(("load", inf, mode), []).append(v)
    print(f"round {rnd + 1}/{ROUNDS} done", file=sys.stderr)


def mr(v):
    return f"{statistics.median(v):.2f} [{min(v):.2f}-{max(v):.2f}]"


print(f"rx modes on {DEVICE}, {ROUNDS} rounds, median [min-max]")
if "idle" in PARTS:
    print("idle: CPU seconds per second " +
          ("(every port connected)" if VH else "(one port connected, the rest listening)"))
    for n in IDLE_PORTS:
        print(f"  {n:3d} ports  " + "  ".join(f"{m} {mr(res[('idle', n, m)])}" for m in MODES))
if "wake" in PARTS:
    print(f"wake: nullgen measure through {DEVICE}, latency p50 / p99 in us")
    for rate in (1000, 10000):
        row = []
        for m in MODES:
            v = res.get(("wake", rate, m), [])
            row.append(f"{m} {mr([x[0] for x in v])} / {mr([x[1] for x in v])}" if v else f"{m} -")
        print(f"  {rate:6d} pps  " + "  ".join(row))
if "load" in PARTS:
    print(f"load: mac loop {DEVICE} (mode) <-> vfwd (poll), Mpps, ratio to poll")
    for inf in (32, 256):
        base = statistics.median(res[("load", inf, "poll")]) if res.get(("load", inf, "poll")) else 0
        row = []
        for m in MODES:
            v = res.get(("load", inf, m), [])
            row.append(f"{m} {mr(v)} ({statistics.median(v) / base:.2f}x)" if v and base else f"{m} -")
        print(f"  {inf:3d} in flight  " + "  ".join(row))
PY
