"""Events (issue 29 item 2): `vfctl -s PATH monitor` and --event-file, with
real DPDK peers.

1. memifctl server, dpdk-testpmd net_memif client: rx mode set to adaptive
   (the core sleeps), the client connects (its pid and uid), traffic (the
   core polls; testpmd in txonly reads nothing back: drops by reason),
   traffic stops (the core sleeps again), the client is killed (link
   down, peer gone), quit (stopping, and the monitor's reply ends): the
   events arrive in that order, and --event-file holds the same lines.
2. memifctl client with no server: reconnect attempts counted 1, 2, ...;
   a testpmd server comes: connected, link up; it goes: link down, peer
   gone, attempts from 1 again.
3. vhostd, dpdk-testpmd virtio_user: connected (pid, uid), link up; killed:
   link down, disconnected.  A port that allows another uid only: our own
   connection is refused, with our pid and uid.
4. A monitor that never reads while thousands of events come: forwarding,
   the shell and another monitor go on (that one loses nothing); the slow
   one later reads a gap line whose count, with what it got, is every
   event."""
import json
import os
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "memif"))
import vftest  # noqa: E402
from vftest import binary, check, fail, start, tmpdir, wait_for  # noqa: E402
from memif_util import TestPmd, sock_name  # noqa: E402

VFCTL = binary("vfctl")
D = tmpdir()
CORES = ["-l", "0-1"]


def vfctl(sock, *args, input=None):
    r = vftest.run([VFCTL, "-s", sock, "-t", "20", *args], input=input, timeout=60)
    check(r.returncode == 0, f"vfctl {' '.join(args)}: {r.returncode} {r.stderr}")
    return r.stdout


class Monitor:
    """vfctl monitor in the background: every line parsed as it comes."""

    def __init__(self, sock):
        self.p = start([VFCTL, "-s", sock, "monitor"])
        self.lines, self.events = [], []
        self.cv = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.wait(lambda e: e["event"] == "monitor", "the monitor's first line")

    def _read(self):
        for ln in self.p.stdout:
            ln = ln.rstrip("\n")
            try:
                e = json.loads(ln)
            except ValueError:
                e = {"event": "NOT JSON", "line": ln}
            with self.cv:
                self.lines.append(ln)
                self.events.append(e)
                self.cv.notify_all()

    def wait(self, pred, what, timeout=30):
        end = time.monotonic() + timeout
        with self.cv:
            while True:
                for e in self.events:
                    if pred(e):
                        return e
                left = end - time.monotonic()
                if left <= 0:
                    fail(f"no event for {what}; got:\n" + "\n".join(self.lines[-40:]))
                self.cv.wait(left)

    def end(self, timeout=30):
        """Waits for vfctl to exit (the tool stopped); its status."""
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            fail("the monitor did not end with the tool")
        time.sleep(0.2)
        return self.p.returncode


def is_(event, **kw):
    return lambda e: e["event"] == event and all(e.get(k) == v for k, v in kw.items())


def in_order(events, steps, what):
    """Each (name, pred) of steps matches an event after the previous
    one's; returns their indices."""
    at, idx = 0, []
    for name, pred in steps:
        for i in range(at, len(events)):
            if pred(events[i]):
                idx.append(i)
                at = i + 1
                break
        else:
            fail(f"{what}: no '{name}' after event {at} in:\n" +
                 "\n".join(json.dumps(e) for e in events))
    return idx


def check_common(events):
    """Every event has a timestamp, and the numbered ones come in order."""
    seqs = [e["seq"] for e in events if "seq" in e]
    check(seqs == sorted(seqs) and len(set(seqs)) == len(seqs), f"seq out of order: {seqs}")
    for e in events:
        check(isinstance(e.get("ts"), str) and e["ts"].endswith("Z"), f"no timestamp: {e}")


