"""memif's control channel: no lock-out and no waiting on a peer (issue
31, 3).

vfwd -i on one listener: memif server port 0 (id 0), null 1, memif server
port 2 (id 1, the healthy one), null 3; 0<->1 and 2<->3 forward.  A
memifctl client on id 1 sends (txonly) throughout, so port 2 -> 3 flows.

1. Stuck handshakes on id 0: a peer that sends INIT (and, once, INIT and
   ADD_REGION) and then holds the connection.  A memifctl client on id 0
   must connect; the stuck peer gets DISCONNECT "Preempted by a new
   connection", memif_ctl_preempted counts it.  A second client while
   id 0 is connected is still refused ("Already connected"), the first
   untouched.
2. Silent connections: 20 that never speak: the listener keeps 16, the
   other 4 wait in the backlog (socket_deferred) until the oldest had
   their 500 ms grace, then the 4 oldest are dropped (socket_preempted 4)
   and a new client on id 0 still connects.
3. A flooding peer that reads nothing: INIT and ADD_REGION after
   ADD_REGION, every ACK left unread.  It is dropped ("Peer does not
   read its messages", memif_ctl_unread_msgs 1).
Throughout, port 2 -> 3 keeps forwarding and no shell round trip waits on
a peer (over 500 ms fails; vftest.check_round_trips)."""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from memif_util import Ours, check, sock_name, wait_for  # noqa: E402
import memif_pypeer as mp  # noqa: E402
import vftest  # noqa: E402

name = sock_name("pre")
ours = Ours("vfwd", ["--port", f"memif,role=server,id=0,socket={name}", "--port", "null,no-rx=1",
                     "--port", f"memif,role=server,id=1,socket={name}", "--port", "null,no-rx=1",
                     "-a"])
times = []


def q(fn):
    t0 = time.monotonic()
    r = fn()
    times.append(time.monotonic() - t0)
    return r


def info(p=0):
    return q(lambda: ours.dinfo(p))


def xstat(n, p=0):
    return q(lambda: ours.query(f"show port xstats {p} json"))["ports"][0]["xstats"][n]


def flowing(what):
    n = q(lambda: ours.stats(3))["opackets"]
    wait_for(lambda: q(lambda: ours.stats(3))["opackets"] > n + 1000, timeout=60,
             what=f"port 2 -> 3 forwarding ({what})")


def raw(hello=True):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect("\0" + name[1:])
    if hello:
        t, _, _ = mp.recv(s, timeout=60)
        check(t == mp.HELLO, f"HELLO, got {t}")
    return s


def init(s, id_):
    mp.send(s, mp.INIT, struct.pack("<HIB", mp.VERSION, id_, 0) + bytes(24) +
            b"pystuck".ljust(32, b"\0"))


q(lambda: ours.dinfo(0))
times.clear()           # the first answer waits for start-up
healthy = Ours("memifctl", ["--role", "client", "--id", "1", "--socket", name,
                            "--fwd", "txonly", "-a"])
healthy.wait_state("connected")
flowing("start")

# 1. stuck handshakes
memfd = os.memfd_create("pystuck", os.MFD_CLOEXEC)
os.ftruncate(memfd, 1 << 16)
for extra in (False, True):
    st = raw()
    init(st, 0)
    t, _, _ = mp.recv(st, timeout=60)
    check(t == mp.ACK, f"INIT acked, got {t}")
    if extra:
        mp.send(st, mp.ADD_REGION, struct.pack("<HQ", 0, 1 << 16), memfd)
        t, _, _ = mp.recv(st, timeout=60)
        check(t == mp.ACK, f"ADD_REGION acked, got {t}")
    wait_for(lambda: info()["state"] == "handshake", timeout=60, what="port 0 in the stuck handshake")
    pre = xstat("memif_ctl_preempted")
    t0 = time.monotonic()
    cli = Ours("memifctl", ["--role", "client", "--id", "0", "--socket", name])
    cli.wait_state("connected", timeout=90)
    took = time.monotonic() - t0
    t, p, _ = mp.recv(st, timeout=60)
    check(t == mp.DISCONNECT and mp.reason(p) == "Preempted by a new connection",
          f"stuck peer told: {t} {mp.reason(p) if t == mp.DISCONNECT else ''}")
    st.close()
    check(xstat("memif_ctl_preempted") == pre + 1, "memif_ctl_preempted")
    check(info()["state"] == "connected", f"{info()}")
    print(f"stuck handshake (region {extra}): client connected in {took * 1000:.0f} ms", flush=True)
    flowing("stuck handshake")
    if not extra:
        # a connected id still refuses a second client, first untouched
        second = raw()
        init(second, 0)
        t, p, _ = mp.recv(second, timeout=60)
        check(t == mp.DISCONNECT and mp.reason(p) == "Already connected", f"{t}")
        second.close()
        check(info()["state"] == "connected" and cli.dinfo()["state"] == "connected",
              "first client untouched")
    check(cli.quit() == 0, "client exit")
    wait_for(lambda: info()["state"] != "connected", timeout=60, what="client gone")

# 2. silent connections over the cap
sp0, sd0 = info()["socket_preempted"], info()["socket_deferred"]
silent = [raw(hello=False) for _ in range(20)]
wait_for(lambda: info()["socket_preempted"] == sp0 + 4, timeout=60,
         what="the 4 oldest silent connections dropped")
check(info()["socket_deferred"] > sd0, "newcomers waited for room: %s" % info())
for s in silent[:4]:
    s.settimeout(60)
    # HELLO, then DISCONNECT, then EOF: the connection was closed
    got = [mp.recv(s)[0] for _ in range(2)]
    check(got == [mp.HELLO, mp.DISCONNECT], f"oldest: {got}")
cli = Ours("memifctl", ["--role", "client", "--id", "0", "--socket", name])
cli.wait_state("connected", timeout=90)
check(info()["socket_preempted"] == sp0 + 5, "one more silent one made room")
cli.quit()
for s in silent:
    s.close()
flowing("silent connections")

# 3. a peer that floods and reads nothing
wait_for(lambda: info()["state"] != "connected", timeout=60, what="port 0 free")
fl = raw(hello=False)
fl.setblocking(False)
init(fl, 0)
sent, gone = 1, False
end = time.monotonic() + 60
while not gone and time.monotonic() < end and sent < 100000:
    try:
        mp.send(fl, mp.ADD_REGION, struct.pack("<HQ", sent - 1, 1 << 16), memfd)
        sent += 1
    except BlockingIOError:
        time.sleep(0.01)
    except (BrokenPipeError, ConnectionResetError):
        gone = True
    if sent % 8 == 0:
        q(lambda: ours.dinfo(2))        # the shell answers meanwhile
wait_for(lambda: xstat("memif_ctl_unread_msgs") == 1, timeout=60, what="flooding peer dropped")
check(info()["disconnect_reason"] == "Peer does not read its messages", f"{info()}")
print(f"flooding peer sent {sent} messages before it was dropped", flush=True)
fl.close()
flowing("after the flood")
check(healthy.dinfo()["state"] == "connected", "healthy client untouched")
check(ours.p.poll() is None, "vfwd alive")
vftest.check_round_trips(times)
healthy.quit()
check(ours.quit() == 0, "vfwd exit")
print("ok")
