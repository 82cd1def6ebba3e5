"""What parking costs a sparse stream (vf_fwd_park.h): the latency of a
1 kpps (and 10 kpps) measure stream through a core that also forwards a
busy pair, with NPORTS (16) ports on that core (parking on) against the
build before it (VF_BUILD_BASE), interleaved in every round.

vfwd forwards io on one core (lcore 1): ports 0 and 1 are null ports (a
busy pair that never waits: a null rx always returns a full burst), ports
2..15 are memif servers on one socket.  nullgen (its core on lcore 0)
measures through ports 2 and 3 with two memif clients; ports 4..15 only
listen.  Between two frames of the measured pair its streams are idle
far longer than 256 passes, so they are parked, and each frame waits for
its stream's turn.  Two busy pollers on two cores: nothing else runs.
Printed: p50 and p99 latency in us, median [min-max] of ROUNDS rounds.
  VF_BUILD=$PWD/build VF_BUILD_BASE=/tmp/base/build python3 bench/park_latency.py
      env: ROUNDS (5), RATES (1000,10000), COUNT (3000), NPORTS (16)"""
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
ROUNDS = int(os.environ.get("ROUNDS", "5"))
RATES = [int(x) for x in os.environ.get("RATES", "1000,10000").split(",")]
COUNT = int(os.environ.get("COUNT", "3000"))
NPORTS = int(os.environ.get("NPORTS", "16"))


def one(build, d, rate):
    sock = os.path.join(d, "m.sock")
    srv = "memif,role=server,id=%d,socket=" + sock + ",socket-abstract=no"
    cli = "memif,role=client,id=%d,socket=" + sock + ",socket-abstract=no"
    args = [os.path.join(build, "cmd", "vfwd", "vfwd"), "-l", "0-1", "--main-lcore", "0",
            "--ctl", "none", "--fwd", "io", "-a", "--port", "null", "--port", "null"]
    for i in range(NPORTS - 2):
        args += ["--port", srv % i]
    fw = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 30
        while not os.path.exists(sock):
            if time.monotonic() > end or fw.poll() is not None:
                sys.exit("vfwd did not start")
            time.sleep(0.05)
        r = subprocess.run([os.path.join(BUILD, "cmd", "nullgen", "nullgen"), "-l", "0-1",
                            "--main-lcore", "1", "--ctl", "none", "--json", "--fwd", "measure",
                            "--port", cli % 0, "--port", cli % 1, "--rate", str(rate),
                            "--count", str(COUNT), "--drain-ms", "500"],
                           capture_output=True, text=True, timeout=120)
        objs = [json.loads(ln) for ln in r.stdout.splitlines() if ln.startswith("{")]
        if r.returncode or not objs:
            sys.exit("nullgen: exit %d\n%s" % (r.returncode, r.stderr[-2000:]))
        s = objs[-1]["measure"]["streams"][0]
        if s["received"] != s["sent"]:
            print("  lost %d of %d" % (s["sent"] - s["received"], s["sent"]), flush=True)
        lat = s["latency_us"]
        return lat["p50"], lat["p99"]
    finally:
        stop(fw)


def main():
    builds = ([("base", BASE)] if BASE else []) + [("this", BUILD)]
    res = {(b, r): [] for b, _ in builds for r in RATES}
    for rnd in range(ROUNDS):
        for rate in RATES:
            for b, path in (builds if rnd % 2 == 0 else list(reversed(builds))):
                with tempfile.TemporaryDirectory(prefix="vfpl-") as d:
                    res[(b, rate)].append(one(path, d, rate))
        print("round %d/%d: %s" % (rnd + 1, ROUNDS, " ".join(
            "%s/%d:%.1f/%.1f" % (b, r, *res[(b, r)][-1]) for b, _ in builds for r in RATES)),
            flush=True)
    print("\nlatency through a core with a busy null pair and %d ports, us, median [min-max]:"
          % NPORTS)
    print("| build | rate | p50 | p99 |")
    print("|---|---|---|---|")
    for b, _ in builds:
        for r in RATES:
            v = res[(b, r)]
            p50 = [x[0] for x in v]
            p99 = [x[1] for x in v]
            print("| %s | %d pps | %.1f [%.1f-%.1f] | %.1f [%.1f-%.1f] |" % (
                b, r, statistics.median(p50), min(p50), max(p50),
                statistics.median(p99), min(p99), max(p99)))


main()