def case_memif_server():
    ctl, evfile = os.path.join(D, "m1.ctl"), os.path.join(D, "m1.events")
    name = sock_name("ev1")
    # forwarding on CPU 0, testpmd's on CPU 1: under its traffic our core
    # polls without a pause
    # polling first (memifctl's default is adaptive): the switch is the event
    mc = start([binary("memifctl"), *CORES, "--main-lcore", "1", "--role", "server", "--socket",
                name, "--id", "0", "--ctl", ctl, "--event-file", evfile, "--rx-mode", "poll", "-a"])
    wait_for(lambda: os.path.exists(ctl), what="memifctl's control socket")
    mon = Monitor(ctl)
    vfctl(ctl, "set", "rx-mode", "0", "adaptive")
    mon.wait(is_("rx_state", state="interrupt"), "the idle core asleep")
    tp = TestPmd(f"net_memif0,role=client,id=0,socket={name[1:]}")
    mon.wait(is_("link", state="up"), "link up")
    tp.cmd("set fwd txonly")
    tp.cmd("start")
    mon.wait(lambda e: e["event"] == "drops" and e["reason"] == "fwd_dropped", "drops")
    # Under load an adaptive core polls once it went 100 ms without a
    # sleep; on a machine this small testpmd's pauses let it sleep now and
    # then, so the switch is made by hand too (the state follows the mode).
    hold = any(e["event"] == "rx_state" and e["state"] == "polling" for e in mon.events)
    vfctl(ctl, "set", "rx-mode", "0", "poll")
    mon.wait(is_("rx_state", state="polling"), "the core polling")
    tp.cmd("stop")
    vfctl(ctl, "set", "rx-mode", "0", "adaptive")
    mon.wait(lambda e: e["event"] == "rx_state" and e["state"] == "interrupt" and e["seq"] > 5,
             "the idle core asleep again")
    tp.kill()
    mon.wait(is_("peer", state="disconnected"), "the client gone")
    vfctl(ctl, "quit")
    check(mon.end() == 0, f"monitor exit status {mon.p.returncode}")
    check(mc.wait(timeout=30) == 0, f"memifctl exit {mc.returncode}")
    ev = mon.events
    check_common(ev)
    me = os.getuid()
    i = in_order(ev, [
        ("rx_mode adaptive", is_("rx_mode", port=0, mode="adaptive", **{"from": "poll"})),
        ("rx_state interrupt", is_("rx_state", port=0, queue=0, mode="adaptive", state="interrupt")),
        ("peer connected", is_("peer", port=0, state="connected", pid=tp.p.pid, uid=me,
                               socket=name)),
        ("link up", is_("link", port=0, name="memif0", state="up")),
        ("rx_state polling", is_("rx_state", port=0, state="polling")),
        ("rx_mode adaptive again", is_("rx_mode", port=0, mode="adaptive", **{"from": "poll"})),
        ("rx_state interrupt again", is_("rx_state", port=0, state="interrupt")),
        ("link down", is_("link", port=0, state="down")),
        ("peer disconnected", is_("peer", port=0, state="disconnected", pid=tp.p.pid)),
        ("stopping", is_("stopping")),
    ], "memif server")
    drops = [k for k, e in enumerate(ev) if e["event"] == "drops"]
    # A drops line sums an interval (up to 1 s), so the last one may be
    # written after the link went down, never after the process stopped.
    check(drops and i[3] < drops[0] and drops[-1] < i[9], f"drops outside the session: {drops} {i}")
    d = ev[drops[0]]
    check(d["port"] == 0 and d["packets"] > 0 and d["interval_ms"] > 0, f"drops event {d}")
    print(f"adaptive core back to polling under testpmd's load by itself: {hold}", flush=True)
    print("memif server: " + ", ".join(
        f"{e['event']}" + (f" {e['state']}" if "state" in e else "") for e in ev[1:]
        if e["event"] != "drops") + f"; {len(drops)} drops lines", flush=True)
    # The file has every line the monitor had (byte for byte), and before
    # them what came before the monitor did (ready, at start, at least).
    with open(evfile) as f:
        flines = f.read().splitlines()
    mlines = mon.lines[1:]      # not the monitor's own first line
    check(flines[-len(mlines):] == mlines,
          "--event-file differs from the monitor:\n" + "\n".join(flines[-5:]) + "\n--\n" +
          "\n".join(mlines[-5:]))
    first = json.loads(flines[0])
    check(first["event"] == "ready" and first["ports"] == 1 and first["ctl"] == ctl,
          f"the file's first line: {first}")


