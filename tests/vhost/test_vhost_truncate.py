"""A vhost-user front-end that shrinks its guest memory under us
(hardening.md F11, FI15), split or packed rings (argv[1]).

vfwd: vhost port 0 (server), null ports 1-3; 0<->1 and 2<->3 forward.  A
Python front-end shares an unsealed memfd, sends 100 frames (received
exactly), and while our null port 1 keeps filling its rx buffers it
truncates the memfd to 0.  The process survives the SIGBUS, closes that
connection (last_error says why, mem_faults 1, link down); ports 2-3 keep
forwarding; a new front-end connects and its 100 frames arrive, 200 in
all.  Before vf_peermem vfwd died of SIGBUS here."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "memif"))
from memif_util import Ours, check, wait_for  # noqa: E402
import vftest  # noqa: E402
import vhost_pypeer  # noqa: E402

packed = len(sys.argv) > 1 and sys.argv[1] == "packed"
d = vftest.tmpdir()
sock = os.path.join(d, "vh.sock")
ours = Ours("vfwd", ["--port", f"vhost,iface={sock}", "--port", "null", "--port", "null",
                     "--port", "null", "-a"])
wait_for(lambda: os.path.exists(sock), timeout=30, what="the vhost socket")


def link(p=0):
    return ours.stats(p)["link"] == "up"


fe = vhost_pypeer.FrontEnd(sock, packed)
wait_for(link, timeout=30, what="link up")
info = ours.dinfo()
check(info["mem_sealed"] is False and info["mem_faults"] == 0, f"{info}")
fe.send_frames(100)
wait_for(lambda: ours.stats()["ipackets"] >= 100, timeout=30, what="100 frames in")
check(ours.stats()["ipackets"] == 100, f"{ours.stats()}")
wait_for(lambda: ours.stats()["opackets"] > 0, timeout=30, what="our tx into its rx ring",
         detail=lambda: f"port 0 {ours.info(0)}, port 1 {ours.stats(1)}")
other = ours.stats(2)["opackets"]
fe.truncate(0)
check(fe.wait_closed(), "connection closed")
check(ours.p.poll() is None, "vfwd survived the SIGBUS")
wait_for(lambda: not link(), timeout=30, what="link down")
info = ours.dinfo()
check(info["mem_faults"] == 1 and "truncated" in info["last_error"] and not info["connected"],
      f"{info}")
wait_for(lambda: ours.stats(2)["opackets"] > other + 10000, timeout=30,
         what="ports 2-3 still forwarding")
fe.close()
# the next connection works
fe2 = vhost_pypeer.FrontEnd(sock, packed)
wait_for(link, timeout=30, what="link up again")
fe2.send_frames(100)
wait_for(lambda: ours.stats()["ipackets"] >= 200, timeout=30, what="100 more frames in")
check(ours.stats()["ipackets"] == 200, f"exactly 200: {ours.stats()}")
check(ours.dinfo()["mem_faults"] == 1, "no new fault")
fe2.close()
wait_for(lambda: not link(), timeout=30, what="link down at close")
check(ours.quit() == 0, "vfwd exit")
print("ok")
