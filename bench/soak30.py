"""A long run under traffic with reconnects (issue 31 item 4): the two
daemons as operators run them, peers that come and go every few seconds,
and the daemons' resources over the whole run.

memifctl (memif server, mac reflector) and vhostd (one --iface, a
reflector) run for the whole soak, each with a control socket and
--rx-mode adaptive (one forwards while the other sleeps, on one core).  Cycles
alternate between them: a nullgen client (memif client, or virtio_user)
connects, measures for CYCLE_S seconds at RATE pps, and exits, so the
daemon sees a connect, traffic, and a disconnect every cycle.  A cycle
fails when nullgen fails or gets nothing back; loss is reported, not
judged (2 shared cores).

Every 10 cycles each daemon's fds, mapping lines, threads, mbufs in use
(vfctl: show config rxtx json) and RSS are read.  After the first WARM
cycles they are the baseline: at the end fds, maps, threads and mbufs in
use must equal it (read after the peer left), and the RSS is reported as
baseline, last and largest, flat when the last is within 2 MiB of the
baseline.  Exit 1 when a cycle failed or a resource did not return.

    VF_BUILD=$PWD/build python3 bench/soak30.py   env: SOAK_S (1800),
        CYCLE_S (2), RATE (100000), WARM (4), DAEMONS ("memifctl vhostd"),
        STOP_ON_FAIL (1: the first failed cycle prints the daemon's thread
        stacks, with gdb, and ends the run)
"""
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "integration"))
import vftest  # noqa: E402
from vftest import binary, tmpdir, wait_for  # noqa: E402

SOAK_S = float(os.environ.get("SOAK_S", "1800"))
CYCLE_S = float(os.environ.get("CYCLE_S", "2"))
RATE = int(os.environ.get("RATE", "100000"))
WARM = int(os.environ.get("WARM", "4"))
DAEMONS = os.environ.get("DAEMONS", "memifctl vhostd").split()
D = tmpdir()
DAEMON_CORE = ["-l", "0-1", "--main-lcore", "0"]
GEN_CORE = ["-l", "0-1", "--main-lcore", "1"]


