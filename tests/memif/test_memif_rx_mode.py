"""Rx modes on memif ports: a core that sleeps while its rx queues are idle.

1. memifctl reflecting in interrupt and in adaptive mode, as server and as
   client, with nullgen on the other side: sparse traffic (1000 pps) and
   paced bursts after idle come back (every frame, or one the reflector
   counted as dropped because nullgen's ring was full), and its core did
   sleep (wake-ups counted, asleep seconds in the stream JSON); no frame
   waits for the sleep's timeout (a lost wake-up would hold one until the
   next frame or for a second).
2. Idle: a connected, idle memifctl in adaptive mode uses far less CPU
   than one that polls (relative, same run); `set rx-mode 0 poll` in its
   shell makes it poll at once, and back; bad modes and a port that cannot
   notify are refused.
3. DPDK 22.11 net_memif signals our rings: vfwd in interrupt mode between
   nullgen and testpmd (server, macswap) forwards sparse traffic both ways
   with no loss, asleep most of the time.
4. Prometheus carries the sleep counters.
"""
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
import vftest  # noqa: E402
from memif_util import Ours, TestPmd, check, sock_name, wait_for  # noqa: E402
import rx_mode_common  # noqa: E402
from rx_mode_common import cpu_over, stream_json  # noqa: E402


def measure(port, args, timeout=60):
    return rx_mode_common.measure(port, args, timeout=timeout)


def dropped(tool):
    return stream_json(tool)["dropped"]


def sparse_and_bursts(label, port, tool):
    # frames 1 ms apart: each finds the reflector asleep (adaptive sleeps
    # after 250 us idle, interrupt at once)
    m = measure(port, ["--rate", "1000", "--count", "2000", "--max-loss", "0"])
    check(m["received"] == 2000 and m["lost"] == 0, f"{label} sparse: {m}")
    check(m["latency_us"]["max"] < 500000, f"{label} sparse: a frame waited for the timeout: {m}")
    # a new client at once, 1 ms of frames: the core that slept on the
    # last client's interrupt fd takes the new rings now (a driver kick),
    # not at its sleep's timeout of a second, past the 100 ms drain
    m = measure(port, ["--rate", "100k", "--count", "100", "--max-loss", "0"])
    check(m["received"] == 100 and m["lost"] == 0, f"{label} a client right after another: {m}")
    time.sleep(0.5)
    # bursts of 32 every 160 us after half a second of idle. Every frame
    # must come back or be one the reflector counted as dropped: when
    # other processes hold nullgen's core for a few scheduler slices
    # (5 ms at 200 kpps fills the 1024 slots toward nullgen), the
    # reflector's tx finds that ring full and drops, as testpmd's mac mode
    # does. A frame lost anywhere else (a missed wake-up, a ring slot
    # dropped on the floor) is not counted there and fails this.
    d0 = dropped(tool)
    m = measure(port, ["--rate", "200k", "--count", "20000", "--max-loss", "0.01"])
    d = dropped(tool) - d0
    check(m["lost"] == d and m["received"] + d == 20000,
          f"{label} bursts after idle: {m['lost']} lost, the reflector dropped {d}: {m}")
    check(m["received"] >= 18000, f"{label} bursts after idle: {m}")
    if d:
        print(f"{label} bursts after idle: {d} of 20000 dropped by the reflector "
              "(its peer's ring was full)")


# 1. memifctl in each non-poll mode and role
for mode in ["interrupt", "adaptive"]:
    name = sock_name(f"rxm{mode[0]}s")
    srv = Ours("memifctl", ["--role", "server", "--socket", name, "--rx-mode", mode, "-a"])
    srv.wait_state("listening")
    check(srv.info()["rx_mode"] == mode, f"port info: {srv.info()}")
    sparse_and_bursts(f"server {mode}", f"memif,role=client,socket={name}", srv)
    s = stream_json(srv)
    check(s.get("wakeups", 0) > 100 and s.get("asleep_s", 0) > 0.5, f"server {mode} did not sleep: {s}")
    print(f"memifctl server {mode}: asleep {s['asleep_s']:.2f} s, {s['wakeups']} wake-ups")
    check(srv.quit() == 0, "memifctl exit")

    name = sock_name(f"rxm{mode[0]}c")
    cli = Ours("memifctl", ["--role", "client", "--socket", name, "--rx-mode", mode,
                            "--reconnect-ms", "100", "-a"])
    sparse_and_bursts(f"client {mode}", f"memif,role=server,socket={name}", cli)
    s = stream_json(cli)
    check(s.get("wakeups", 0) > 100, f"client {mode} did not sleep: {s}")
    print(f"memifctl client {mode}: asleep {s['asleep_s']:.2f} s, {s['wakeups']} wake-ups")
    check(cli.quit() == 0, "memifctl client exit")

