"""vhostd --takeover under traffic: the front-end never notices.

    test_takeover.py split|packed [--testpmd] [--long] [--takeovers N] [--rate PPS]

Our nullgen (virtio_user port, measure mode) sends a paced stream through
vhostd (mac mode, back to it) while new vhostd processes take the port over
one after the other (3, 10 with --long or as meson runs it, or N with
--takeovers N; bench/takeover.sh repeats it).
With --testpmd the front-end is DPDK's: testpmd's virtio_user port loops
128 frames through vhostd in io mode (tx_first), and what is checked is
that testpmd's link stayed up and it printed nothing about the link or
the device, and after a final drain testpmd received every frame it sent (sent = received; the generations' ipackets and opackets add up to
them).
Checked with nullgen, exactly:
  - the front-end saw no disconnect: virtio_user's link_down_events and
    backend_connects are what they were before the first takeover;
  - each old vhostd exits 0 once its successor took over;
  - every frame nullgen's port accepted was dequeued by one of the vhostd
    generations (sum of their ipackets), and every frame they put back
    came back (sum of opackets == received): nothing lost in a handover;
    frames a generation could not put back (the front-end's rx ring full on
    a loaded host) are counted by it, and are all of nullgen's loss;
  - a takeover that dies midway (a client that asks, receives the state and
    hangs up without committing) leaves the old vhostd forwarding, and so
    does one the new vhostd refuses (it serves another socket set).
Reported, not checked (timings belong to bench/): each takeover's gap (the
new vhostd logs how long the rings were stopped), nullgen's loss and its
worst latency (a frame sent during the gap waits it out)."""
import array
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import vhtest as vt  # noqa: E402

NULLGEN = os.path.join(vt.BUILD, "cmd", "nullgen", "nullgen")
VFCTL = os.path.join(vt.BUILD, "cmd", "vfctl", "vfctl")
RATE = 20000  # pps: a loaded 2-core CI host must keep up
HELLO = struct.Struct("<IHHIi112s")


def vfctl(ctl, line):
    r = subprocess.run([VFCTL, "-s", ctl] + line.split(), capture_output=True, text=True,
                       timeout=20)
    if r.returncode != 0:
        vt.fail("vfctl %s: %s %s" % (line, r.stdout, r.stderr))
    return json.loads(r.stdout)


def fe_counters(ctl):
    xs = vfctl(ctl, "show port xstats 0 json")["ports"][0]["xstats"]
    return xs["link_down_events"], xs["backend_connects"]


def vh_in(ctl):
    return vfctl(ctl, "show port stats 0 json")["ports"][0]["ipackets"]


def final_port(vh):
    lines = [l for l in vh.stdout().splitlines() if l.startswith("{")]
    doc = json.loads(lines[-1]) if lines else {}
    if not doc.get("final"):
        vh.dump()
        vt.fail("vhostd pid %d left no final stats" % vh.p.pid)
    return doc["ports"][0]


def gen(sock, ctl, takeover=False, iface=None):
    args = ["--iface", iface or sock, "--ctl", ctl]
    if takeover:
        args += ["--takeover", ctl]
    return vt.Vhostd(args)


