"""Rx modes on vhost-user ports, both roles, ours on both sides
(argument: split or packed).

1. Back-end: vhostd reflecting (mac) in interrupt and in adaptive mode,
   nullgen's virtio_user measuring: sparse traffic (100 and 1000 pps),
   single frames at random (Poisson) gaps whose mean is the adaptive idle
   threshold (so that publishes race the arm), and bursts of 32 after 5 ms
   of idle all come back, none waits for the sleep's timeout (a lost
   wake-up would hold a frame until the next one or for a second), and the
   core did sleep (wake-ups, asleep seconds in the stream JSON).
2. Front-end: vfwd's virtio_user port reflecting in each mode, nullgen's
   vhost port measuring: the same.
3. Idle: a connected, idle adaptive vhostd and an idle adaptive vfwd
   virtio_user use far less CPU than a polling one (relative, same run);
   `set rx-mode` turns it back to polling and back; port info shows the
   mode, the devarg sets it per port; a port whose driver cannot notify
   (null) is refused.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "memif"))
from memif_util import Ours, check, wait_for  # noqa: E402
import vftest  # noqa: E402
import rx_mode_common  # noqa: E402
from rx_mode_common import cpu_over, stream_json  # noqa: E402

PACKED = sys.argv[1:] == ["packed"]
# rings of 1024: a loaded machine that stalls a process for a few hundred
# ms delays frames but loses none (a lost wake-up delays, never loses:
# the latency check catches it)
RING = ",queue_size=1024" + (",packed_vq=1" if PACKED else "")
D = vftest.tmpdir()


def measure(port, args, timeout=60):
    # a second for the last frames: a loaded machine can stall a polling
    # peer for longer than the default 100 ms (a lost wake-up holds a
    # frame for the sleep's 1 s timeout: late or lost either way)
    return rx_mode_common.measure(port, args, ["--drain-ms", "1000"], timeout)


def all_back(label, m, n):
    check(m["received"] == n and m["lost"] == 0, f"{label}: {n} sent, {m}")
    # a lost wake-up holds a frame for the sleep's timeout (1 s)
    check(m["latency_us"]["max"] < 500000, f"{label}: a frame waited for the timeout: {m}")


def sparse_and_bursts(label, port):
    all_back(f"{label} 100 pps", measure(port, ["--rate", "100", "--count", "200"]), 200)
    all_back(f"{label} 1000 pps", measure(port, ["--rate", "1000", "--count", "2000"]), 2000)
    # single frames, random gaps of 250 us on average: the adaptive idle
    # threshold, so that many arrive while the core arms or just slept
    m = measure(port, ["--rate", "4000", "--pattern", "poisson:7", "--count", "10000"])
    all_back(f"{label} random gaps", m, 10000)
    # bursts of 32 frames, each after 5 ms of idle
    m = measure(port, ["--pattern", "burst:32/5ms", "--count", "6400"])
    all_back(f"{label} bursts after idle", m, 6400)


def slept(label, tool, least=100):
    s = stream_json(tool)
    check(s.get("wakeups", 0) > least and s.get("asleep_s", 0) > 0.5, f"{label} did not sleep: {s}")
    print(f"{label}: asleep {s['asleep_s']:.2f} s, {s['wakeups']} wake-ups", flush=True)


kind = "packed" if PACKED else "split"

# 1. the back-end
for mode in ["interrupt", "adaptive"]:
    sock = os.path.join(D, f"b{mode[0]}.sock")
    vh = Ours("vhostd", ["--iface", sock, "--rx-mode", mode, "-a"])
    wait_for(lambda: os.path.exists(sock), timeout=30, what="vhostd socket")
    check(vh.info()["rx_mode"] == mode, f"port info: {vh.info()}")
    sparse_and_bursts(f"vhostd {mode} ({kind})", f"virtio_user,path={sock}{RING}")
    slept(f"vhostd {mode} ({kind})", vh)
    check(vh.quit() == 0, "vhostd exit")

# 2. the front-end (it listens, nullgen's vhost port connects)
for mode in ["interrupt", "adaptive"]:
    sock = os.path.join(D, f"f{mode[0]}.sock")
    vf = Ours("vfwd", ["--port", f"virtio_user,path={sock},server=1{RING},rx-mode={mode}",
                       "--fwd", "mac", "-a"])
    wait_for(lambda: os.path.exists(sock), timeout=30, what="vfwd socket")
    check(vf.info()["rx_mode"] == mode, f"port info: {vf.info()}")
    sparse_and_bursts(f"virtio_user {mode} ({kind})", f"vhost,iface={sock},client=1")
    slept(f"virtio_user {mode} ({kind})", vf)
    check(vf.quit() == 0, "vfwd exit")

# 3. idle: adaptive against poll, each role; the shell
sa, sp = os.path.join(D, "ia.sock"), os.path.join(D, "ip.sock")
ada = Ours("vhostd", ["--iface", sa, "-a"])     # vhostd's default: adaptive
pol = Ours("vhostd", ["--iface", sp, "--rx-mode", "poll", "-a"])
wait_for(lambda: os.path.exists(sa) and os.path.exists(sp), timeout=30, what="vhostd sockets")
# the front-ends: vfwd virtio_user ports, also adaptive and polling
fa = Ours("vfwd", ["--port", f"virtio_user,path={sa}{RING},rx-mode=adaptive", "--fwd", "rxonly", "-a"])
fp = Ours("vfwd", ["--port", f"virtio_user,path={sp}{RING}", "--fwd", "rxonly", "-a"])
for t in (ada, pol, fa, fp):
    wait_for(lambda t=t: t.info()["link"] == "up", timeout=30, what="link up")
check(ada.info()["rx_mode"] == "adaptive", f"vhostd's default rx mode: {ada.info()}")
check(pol.info()["rx_mode"] == "poll", f"vhostd --rx-mode poll: {pol.info()}")
check(fp.info()["rx_mode"] == "poll", f"vfwd's default rx mode: {fp.info()}")
u = cpu_over([ada, pol, fa, fp])
print(f"idle CPU over 2 s: vhostd adaptive {u[0]:.2f} s, poll {u[1]:.2f} s; "
      f"virtio_user adaptive {u[2]:.2f} s, poll {u[3]:.2f} s", flush=True)
check(u[0] < 0.25 * u[1], f"idle adaptive vhostd not asleep: {u[0]:.2f} s against {u[1]:.2f} s")
check(u[2] < 0.25 * u[3], f"idle adaptive virtio_user not asleep: {u[2]:.2f} s against {u[3]:.2f} s")
ada.cmd("set rx-mode 0 poll")
wait_for(lambda: ada.info()["rx_mode"] == "poll", timeout=10, what="rx mode poll")
u = cpu_over([ada, pol])
check(u[0] > 0.5 * u[1], f"set rx-mode poll: still asleep ({u[0]:.2f} s against {u[1]:.2f} s)")
ada.cmd("set rx-mode all interrupt")
wait_for(lambda: ada.info()["rx_mode"] == "interrupt", timeout=10, what="rx mode interrupt")
u = cpu_over([ada, pol])
check(u[0] < 0.25 * u[1], f"set rx-mode interrupt: not asleep ({u[0]:.2f} s against {u[1]:.2f} s)")
for t in (fa, fp, ada, pol):
    check(t.quit() == 0, "exit")

# the devarg beats --rx-mode; a driver that cannot notify is refused
s1, s2 = os.path.join(D, "d1.sock"), os.path.join(D, "d2.sock")
vh = Ours("vhostd", ["--iface", s1, "--port", f"vhost,iface={s2},rx-mode=interrupt",
                     "--rx-mode", "adaptive"])
check(vh.info(0)["rx_mode"] == "adaptive" and vh.info(1)["rx_mode"] == "interrupt",
      f"per-port modes: {vh.info(0)['rx_mode']}, {vh.info(1)['rx_mode']}")
check(vh.quit() == 0, "vhostd exit")
r = vftest.run([vftest.binary("vfwd"), "--port", "null,rx-mode=interrupt", "--duration", "1"],
               timeout=30)
check(r.returncode == 2 and "cannot notify" in r.stderr, f"null rx-mode=: {r.returncode} {r.stderr}")
print("ok")