# 2. idle CPU, adaptive against poll, and the shell
name_a, name_p = sock_name("rxmia"), sock_name("rxmip")
ada = Ours("memifctl", ["--role", "server", "--socket", name_a, "-a"])   # default: adaptive
pol = Ours("memifctl", ["--role", "server", "--socket", name_p, "--rx-mode", "poll", "-a"])
ca = Ours("vfwd", ["--port", f"memif,role=client,socket={name_a}", "--fwd", "rxonly",
                   "--rx-mode", "interrupt"])
cp = Ours("vfwd", ["--port", f"memif,role=client,socket={name_p}", "--fwd", "rxonly",
                   "--rx-mode", "interrupt"])
for t in (ada, pol):
    t.wait_state("connected")
check(ada.info()["rx_mode"] == "adaptive", f"memifctl's default rx mode: {ada.info()}")
check(pol.info()["rx_mode"] == "poll", f"memifctl --rx-mode poll: {pol.info()}")


u_ada, u_pol = cpu_over([ada, pol])
print(f"idle CPU over 2 s: adaptive {u_ada:.2f} s, poll {u_pol:.2f} s")
check(u_ada < 0.25 * u_pol, f"idle adaptive core not asleep: {u_ada:.2f} s against {u_pol:.2f} s polling")
ada.cmd("set rx-mode 0 poll")
wait_for(lambda: ada.info()["rx_mode"] == "poll", timeout=10, what="rx mode poll")
u_ada2, u_pol2 = cpu_over([ada, pol])
check(u_ada2 > 0.5 * u_pol2, f"set rx-mode poll: still asleep ({u_ada2:.2f} s against {u_pol2:.2f} s)")
ada.cmd("set rx-mode all adaptive")
wait_for(lambda: ada.info()["rx_mode"] == "adaptive", timeout=10, what="rx mode adaptive again")
n = ada.mark()
ada.cmd("set rx-mode 0 sometimes")
ada.wait_line(lambda ln: "sometimes" in ln and "expected poll|interrupt|adaptive" in ln, n,
              what="bad rx mode refused")
for t in (ca, cp, ada, pol):
    check(t.quit() == 0, "exit")
nul = Ours("vfwd", ["--port", "null"])
n = nul.mark()
nul.cmd("set rx-mode 0 interrupt")
nul.wait_line(lambda ln: "cannot notify" in ln, n, what="null port refused")
check(nul.info()["rx_mode"] == "poll", "null port stays polled")
check(nul.quit() == 0, "vfwd exit")
r = vftest.run([vftest.binary("vfwd"), "--port", "memif,rx-mode=often", "--duration", "1"], timeout=30)
check(r.returncode == 2 and "rx-mode" in r.stderr, f"bad devarg: {r.returncode} {r.stderr}")
r = vftest.run([vftest.binary("vfwd"), "--rx-mode", "often", "--duration", "1"], timeout=30)
check(r.returncode == 2 and "--rx-mode" in r.stderr, f"bad option: {r.returncode} {r.stderr}")

# 3. DPDK's net_memif signals our rings; 4. Prometheus
tp_name = sock_name("rxmtp")[1:]
tp = TestPmd(f"net_memif0,role=server,socket={tp_name}")
tp.cmd("set fwd macswap")
tp.cmd("start")
ng_name = sock_name("rxmng")
prom = os.path.join(tempfile.mkdtemp(prefix="rxm"), "vfwd.prom")
mid = Ours("vfwd", ["--port", f"memif,role=client,socket=@{tp_name},rx-mode=interrupt",
                    "--port", f"memif,role=server,socket={ng_name}", "--rx-mode", "interrupt",
                    "--fwd", "io", "--prom-file", prom, "--stats-period", "1", "-a"])
mid.wait_state("connected", port=0)
m = measure(f"memif,role=client,socket={ng_name}", ["--rate", "1000", "--count", "2000", "--max-loss", "0"])
check(m["received"] == 2000 and m["lost"] == 0, f"through testpmd: {m}")
check(m["latency_us"]["max"] < 500000, f"through testpmd: a frame waited for the timeout: {m}")
s = mid.query("show fwd stats all json")["streams"]
check(all(x.get("wakeups", 0) > 100 for x in s), f"vfwd between nullgen and testpmd did not sleep: {s}")
print(f"vfwd between nullgen and testpmd: {[round(x['asleep_s'], 2) for x in s]} s asleep, "
      f"{[x['wakeups'] for x in s]} wake-ups")
wait_for(lambda: os.path.exists(prom) and "vf_stream_wakeups_total" in open(prom).read(),
         timeout=10, what="prometheus file")
text = open(prom).read()
check("vf_stream_asleep_seconds_total{" in text, "asleep seconds in the prometheus file")
check(mid.quit() == 0, "vfwd exit")
tp.kill()
print("ok")