def dying_client(ctl):
    """Asks for a takeover, takes the state and its fds, hangs up."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(ctl)
    s.sendall(b"takeover 1\n")
    hello = b""
    while len(hello) < HELLO.size:
        hello += s.recv(HELLO.size - len(hello))
    magic, ver, ndev, size, pid, why = HELLO.unpack(hello)
    vt.expect_eq("takeover hello magic", magic, 0x4f544656)
    vt.expect_eq("devices offered", ndev, 1)
    fds = array.array("i")
    msg, anc, _, _ = s.recvmsg(size // 2, socket.CMSG_SPACE(128 * fds.itemsize))
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[:len(data) - (len(data) % fds.itemsize)])
    for fd in fds:
        os.close(fd)
    s.close()  # mid-record: the old vhostd must serve on
    return len(fds)


def forwarding(ctl, what, fe_ctl=None):
    a = vh_in(ctl)
    if vt.wait_for(lambda: vh_in(ctl) > a + 1000, what, step=0.2, must=False):
        return
    # the state of both ends' rings, for a stall that is not ours to guess
    for who, c in (("vhostd", ctl), ("front-end", fe_ctl)):
        if c:
            for q in ("show port ring 0 json", "show port xstats 0 json", "show port info 0 json"):
                r = subprocess.run([VFCTL, "-s", c] + q.split(), capture_output=True, text=True,
                                   timeout=20)
                print("%s: %s: %s" % (who, q, r.stdout.strip() or r.stderr.strip()))
    vt.fail("timed out waiting for " + what)


class NullgenFE:
    """Our virtio_user port in nullgen's measure mode, paced."""

    def __init__(self, sock, kind, rate, d):
        self.ctl = os.path.join(d, "ng.ctl")
        vdev = "virtio_user,path=%s,queue_size=1024%s" % (
            sock, ",packed_vq=1" if kind == "packed" else "")
        self.p = vt.Proc([NULLGEN, "-l", "0-1", "--port", vdev, "--fwd", "measure", "--rate",
                          str(rate), "--drain-ms", "1000", "--json", "--ctl", self.ctl],
                         name="nullgen")
        vt.wait_for(lambda: os.path.exists(self.ctl), "nullgen's control socket")

    def noticed(self):
        """What would change if the front-end saw the back-end go."""
        return fe_counters(self.ctl)

    def finish(self):
        """Stops sending, drains; (sent, received, lost, duplicates)."""
        rc = self.p.stop(signal.SIGINT, timeout=60)
        vt.expect_eq("nullgen's exit", rc, 0, [self.p])
        lines = [l for l in self.p.stdout().splitlines() if l.startswith("{")]
        t = json.loads(lines[-1])["measure"]["total"]
        print("nullgen: sent %d received %d lost %d dup %d, worst latency %.1f ms" % (
            t["sent"], t["received"], t["lost"], t["duplicates"],
            t["latency_us"]["max"] / 1000))
        return t["sent"], t["received"], t["lost"], t["duplicates"]


class TestpmdFE:
    """DPDK's virtio_user (testpmd, client of vhostd's socket) looping
    tx_first's frames in io mode."""

    BURSTS = 4

    def __init__(self, sock, kind, rate, d):
        self.p = vt.Testpmd(sock, "queue_size=1024" + (",packed_vq=1" if kind == "packed" else ""))
        self.p.ready()
        self.p.cmd("set fwd io")
        self.p.cmd("start tx_first %d" % self.BURSTS)

    def noticed(self):
        """testpmd's link, and every line it printed about the link or the
        device: a front-end that saw the back-end go says so."""
        out = self.p.cmd("show port info 0")
        events = [l for l in self.p.stdout().splitlines()
                  if "link state change" in l.lower() or "LSC" in l or "closed" in l.lower()]
        return "Link status: up" in out, len(events)

    def finish(self):
        """Stops the loop, receives what is still on its way (rxonly until
        the count stands), then (sent, received, lost, 0)."""
        self.p.cmd("stop")
        self.p.cmd("set fwd rxonly")
        self.p.cmd("start")
        last = [-1]

        def settled():
            rx = self.p.port_stats()["RX-packets"]
            done, last[0] = rx == last[0], rx
            return done
        vt.wait_for(settled, "testpmd's last frames back", step=0.5)
        self.p.cmd("stop")
        st = self.p.port_stats()
        print("testpmd: sent %d received %d" % (st["TX-packets"], st["RX-packets"]))
        self.p.quit()
        return st["TX-packets"], st["RX-packets"], st["TX-packets"] - st["RX-packets"], 0


