"""Rx modes on vhost-user ports against DPDK 22.11's peers (argument:
split or packed), in every mode (poll, interrupt, adaptive; poll only
where testpmd gets cores of its own):

1. DPDK's back-end signals our front-end: nullgen's virtio_user -> testpmd
   (net_vhost0 and net_vhost1, io) -> vfwd's virtio_user (mac, the mode
   under test) and back.  DPDK's vhost library writes our call fd when
   the avail flags (split) or the driver event area (packed, DESC with
   EVENT_IDX) ask for it.
2. DPDK's front-end kicks our back-end: nullgen's virtio_user -> vhostd
   (two ports, io, the mode under test) -> testpmd's net_virtio_user
   (macswap) and back.  DPDK's virtio PMD kicks when the used flags
   (split) or the device event area (packed) ask for it.

3. Our dpdk driver with DPDK's net_vhost (rte_eth_dev_rx_intr_*) in
   interrupt and adaptive mode; a PMD without rx interrupts (net_null) is
   refused with rx-mode=, polled under --rx-mode, refused by the shell.

Each: sparse frames (1000 pps), single frames at random gaps around the
adaptive idle threshold, and bursts after idle all come back, none held
for the sleep's timeout; in interrupt and adaptive mode the core under
test slept."""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "memif"))
from memif_util import Ours, Proc, check, wait_for  # noqa: E402
import vftest  # noqa: E402
import rx_mode_common  # noqa: E402

PACKED = sys.argv[1:] == ["packed"]
# rings of 1024 (ours and testpmd's virtio_user): a loaded machine's stalls
# delay frames rather than overflow a ring
RING = ",queue_size=1024" + (",packed_vq=1" if PACKED else "")
kind = "packed" if PACKED else "split"
D = vftest.tmpdir()


# Cores of its own for testpmd where the machine has them.  Where it has
# not, testpmd's polling core shares a CPU with the one under test: the
# scheduler then starves one or the other for tens of ms now and then (a
# ring of 256 fills with bursts of 32 every 5 ms), so poll mode is left to
# the other interop tests and the bursts may lose up to two of 100 (told).
OWN_CORES = {2, 3} <= os.sched_getaffinity(0)
MODES = ["poll", "interrupt", "adaptive"] if OWN_CORES else ["interrupt", "adaptive"]


class Testpmd(Proc):
    def __init__(self, vdevs):
        lcores = "2-3" if OWN_CORES else "0-1"
        super().__init__(["stdbuf", "-oL"] + vftest.testpmd_args(
            vdevs, ["-i", "--total-num-mbufs=8192"], lcores=lcores))
        self.wait_line(lambda ln: "testpmd>" in ln or "Done" in ln, 0, 60, "testpmd start")


def measure(port, args, timeout=60):
    # a second for the last frames: a loaded machine can stall a polling
    # peer for longer than the default 100 ms (a lost wake-up holds a
    # frame for the sleep's 1 s timeout: late or lost either way)
    # 0.2 s of warm-up, not counted: DPDK's net_vhost lets its queues
    # carry frames only once its callbacks for each ring have run, which
    # may be after our front-end saw the link up
    return rx_mode_common.measure(port, args, ["--drain-ms", "1000", "--warmup", "0.2"], timeout)


def where(ours, tp):
    """What the forwarders counted, for a failure's message."""
    if tp is None:
        return f"\n{ours.query('show fwd stats all json')}"
    n = tp.mark()
    tp.cmd("show port stats all")
    tp.wait_line(lambda ln: "TX-packets" in ln, n, 10, "testpmd stats")
    time.sleep(0.5)
    return (f"\n{ours.query('show fwd stats all json')}\n{ours.query('show port xstats all json')}"
            f"\ntestpmd:\n" + "\n".join(tp.since(n)))