def case_memif_reconnect():
    ctl = os.path.join(D, "m2.ctl")
    name = sock_name("ev2")
    mc = start([binary("memifctl"), *CORES, "--role", "client", "--socket", name, "--id", "0",
                "--reconnect-ms", "200", "--ctl", ctl, "-a"])
    wait_for(lambda: os.path.exists(ctl), what="memifctl's control socket")
    mon = Monitor(ctl)
    first = mon.wait(is_("reconnect"), "a reconnect attempt")
    n0 = first["attempt"]
    mon.wait(is_("reconnect", attempt=n0 + 2), "two more attempts")
    tp = TestPmd(f"net_memif0,role=server,id=0,socket={name[1:]}")
    mon.wait(is_("link", state="up"), "link up")
    tp.kill()
    down = mon.wait(is_("link", state="down"), "link down")
    mon.wait(lambda e: e["event"] == "reconnect" and e["attempt"] == 2 and
             e["seq"] > down["seq"], "attempts after the server went")
    vfctl(ctl, "quit")
    check(mon.end() == 0 and mc.wait(timeout=30) == 0, "memifctl client did not quit cleanly")
    ev = mon.events
    check_common(ev)
    in_order(ev, [
        ("attempt n", is_("reconnect", port=0, attempt=n0, socket=name)),
        ("attempt n+1", is_("reconnect", attempt=n0 + 1)),
        ("attempt n+2", is_("reconnect", attempt=n0 + 2)),
        ("connected", is_("peer", state="connected", pid=tp.p.pid, uid=os.getuid())),
        ("link up", is_("link", state="up")),
        ("link down", is_("link", state="down")),
        ("disconnected", is_("peer", state="disconnected")),
        ("attempt 1", is_("reconnect", attempt=1)),
        ("attempt 2", is_("reconnect", attempt=2)),
    ], "memif client")
    errs = {e.get("error") for e in ev if e["event"] == "reconnect"}
    check("Connection refused" in errs, f"reconnect errors: {errs}")
    print(f"memif client: attempts {n0}..{n0 + 2} before the server, 1.. after it went", flush=True)


def case_vhost():
    ctl = os.path.join(D, "v.ctl")
    vs, deny = os.path.join(D, "vh0.sock"), os.path.join(D, "deny.sock")
    vh = start([binary("vhostd"), *CORES, "--iface", vs,
                "--port", f"vhost,iface={deny},allow-uid=4242", "--ctl", ctl, "-a"])
    wait_for(lambda: os.path.exists(ctl), what="vhostd's control socket")
    mon = Monitor(ctl)
    tp = TestPmd(f"net_virtio_user0,path={vs},queues=1")
    mon.wait(is_("link", port=0, state="up"), "link up")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(deny)
    refused = mon.wait(is_("peer", port=1, state="refused"), "our connection refused")
    s.close()
    check(refused["pid"] == os.getpid() and refused["uid"] == os.getuid() and
          refused["socket"] == deny and "not allowed" in refused["reason"], f"refused: {refused}")
    tp.kill()
    mon.wait(is_("peer", port=0, state="disconnected"), "testpmd gone")
    vfctl(ctl, "quit")
    check(mon.end() == 0 and vh.wait(timeout=30) == 0, "vhostd did not quit cleanly")
    ev = mon.events
    check_common(ev)
    in_order(ev, [
        ("connected", is_("peer", port=0, state="connected", pid=tp.p.pid, uid=os.getuid(),
                          socket=vs)),
        ("link up", is_("link", port=0, state="up")),
        ("link down", is_("link", port=0, state="down")),
        ("disconnected", is_("peer", port=0, state="disconnected", pid=tp.p.pid)),
        ("stopping", is_("stopping")),
    ], "vhost")
    print(f"vhost: connected, link up, down, disconnected; refused: {refused['reason']}",
          flush=True)