def main():
    args = sys.argv[1:]
    if not args or args[0] not in ("split", "packed"):
        print(__doc__, file=sys.stderr)
        return 2
    kind = args[0]
    n = 10 if "--long" in args else 3
    if "--takeovers" in args:
        n = int(args[args.index("--takeovers") + 1])
    rate = int(args[args.index("--rate") + 1]) if "--rate" in args else RATE
    d = vt.tmpdir()
    sock, ctl = (os.path.join(d, f) for f in ("vh.sock", "vh.ctl"))
    fe, vhs, gaps = None, [], []
    try:
        vhs.append(gen(sock, ctl))
        vt.wait_for(lambda: os.path.exists(ctl), "vhostd's control socket")
        fe = (TestpmdFE if "--testpmd" in args else NullgenFE)(sock, kind, rate, d)
        forwarding(ctl, "traffic through vhostd")
        vt.expect_eq("%s rings negotiated" % kind,
                     ": %s virtqueues, features" % kind in vhs[0].stderr(), True, [fe.p, vhs[0]])
        before = fe.noticed()
        print("front-end before:", before)

        # A takeover that dies midway: the old daemon serves on.
        got = dying_client(ctl)
        print("refused midway: a client took %d fds and hung up" % got)
        forwarding(ctl, "the old vhostd forwarding after a takeover died midway")
        # One the new vhostd refuses (we serve another socket): likewise.
        bad = gen(sock, ctl, takeover=True, iface=os.path.join(d, "other.sock"))
        rc = bad.p.wait(timeout=60)
        vt.expect_eq("a vhostd with another --iface refuses the takeover: exit", rc, 1, [bad])
        vt.expect_eq("its reason logged", "we have no such --iface" in bad.stderr(), True,
                     [bad])
        vt.expect_eq("the old vhostd alive", vhs[-1].alive(), True, [vhs[-1]])
        forwarding(ctl, "the old vhostd forwarding after a refused takeover")

        for i in range(n):
            old, new = vhs[-1], gen(sock, ctl, takeover=True)
            vhs.append(new)
            rc = old.p.wait(timeout=60)
            vt.expect_eq("takeover %d: the old vhostd's exit" % (i + 1), rc, 0, [old, new])
            vt.wait_for(lambda: "taken over from pid" in new.stderr(), "takeover %d logged" % (i + 1))
            m = re.search(r"rings stopped for ([0-9.]+) ms", new.stderr())
            gaps.append(float(m.group(1)))
            vt.wait_for(lambda: new.alive() and "control socket:" in new.stderr(),
                        "the new vhostd's control socket")
            forwarding(ctl, "traffic through vhostd generation %d" % (i + 2),
                       getattr(fe, "ctl", None))
            vt.expect_eq("takeover %d: what the front-end would notice" % (i + 1),
                         fe.noticed(), before, [fe.p, new])

        xs = vfctl(ctl, "show port xstats 0 json")["ports"][0]["xstats"]
        sent, received, lost, dups = fe.finish()
        last = vhs[-1]
        last.stop(signal.SIGINT)
        ports = [final_port(v) for v in vhs]
        s_in = sum(p["ipackets"] for p in ports)
        s_out = sum(p["opackets"] for p in ports)
        print("vhostd generations (in/out): " +
              " ".join("%d/%d" % (p["ipackets"], p["opackets"]) for p in ports))
        print("last vhostd's xstats: " + ", ".join(
            "%s %d" % (k, v) for k, v in xs.items() if v and "ring_full" in k))
        g = sorted(gaps)
        print("%s: %d takeovers, rings stopped (gap) median %.2f ms, range %.2f..%.2f ms; "
              "lost %d" % (kind, n, g[len(g) // 2], g[0], g[-1], lost))
        vt.expect_eq("frames dequeued by the vhostd generations", s_in, sent, vhs)
        vt.expect_eq("frames put back came back", received, s_out, vhs)
        vt.expect_eq("duplicates", dups, 0, [fe.p])
        vt.expect_eq("loss = what the generations counted as not put back",
                     lost, s_in - s_out, vhs)
        print("ok: %s: %d takeovers, no disconnect, lost %d (counted ring-full drops)" % (
            kind, n, lost))
        return 0
    finally:
        for p in [fe.p if fe else None] + vhs:
            if p and p.alive():
                p.stop(signal.SIGKILL)
        shutil.rmtree(d, ignore_errors=True)


sys.exit(main())