def proc_status(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for ln in f:
            if ln.startswith(key + ":"):
                return int(ln.split()[1])
    return 0


def resources(d):
    """The query first: the control socket's first client makes glibc open
    a malloc arena (2 mapping lines) once, and that is not the peers'."""
    pid = d["p"].pid
    try:
        r = subprocess.run([binary("vfctl"), "-s", d["ctl"], "show", "config", "rxtx", "json"],
                           capture_output=True, text=True, timeout=10)
        inuse = json.loads(r.stdout)["mbufs_in_use"] if r.returncode == 0 else None
    except subprocess.TimeoutExpired:
        print(f"{d['name']}: no answer on the control socket in 10 s", flush=True)
        backtraces(d)
        inuse = None
    with open(f"/proc/{pid}/maps") as f:
        maps = sum(1 for _ in f)
    return {"fds": len(os.listdir(f"/proc/{pid}/fd")), "maps": maps,
            "threads": len(os.listdir(f"/proc/{pid}/task")), "mbufs_in_use": inuse}


def daemon(name, args, sock):
    ctl = os.path.join(D, name + ".ctl")
    # adaptive: the idle daemon sleeps while the other one forwards
    # its log to a file: a pipe nobody reads fills (64 KiB, about 266
    # reconnects of vhostd's lines) and then blocks the daemon's writer
    log = open(os.path.join(D, name + ".log"), "w")
    p = subprocess.Popen([binary(name)] + args + ["--ctl", ctl, "--rx-mode", "adaptive"] + DAEMON_CORE,
                         stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    vftest._procs.append(p)
    wait_for(lambda: os.path.exists(sock) and os.path.exists(ctl), what=f"{name} listening")
    return {"name": name, "p": p, "ctl": ctl, "base": None, "rss": [], "cycles": 0, "lost": 0,
            "sent": 0, "failed": 0}


msock = os.path.join(D, "m.sock")
vsock = os.path.join(D, "vh.sock")
daemons = []
if "memifctl" in DAEMONS:
    daemons.append(dict(daemon("memifctl", ["--role", "server", "--socket", msock, "--socket-abstract", "no"],
                               msock), port=f"memif,role=client,socket={msock},socket-abstract=no"))
if "vhostd" in DAEMONS:
    daemons.append(dict(daemon("vhostd", ["--iface", vsock], vsock), port=f"virtio_user,path={vsock}"))


def backtraces(d):
    """Every thread's stack of a daemon that stopped answering, once."""
    if d.get("bt") or not shutil.which("gdb"):
        return
    d["bt"] = True
    r = subprocess.run(["gdb", "-p", str(d["p"].pid), "-batch", "-ex", "thread apply all bt"],
                       capture_output=True, text=True, timeout=120)
    print(f"{d['name']} threads:\n{r.stdout[-12000:]}", flush=True)

t0 = time.monotonic()
cycle = 0
while time.monotonic() - t0 < SOAK_S:
    d = daemons[cycle % len(daemons)]
    r = subprocess.run([binary("nullgen")] + GEN_CORE + ["--port", d["port"], "--fwd", "measure", "--rate",
                       str(RATE), "--duration", str(CYCLE_S), "--json"],
                       capture_output=True, text=True, timeout=60 + CYCLE_S)
    tot = None
    try:
        last = [json.loads(ln) for ln in r.stdout.splitlines() if ln.strip()][-1]
        tot = last["measure"]["total"]
    except (ValueError, IndexError, KeyError):
        pass
    if r.returncode != 0 or not tot or not tot["received"]:
        d["failed"] += 1
        print(f"{d['name']} cycle {d['cycles']}: exit {r.returncode}, {tot}, {r.stderr[-400:]}", flush=True)
        backtraces(d)
        if os.environ.get("STOP_ON_FAIL", "1") == "1":
            break
    else:
        d["sent"] += tot["sent"]
        d["lost"] += tot["lost"]
    d["cycles"] += 1
    cycle += 1
    if d["cycles"] == WARM or (d["cycles"] > WARM and d["cycles"] % 10 == 0):
        # the control thread finishes a teardown a moment after the peer left
        time.sleep(0.3)
        now = resources(d)
        d["rss"].append(proc_status(d["p"].pid, "VmRSS"))
        if d["base"] is None:
            d["base"] = now
        elif now != d["base"]:
            try:
                wait_for(lambda: resources(d) == d["base"], timeout=10, step=0.1, what="baseline")
            except SystemExit:
                print(f"{d['name']} cycle {d['cycles']}: {resources(d)} against baseline {d['base']}",
                      flush=True)
                d["failed"] += 1

bad = 0
print(f"soak: {time.monotonic() - t0:.0f} s, {cycle} cycles of {CYCLE_S} s at {RATE} pps")
for d in daemons:
    try:
        wait_for(lambda: resources(d) == d["base"], timeout=10, step=0.1, what="baseline")
    except SystemExit:
        pass
    final = resources(d)
    rss = d["rss"]
    flat = bool(rss) and rss[-1] - rss[0] <= 2048
    back = final == d["base"]
    print(f"  {d['name']:<9} {d['cycles']} reconnects, {d['failed']} failed, lost {d['lost']} of {d['sent']} "
          f"({100.0 * d['lost'] / max(d['sent'], 1):.4f} %); baseline {d['base']}, end {final} "
          f"({'back' if back else 'NOT back'}); RSS kB baseline {rss[0] if rss else 0}, last "
          f"{rss[-1] if rss else 0}, max {max(rss) if rss else 0} ({'flat' if flat else 'GROWING'})")
    bad += d["failed"] + (not back) + (not flat)
    d["p"].terminate()
    d["p"].wait(timeout=30)
    if d["p"].returncode != 0:
        print(f"  {d['name']} exited {d['p'].returncode}")
        bad += 1
sys.exit(1 if bad else 0)
