#!/usr/bin/env python3
"""Generator rate per core (issue 27's benchmark): nullgen txonly on one
forwarding core, unthrottled (constant) and at a rate far above what a core
holds with Poisson arrivals (the schedule's own cost), for 64 B, IMIX,
1518 B and 9000 B (chained), on a null port and on a memif port into a
memifctl sink (rxonly); beside dpdk-testpmd's txonly on net_null at 64 and
1518 B; and replay of a capture held in memory (IMIX frames, at --rate far
above a core's).  Rounds are interleaved: every variant once per round.
Prints the median and range (min-max) of the rounds in Mpps and Gbit/s of frame
bytes (without the FCS).

  VF_BUILD=$PWD/build bench/gen.py [ROUNDS] [SECONDS]   (default 5, 2)
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

B = os.environ.get("VF_BUILD", os.path.join(os.path.dirname(__file__), "..", "build"))
NULLGEN = os.path.join(B, "cmd", "nullgen", "nullgen")
MEMIFCTL = os.path.join(B, "cmd", "memifctl", "memifctl")
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
SECS = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
SIZES = [("64", "64"), ("imix", "imix"), ("1518", "1518"), ("9000", "9000")]
D = tempfile.mkdtemp(prefix="vfgen")


def last_json(out):
    for ln in reversed(out.splitlines()):
        ln = ln.strip()
        if ln.startswith("{"):
            return json.loads(ln)
    raise RuntimeError("no JSON in output")


def ours(port, txpkts, pattern, extra=()):
    args = [NULLGEN, "-l", "0-1", "--main-lcore", "0", "--port", port, "--fwd", "txonly",
            "--txpkts", txpkts, "--duration", str(SECS), "--json"] + list(extra)
    if pattern == "poisson":
        args += ["--rate", "100Mpps", "--pattern", "poisson:1"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=SECS + 60)
    s = last_json(r.stdout)
    p = s["ports"][0]
    return p["opackets"] / s["elapsed"] / 1e6, p["obytes"] * 8 / s["elapsed"] / 1e9


def replay(cap):
    args = [NULLGEN, "-l", "0-1", "--main-lcore", "0", "--port", "null,no-rx=1", "--fwd", "replay",
            "--pcap", cap, "--rate", "100Mpps", "--loop", "0", "--duration", str(SECS), "--json"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=SECS + 60)
    s = last_json(r.stdout)
    p = s["ports"][0]
    return p["opackets"] / s["elapsed"] / 1e6, p["obytes"] * 8 / s["elapsed"] / 1e9


def testpmd(txpkts):
    """testpmd txonly on net_null, one forwarding core: its per-period
    Tx-pps once forwarding runs (the first, partial period skipped)."""
    cmd = ["timeout", "-s", "INT", str(int(max(SECS, 2)) + 3), "dpdk-testpmd", "-l", "0-1", "--no-huge",
           "-m", "512", "--no-pci", "--file-prefix", f"bgen{os.getpid()}", "--log-level=*:warning",
           "--vdev", "net_null0", "--", "--total-num-mbufs=8192", "--forward-mode=txonly",
           f"--txpkts={txpkts}", "--stats-period", "1"]
    t = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout
    v = [int(x) for x in re.findall(r"Tx-pps:\s+(\d+)", t)]
    v = [x for x in v if x > 0][1:]
    mpps = statistics.mean(v) / 1e6 if v else 0.0
    return mpps, mpps * 1e6 * int(txpkts) * 8 / 1e9


def make_capture():
    """An IMIX capture (64:7, 570:4, 1518:1, 1200 frames) by our own --capture."""
    cap = os.path.join(D, "imix.pcapng")
    subprocess.run([NULLGEN, "-l", "0-1", "--port", "null,no-rx=1", "--fwd", "flowgen", "--txpkts",
                    "imix", "--count", "1200", "--duration", "1", "--capture", f"0:tx:{cap}"],
                   capture_output=True, text=True, timeout=60, check=True)
    return cap


def main():
    sock = os.path.join(D, "sink.sock")
    sink = subprocess.Popen([MEMIFCTL, "--role", "server", "--socket", sock, "--socket-abstract", "no",
                             "--fwd", "rxonly", "-l", "0-1", "--main-lcore", "1", "--duration", "3600"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        if os.path.exists(sock):
            break
        time.sleep(0.1)
    memif = f"memif,role=client,socket={sock},socket-abstract=no"
    cap = make_capture()
    variants = []
    for label, tx in SIZES:
        for pat in ("constant", "poisson"):
            variants.append((f"null {label} {pat}", lambda tx=tx, pat=pat: ours("null,no-rx=1", tx, pat)))
            variants.append((f"memif {label} {pat}", lambda tx=tx, pat=pat: ours(memif, tx, pat)))
    for tx in ("64", "1518"):
        variants.append((f"testpmd null {tx} constant", lambda tx=tx: testpmd(tx)))
    variants.append(("replay imix capture (null)", lambda: replay(cap)))
    res = {name: [] for name, _ in variants}
    try:
        for rnd in range(ROUNDS):
            for name, fn in variants:
                try:
                    res[name].append(fn())
                except Exception as e:  # a failed trial is reported, not hidden
                    print(f"round {rnd}: {name}: {e}", file=sys.stderr)
    finally:
        sink.terminate()
        sink.wait(timeout=30)
    print(f"| variant | Mpps median [range] | Gbit/s of frames (no FCS) median [range] | rounds |")
    print(f"|---|---|---|---|")
    for name, _ in variants:
        v = res[name]
        if not v:
            print(f"| {name} | failed | failed | 0 |")
            continue
        m = [x[0] for x in v]
        g = [x[1] for x in v]
        print(f"| {name} | {statistics.median(m):.2f} [{min(m):.2f}-{max(m):.2f}] | "
              f"{statistics.median(g):.2f} [{min(g):.2f}-{max(g):.2f}] | {len(v)} |")


if __name__ == "__main__":
    main()
