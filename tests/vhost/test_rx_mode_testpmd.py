"""Rx modes on vhost-user ports against DPDK 22.11's peers (argument:
split or packed), in every mode (poll, interrupt, adaptive):

1. DPDK's back-end signals our front-end: nullgen's virtio_user -> testpmd
   (net_vhost0 and net_vhost1, io) -> vfwd's virtio_user (mac, the mode
   under test) and back.  DPDK's vhost library writes our call fd when
   the avail flags (split) or the driver event area (packed, DESC with
   EVENT_IDX) ask for it.
2. DPDK's front-end kicks our back-end: nullgen's virtio_user -> vhostd
   (two ports, io, the mode under test) -> testpmd's net_virtio_user
   (macswap) and back.  DPDK's virtio PMD kicks when the used flags
   (split) or the device event area (packed) ask for it.

Each: sparse frames (1000 pps), single frames at random gaps around the
adaptive idle threshold, and bursts after idle all come back, none held
for the sleep's timeout; in interrupt and adaptive mode the core under
test slept."""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "memif"))
from memif_util import Ours, Proc, check, wait_for  # noqa: E402
import vftest  # noqa: E402

PACKED = sys.argv[1:] == ["packed"]
RING = ",packed_vq=1" if PACKED else ""
kind = "packed" if PACKED else "split"
NG = [vftest.binary("nullgen"), "-l", "0-1", "--main-lcore", "1", "--json"]
D = vftest.tmpdir()


class Testpmd(Proc):
    def __init__(self, vdevs):
        # cores of its own where the machine has them: a polling testpmd
        # on the core under test delays its wake-ups by time slices
        lcores = "2-3" if {2, 3} <= os.sched_getaffinity(0) else "0-1"
        super().__init__(["stdbuf", "-oL"] + vftest.testpmd_args(
            vdevs, ["-i", "--total-num-mbufs=8192"], lcores=lcores))
        self.wait_line(lambda ln: "testpmd>" in ln or "Done" in ln, 0, 60, "testpmd start")


def measure(port, args, timeout=60):
    # a second for the last frames: a loaded machine can stall a polling
    # peer for longer than the default 100 ms (a lost wake-up holds a
    # frame for the sleep's 1 s timeout: late or lost either way)
    r = vftest.run(NG + ["--port", port, "--fwd", "measure", "--drain-ms", "1000"] + args,
                   timeout=timeout)
    objs = [json.loads(ln) for ln in r.stdout.splitlines() if ln.startswith("{")]
    check(r.returncode == 0 and objs, f"nullgen {args}: exit {r.returncode}\n{r.stderr[-2000:]}")
    return objs[-1]["measure"]["streams"][0]


def where(ours, tp):
    """What the forwarders counted, for a failure's message."""
    n = tp.mark()
    tp.cmd("show port stats all")
    tp.wait_line(lambda ln: "TX-packets" in ln, n, 10, "testpmd stats")
    time.sleep(0.5)
    return (f"\n{ours.query('show fwd stats all json')}\n{ours.query('show port xstats all json')}"
            f"\ntestpmd:\n" + "\n".join(tp.since(n)))


def all_back(label, m, n, ours, tp):
    m.pop("hist_ns", None)
    if m["received"] != n or m["lost"] or m["latency_us"]["max"] >= 500000:
        check(False, f"{label}: {n} sent, {m}{where(ours, tp)}")


def traffic(label, port, ours, tp):
    m = measure(port, ["--rate", "1000", "--count", "1000"])
    all_back(f"{label} 1000 pps", m, 1000, ours, tp)
    m = measure(port, ["--rate", "4000", "--pattern", "poisson:3", "--count", "4000"])
    all_back(f"{label} random gaps", m, 4000, ours, tp)
    m = measure(port, ["--pattern", "burst:32/5ms", "--count", "3200"])
    all_back(f"{label} bursts after idle", m, 3200, ours, tp)


def slept(label, tool, mode):
    if mode == "poll":
        return
    ss = tool.query("show fwd stats all json")["streams"]
    check(all(s.get("wakeups", 0) > 50 for s in ss), f"{label} did not sleep: {ss}")
    print(f"{label}: asleep {[round(s['asleep_s'], 2) for s in ss]} s, "
          f"{[s['wakeups'] for s in ss]} wake-ups", flush=True)


# 1. testpmd's net_vhost signals our virtio_user
a, b = os.path.join(D, "tpa.sock"), os.path.join(D, "tpb.sock")
tp = Testpmd([f"net_vhost0,iface={a},queues=1", f"net_vhost1,iface={b},queues=1"])
tp.cmd("set fwd io")
tp.cmd("start")
for mode in ["poll", "interrupt", "adaptive"]:
    vf = Ours("vfwd", ["--port", f"virtio_user,path={b}{RING},rx-mode={mode}", "--fwd", "mac", "-a"])
    wait_for(lambda: vf.info()["link"] == "up", timeout=30, what="vfwd link up")
    label = f"virtio_user {mode} <- net_vhost ({kind})"
    traffic(label, f"virtio_user,path={a}{RING}", vf, tp)
    slept(label, vf, mode)
    check(vf.quit() == 0, "vfwd exit")
tp.kill()

# 2. testpmd's virtio_user kicks our vhostd
for mode in ["poll", "interrupt", "adaptive"]:
    a, b = os.path.join(D, f"vh{mode[0]}a.sock"), os.path.join(D, f"vh{mode[0]}b.sock")
    vh = Ours("vhostd", ["--iface", a, "--iface", b, "--rx-mode", mode, "-a"])
    wait_for(lambda: os.path.exists(a) and os.path.exists(b), timeout=30, what="vhostd sockets")
    tp = Testpmd([f"net_virtio_user0,path={b},queues=1{RING}"])
    tp.cmd("set fwd macswap")
    tp.cmd("start")
    wait_for(lambda: vh.info(1)["link"] == "up", timeout=30, what="vhostd port 1 link up")
    label = f"vhostd {mode} <- net_virtio_user ({kind})"
    traffic(label, f"virtio_user,path={a}{RING}", vh, tp)
    slept(label, vh, mode)
    tp.kill()
    check(vh.quit() == 0, "vhostd exit")
print("ok")
