"""One busy port among many idle ones on one forwarding core (issue 28
item 2): the busy port's rate with 2, 16, 64 and 256 ports on vhostd's core
(KIND=vhost, the default) or memifctl's (KIND=memif).

The daemon forwards io between pairs of its ports on one core (lcore 1):
vhostd's --iface sockets, or memifctl's server ports, ids 0..N-1 on one
socket.  Its ports 0 and 1 carry a 64-byte loop: vfwd's two front-end ports
(virtio_user or memif clients, its core on lcore 0) forward io back into
them, started with --tx-first bursts (INFLIGHT frames in flight).  The
other ports are idle:
  IDLE=connected  (default) each has a front-end, one vfwd holding all of
                  them in rxonly with --rx-mode adaptive (it sleeps), as
                  VMs that are up but quiet;
  IDLE=listening  no front-end, as VMs not started.
Printed per port count: the loop's Mpps (vfwd's rx), median [min-max] of
ROUNDS interleaved rounds, and its ratio to 2 ports (the issue's target:
0.8x at 256).  With VF_BUILD_BASE, every round runs that build's vhostd
too, just before this one's, and the table has both.  Usage:
  VF_BUILD=$PWD/build python3 bench/density_busy.py   env: PORTS (2,16,64,256),
      ROUNDS (5), DURATION (s, 4), INFLIGHT (256), IDLE (connected),
      VF_BUILD_BASE (none), RXMODE (the daemon's --rx-mode; its default),
      KIND (vhost)"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import stop  # noqa: E402

BUILD = os.environ.get("VF_BUILD", "build")
BASE = os.environ.get("VF_BUILD_BASE")
VFWD = os.path.join(BUILD, "cmd", "vfwd", "vfwd")
VFCTL = os.path.join(BUILD, "cmd", "vfctl", "vfctl")
PORTS = [int(x) for x in os.environ.get("PORTS", "2,16,64,256").split(",")]
ROUNDS = int(os.environ.get("ROUNDS", "5"))
DURATION = float(os.environ.get("DURATION", "4"))
INFLIGHT = int(os.environ.get("INFLIGHT", "256"))
IDLE = os.environ.get("IDLE", "connected")
RXMODE = os.environ.get("RXMODE")
KIND = os.environ.get("KIND", "vhost")


def daemon_args(build, d, n):
    """(the daemon's command line, the files that say it is up, the front
    ends' port specs)."""
    if KIND == "vhost":
        socks = [os.path.join(d, "v%d.sock" % i) for i in range(n)]
        return ([os.path.join(build, "cmd", "vhostd", "vhostd")] +
                [a for s in socks for a in ("--iface", s)],
                socks, ["virtio_user,path=" + s for s in socks])
    sock = os.path.join(d, "m.sock")
    args = [os.path.join(build, "cmd", "memifctl", "memifctl")]
    for i in range(n):
        args += ["--port", "memif,role=server,id=%d,socket=%s,socket-abstract=no" % (i, sock)]
    return args, [sock], ["memif,role=client,id=%d,socket=%s,socket-abstract=no" % (i, sock)
                          for i in range(n)]


def wait(cond, what, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.05)
    sys.exit("timed out: " + what)


def links_up(ctl):
    r = subprocess.run([VFCTL, "-s", ctl, "show", "port", "stats", "all", "json"],
                       capture_output=True, text=True, timeout=30)
    if r.returncode:
        return 0
    return sum(p["link"] == "up" for p in json.loads(r.stdout)["ports"])


def one(n, d, build):
    args, socks, specs = daemon_args(build, d, n)
    ctl = os.path.join(d, "vh.ctl")
    vh = subprocess.Popen(args + ["-l", "0-1", "--main-lcore", "0", "--ctl", ctl, "--fwd", "io"] +
                          (["--rx-mode", RXMODE] if RXMODE else []),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    procs = [vh]
    try:
        wait(lambda: all(os.path.exists(s) for s in socks), "the daemon's %d ports" % n)
        if IDLE == "connected" and n > 2:
            idle = subprocess.Popen([VFWD, "-l", "0-1", "--main-lcore", "0", "--ctl", "none",
                                     "--fwd", "rxonly", "--rx-mode", "adaptive"] +
                                    [a for s in specs[2:] for a in ("--port", s)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            procs.append(idle)
            wait(lambda: links_up(ctl) >= n - 2, "%d idle front-ends connected" % (n - 2))
        fe = subprocess.Popen([VFWD, "-l", "0-1", "--main-lcore", "1", "--ctl", "none", "-i",
                               "--port", specs[0], "--port", specs[1], "--fwd", "io",
                               "--burst", "32"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, bufsize=1)
        procs.append(fe)

        def rx():
            """(time, packets vfwd's two ports received) from a fresh show."""
            fe.stdin.write("show port stats all json\n")
            fe.stdin.flush()
            while True:
                ln = fe.stdout.readline()
                if not ln:
                    sys.exit("vfwd ended")
                if ln.startswith("{"):
                    o = json.loads(ln)
                    return time.monotonic(), sum(p["ipackets"] for p in o["ports"])

        time.sleep(2)
        # one stream a port: INFLIGHT/64 bursts each
        fe.stdin.write("start tx_first %d\n" % max(1, INFLIGHT // 64))
        fe.stdin.flush()
        time.sleep(1.5)
        a = rx()
        time.sleep(DURATION)
        b = rx()
        fe.stdin.write("stop\nquit\n")
        fe.stdin.flush()
        return (b[1] - a[1]) / (b[0] - a[0]) / 1e6
    finally:
        for p in reversed(procs):
            stop(p)


def main():
    if INFLIGHT % 32:
        sys.exit("INFLIGHT: a multiple of 32")
    builds = ([("base", BASE)] if BASE else []) + [("this", BUILD)]
    res = {(b, n): [] for b, _ in builds for n in PORTS}
    for r in range(ROUNDS):
        order = PORTS[r % len(PORTS):] + PORTS[:r % len(PORTS)]
        for n in order:
            for b, path in builds:
                with tempfile.TemporaryDirectory(prefix="vfdb-") as d:
                    res[(b, n)].append(one(n, d, path))
        print("round %d/%d: %s" % (r + 1, ROUNDS, " ".join(
            "%s/%d:%.2f" % (b, n, res[(b, n)][-1]) for b, _ in builds for n in PORTS)), flush=True)
    print("\n%s: busy port among idle ones (%s), %d in flight, Mpps median [min-max]:" %
          (KIND, IDLE, INFLIGHT))
    print("| ports on the core |" + "".join(" %s Mpps | ratio to %d |" % (b, PORTS[0]) for b, _ in builds))
    print("|---|" + "---|---|" * len(builds))
    for n in PORTS:
        row = "| %d |" % n
        for b, _ in builds:
            v = res[(b, n)]
            m = statistics.median(v)
            ref = statistics.median(res[(b, PORTS[0])])
            row += " %.2f [%.2f-%.2f] | %.2f |" % (m, min(v), max(v), m / ref if ref else 0)
        print(row)


main()
