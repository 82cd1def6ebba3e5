"""No lock-out on a vhost-user socket (issue 31, 3): a front-end that
connects and does not finish negotiating cannot keep the next one out.

vfwd -i (ours, the back-end): vhost port 0 (server) and null 1, io.
For each hostile front-end below, the hostile one connects first and
holds the socket; then a correct front-end connects: our virtio_user
(a second vfwd, null -> virtio_user) or DPDK 22.11's (testpmd
virtio_user, txonly).  It must come up (link up on both sides, frames
from it counted on port 0) within a generous deadline; the hostile one
is dropped (its socket reads EOF), counted in ctl_preempted, and
last_error says why.

  half_header   6 of a SET_FEATURES header's 12 bytes, then silence
  half_payload  a SET_FEATURES header and 3 of its 8 payload bytes
  idle          SET_OWNER and GET_FEATURES answered, then silence
  chatty        GET_FEATURES every 20 ms, replies read, never more:
                it gets 2 s in all once someone waits
  nothing       connects and never sends a byte

Then the waiting cap: behind a chatty front-end, 40 silent connections:
at most 16 wait (info "waiting"), the others are refused
(ctl_wait_rejects), and once all are gone the socket is free again.
Last, a negotiated front-end keeps the socket: a second one is refused
(ctl_busy_rejects) and the first goes on forwarding."""
import os
import socket
import struct
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "memif"))
from memif_util import Ours, TestPmd, check, wait_for  # noqa: E402
import vftest  # noqa: E402
import vhost_pypeer  # noqa: E402

GET_FEATURES, SET_FEATURES, SET_OWNER = 1, 2, 3
d = vftest.tmpdir()
path = os.path.join(d, "vh.sock")
ours = Ours("vfwd", ["--port", f"vhost,iface={path}", "--port", "null,no-rx=1", "-a"])
wait_for(lambda: os.path.exists(path), timeout=60, what="the vhost socket")


def hdr(req, size, flags=1):
    return struct.pack("<III", req, flags, size)


def xstat(name):
    return ours.query("show port xstats 0 json")["ports"][0]["xstats"][name]


def link0():
    return ours.stats(0)["link"] == "up"


def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.settimeout(60)
    return s


class Chatty:
    """GET_FEATURES every 20 ms, replies read, until stopped or dropped."""

    def __init__(self):
        self.s = connect()
        self.stop = False
        self.dropped = False
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        try:
            self.s.sendall(hdr(SET_OWNER, 0))
            while not self.stop:
                self.s.sendall(hdr(GET_FEATURES, 0))
                if len(self.s.recv(64)) == 0:
                    self.dropped = True
                    return
                time.sleep(0.02)
        except OSError:
            self.dropped = True


def hostile(kind):
    """The hostile front-end's socket, holding port 0."""
    if kind == "chatty":
        return Chatty()
    s = connect()
    if kind == "half_header":
        s.sendall(hdr(SET_FEATURES, 8)[:6])
    elif kind == "half_payload":
        s.sendall(hdr(SET_FEATURES, 8) + b"\0\0\0")
    elif kind == "idle":
        s.sendall(hdr(SET_OWNER, 0) + hdr(GET_FEATURES, 0))
        check(len(s.recv(64)) == 20, "GET_FEATURES answered")
    return s


def frontend(which):
    if which == "ours":
        return Ours("vfwd", ["--port", f"virtio_user,path={path}", "--port", "null", "-a"])
    tp = TestPmd(f"net_virtio_user0,path={path}")
    tp.cmd("set fwd txonly")
    tp.cmd("start")
    return tp


def round_(kind, which):
    base_pre = xstat("ctl_preempted")
    base_in = ours.stats(0)["ipackets"]
    h = hostile(kind)
    wait_for(lambda: ours.dinfo(0)["connected"], timeout=60, what=f"{kind}: hostile connected")
    t0 = time.monotonic()
    fe = frontend(which)
    wait_for(link0, timeout=90, step=0.2, what=f"{kind}: {which} front-end up")
    up = time.monotonic() - t0
    wait_for(lambda: ours.stats(0)["ipackets"] > base_in + 100, timeout=60,
             what=f"{kind}: frames from the {which} front-end")
    check(xstat("ctl_preempted") == base_pre + 1, f"{kind}: ctl_preempted")
    if kind == "chatty":
        h.t.join(timeout=60)
        check(h.dropped, "chatty dropped")
        h.s.close()
    else:
        check(h.recv(1) == b"", f"{kind}: hostile connection not closed")
        h.close()
    print(f"{kind}: {which} front-end up {up * 1000:.0f} ms after it started", flush=True)
    if which == "ours":
        check(fe.quit() == 0, f"front-end exit:\n{fe.text()[-2000:]}")
    else:
        fe.kill()
    wait_for(lambda: not ours.dinfo(0)["connected"], timeout=60, what=f"{kind}: front-end gone")
    return ours.dinfo(0)["last_error"]


for kind in ("half_header", "half_payload", "idle", "chatty", "nothing"):
    round_(kind, "ours")
round_("half_payload", "testpmd")
round_("idle", "testpmd")
check("preempted by a new connection" in ours.text(), "the preemption is logged")

# the waiting cap
ch = Chatty()
wait_for(lambda: ours.dinfo(0)["connected"], timeout=60, what="chatty connected")
rej0 = xstat("ctl_wait_rejects")
silent = [connect() for _ in range(40)]
peak = max(ours.dinfo(0)["waiting"] for _ in range(3))
check(peak <= 16, f"waiting {peak} > 16")
wait_for(lambda: xstat("ctl_wait_rejects") > rej0, timeout=60, what="refusals over the cap")
for s in silent:
    s.close()
ch.stop = True
ch.t.join(timeout=60)
ch.s.close()
wait_for(lambda: not ours.dinfo(0)["connected"] and ours.dinfo(0)["waiting"] == 0, timeout=90,
         what="the socket free again")

# a negotiated front-end keeps the socket
fe = vhost_pypeer.FrontEnd(path)
wait_for(link0, timeout=60, what="negotiated front-end up")
busy0 = xstat("ctl_busy_rejects")
s = connect()
check(s.recv(1) == b"", "second front-end refused")
s.close()
check(xstat("ctl_busy_rejects") == busy0 + 1 and link0(), "refused and counted, first up")
n0 = ours.stats(0)["ipackets"]
fe.send_frames(100)
wait_for(lambda: ours.stats(0)["ipackets"] >= n0 + 100, timeout=60, what="first still forwards")
fe.close()
check(ours.quit() == 0, "vfwd exit")
print("ok")
