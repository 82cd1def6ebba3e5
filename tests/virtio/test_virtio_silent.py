"""A vhost-user backend that connects and never answers must not stall the
control thread (issue 13, 3).

vfwd: port 0 virtio_user server=1 on A, port 1 null, port 2 virtio_user
server=1 on B, port 3 null.  A silent Python "backend" connects to A and
reads our first requests (SET_OWNER, GET_FEATURES), answering nothing: our reply wait
(5 s) now runs on a worker thread.  Meanwhile a healthy backend (a vfwd
vhost port, client=1) connects to B: port 2 comes up and forwards, the shell
answers a control-thread query (show port info), and the ring timer keeps
running, all while the silent connection is still pending (not yet timed
out and closed).  Before, the control thread sat in the silent backend's
reply wait: B was served only after A's connection had timed out."""
import os
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "memif"))
from memif_util import Ours, Proc, binary, check, wait_for  # noqa: E402
import vftest  # noqa: E402

d = vftest.tmpdir()
a, b = os.path.join(d, "a.sock"), os.path.join(d, "b.sock")
ours = Ours("vfwd", ["--port", f"virtio_user,path={a},server=1", "--port", "null",
                     "--port", f"virtio_user,path={b},server=1", "--port", "null", "-a"])
wait_for(lambda: os.path.exists(a) and os.path.exists(b), timeout=30, what="both sockets")

silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
silent.connect(a)
silent.settimeout(10)
seen = []
while 1 not in seen:		# SET_OWNER, then GET_FEATURES: awaits a reply
    hdr = b""
    while len(hdr) < 12:
        c = silent.recv(12 - len(hdr))
        check(c != b"", f"closed after {seen}")
        hdr += c
    size = int.from_bytes(hdr[8:12], "little")
    if size:
        silent.recv(size, socket.MSG_WAITALL)
    seen.append(int.from_bytes(hdr[:4], "little"))
check(seen[-1] == 1 and len(seen) <= 3, f"requests {seen}")
silent.setblocking(False)


def pending():
    """The silent connection is still open (we have not timed it out)."""
    try:
        r = silent.recv(4096)
        return r != b""
    except BlockingIOError:
        return True


healthy = Proc([binary("vfwd"), "-l", "0-1", "--main-lcore", "1", "--port",
                f"vhost,iface={b},client=1", "--fwd", "io", "--duration", "30"],
               interactive=False)
# the shell answers a query that runs on the control thread
info = ours.dinfo(2)
check(pending(), "the shell answered only after the silent backend timed out")
wait_for(lambda: ours.stats(2)["link"] == "up" or not pending(), timeout=30,
         what="the healthy port up")
check(pending(), "the healthy port came up only after the silent backend timed out")
base = ours.stats(2)["opackets"]
wait_for(lambda: ours.stats(2)["opackets"] > base + 1000 or not pending(), timeout=30,
         what="the healthy port forwarding")
check(pending() and ours.stats(2)["opackets"] > base + 1000,
      "the healthy port forwarded only after the silent backend timed out")
check(ours.stats(0)["link"] == "down", "the silent port is not up")
# the silent one times out in its own time (5 s) and is dropped; the other
# port goes on
wait_for(lambda: not pending(), timeout=30, what="the silent backend dropped")
silent.close()
check(ours.stats(2)["link"] == "up", "healthy port still up")
healthy.kill()
check(ours.quit() == 0, f"vfwd exit:\n{ours.text()[-2000:]}")
print("ok")