def rx_pkts(ctl):
    st = json.loads(vfctl(ctl, "show", "port", "stats", "0", "json"))
    return st["ports"][0]["ipackets"]


def read_all(s, quiet_s=1.0):
    """What the socket holds, until it has been quiet for quiet_s."""
    s.settimeout(quiet_s)
    buf = b""
    try:
        while True:
            b = s.recv(1 << 20)
            if not b:
                break
            buf += b
    except socket.timeout:
        pass
    return buf.decode().splitlines()


def case_slow_monitor():
    ctl, evfile = os.path.join(D, "s.ctl"), os.path.join(D, "s.events")
    n = 8000
    vf = start([binary("vfwd"), *CORES, "--port", "null", "--port", "null", "--port",
                f"memif,role=server,socket={sock_name('ev4')}", "--ctl", ctl,
                "--event-file", evfile, "-a"])
    wait_for(lambda: os.path.exists(ctl), what="vfwd's control socket")
    hog = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    hog.connect(ctl)
    hog.sendall(b"monitor\n")
    good = Monitor(ctl)
    time.sleep(0.3)
    # Every set below changes port 2's mode: one rx_mode event each.
    script = "".join(f"set rx-mode 2 {'interrupt' if k % 2 == 0 else 'poll'}\n" for k in range(n))
    t = time.monotonic()
    vfctl(ctl, input=script)
    dt = time.monotonic() - t
    # the hog's buffers are full by now: forwarding, the shell and the
    # other monitor go on
    p0 = rx_pkts(ctl)
    times = []
    for _ in range(10):
        t0 = time.monotonic()
        vfctl(ctl, "show", "config", "fwd")
        times.append(time.monotonic() - t0)
        time.sleep(0.05)
    p1 = rx_pkts(ctl)
    check(p1 > p0, f"forwarding stalled under a monitor that does not read: {p0} -> {p1}")
    vftest.check_round_trips(times, "vfctl while a monitor does not read")
    good.wait(lambda e: e["event"] == "rx_mode" and e["seq"] >= n, f"all {n} rx_mode events",
              timeout=60)
    gmodes = [e for e in good.events if e["event"] == "rx_mode"]
    ggaps = [e for e in good.events if e["event"] == "gap"]
    check(len(gmodes) == n and not ggaps,
          f"the reading monitor got {len(gmodes)} of {n} rx_mode events, gaps {ggaps}")
    # Now the hog reads: what it was sent, then a gap line as soon as
    # there was room for it, and the numbers add up.
    lines = read_all(hog)
    check(all(ln.startswith(".") for ln in lines), f"hog: a line that is not output: {lines[:3]}")
    hev = [json.loads(ln[1:]) for ln in lines]
    gaps = [e for e in hev if e["event"] == "gap"]
    got = [e for e in hev if e["event"] == "rx_mode"]
    lost = sum(g["lost"] for g in gaps)
    check(gaps, f"no gap line for the monitor that did not read ({len(got)} events)")
    check(len(got) + lost == n, f"hog: {len(got)} events + {lost} lost != {n}")
    print(f"{n} events in {dt:.2f} s: the monitor that reads got all, the one that did not "
          f"got {len(got)} and a gap of {lost}; forwarding {p1 - p0} packets meanwhile",
          flush=True)
    # later events reach it again
    vfctl(ctl, "set", "rx-mode", "2", "adaptive")
    later = [json.loads(ln[1:]) for ln in read_all(hog)]
    check(any(e["event"] == "rx_mode" and e["mode"] == "adaptive" for e in later),
          f"the slow monitor gets nothing after its gap: {later}")
    hog.close()
    vfctl(ctl, "quit")
    check(good.end() == 0 and vf.wait(timeout=30) == 0, "vfwd did not quit cleanly")
    with open(evfile) as f:
        fev = [json.loads(x) for x in f]
    check(len([e for e in fev if e["event"] == "rx_mode"]) == n + 1 and
          not [e for e in fev if e["event"] == "gap"], "--event-file missed events")


case_memif_server()
case_memif_reconnect()
case_vhost()
case_slow_monitor()
print("ok")