def all_back(label, m, n, ours, tp, may_lose=0):
    m.pop("hist_ns", None)
    if m["lost"] and m["lost"] <= may_lose and m["received"] + m["lost"] == n:
        print(f"{label}: {m['lost']} of {n} lost on shared cores (allowed): "
              f"{where(ours, tp)}", flush=True)
    elif m["received"] != n or m["lost"]:
        check(False, f"{label}: {n} sent, {m}{where(ours, tp)}")
    if m["latency_us"]["max"] >= 500000:
        check(False, f"{label}: a frame waited for the timeout: {m}{where(ours, tp)}")


def traffic(label, port, ours, tp):
    m = measure(port, ["--rate", "1000", "--count", "1000"])
    all_back(f"{label} 1000 pps", m, 1000, ours, tp)
    m = measure(port, ["--rate", "4000", "--pattern", "poisson:3", "--count", "4000"])
    all_back(f"{label} random gaps", m, 4000, ours, tp)
    allowed = 0 if OWN_CORES or tp is None else 64
    # a ~100 ms stall of a shared core overflows a ring at this rate: up
    # to 3 tries, each shown; the last one is checked
    for attempt in range(1, 4):
        m = measure(port, ["--pattern", "burst:32/5ms", "--count", "3200"])
        if attempt == 3 or (m["lost"] <= allowed and m["received"] + m["lost"] == 3200 and
                            m["latency_us"].get("max", 0) < 500000):
            break
        print(f"{label} bursts after idle, try {attempt} of 3: {m['lost']} lost, "
              f"max latency {m['latency_us'].get('max')} us", flush=True)
    all_back(f"{label} bursts after idle", m, 3200, ours, tp, allowed)


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
for mode in MODES:
    vf = Ours("vfwd", ["--port", f"virtio_user,path={b}{RING},rx-mode={mode}", "--fwd", "mac", "-a"])
    wait_for(lambda: vf.info()["link"] == "up", timeout=30, what="vfwd link up")
    label = f"virtio_user {mode} <- net_vhost ({kind})"
    traffic(label, f"virtio_user,path={a}{RING}", vf, tp)
    slept(label, vf, mode)
    check(vf.quit() == 0, "vfwd exit")
tp.kill()

# 2. testpmd's virtio_user kicks our vhostd
for mode in MODES:
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

# 3. our dpdk driver over DPDK's net_vhost (rte_eth_dev_rx_intr_*): vfwd
# reflects nullgen's frames through it, sleeping on the proxy of the
# front-end's kick fd
for mode in ["interrupt", "adaptive"]:
    s = os.path.join(D, f"dp{mode[0]}.sock")
    vf = Ours("vfwd", ["--port", f"dpdk:net_vhost0,iface={s},rx-mode={mode}", "--fwd", "mac", "-a"])
    wait_for(lambda: os.path.exists(s), timeout=30, what="net_vhost socket")
    info = vf.info()
    check(info["rx_mode"] == mode and info["driver_info"]["rx_interrupts"], f"port info: {info}")
    label = f"dpdk:net_vhost {mode} ({kind})"
    traffic(label, f"virtio_user,path={s}{RING}", vf, None)
    slept(label, vf, mode)
    check(vf.quit() == 0, "vfwd exit")
# a PMD without rx interrupts: refused when the spec asks, polled when
# the tool's --rx-mode does
r = vftest.run([vftest.binary("vfwd"), "-l", "0-1", "--port", "dpdk:net_null0,rx-mode=interrupt",
                "--duration", "1"], timeout=60)
check(r.returncode != 0 and "has no rx interrupts" in r.stderr,
      f"net_null rx-mode=interrupt: {r.returncode} {r.stderr}")
vf = Ours("vfwd", ["--port", "dpdk:net_null0", "--rx-mode", "adaptive", "--fwd", "io", "-a"])
check(vf.info()["rx_mode"] == "poll", f"net_null under --rx-mode adaptive: {vf.info()}")
n = vf.mark()
vf.cmd("set rx-mode 0 interrupt")
vf.wait_line(lambda ln: "cannot notify" in ln, n, what="set rx-mode refused")
check(vf.quit() == 0, "vfwd exit")
print("ok")
