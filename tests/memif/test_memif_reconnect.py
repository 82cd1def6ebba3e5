"""A peer killed with SIGKILL mid-traffic, again and again.

1. Our memifctl server reflects a ping-pong stream from a vfwd client
   (mac, tx_first); the client is killed with SIGKILL while packets move
   and restarted, 20 times.  Traffic resumes every time; afterwards the
   server's fd count and mbuf pool in-use count equal their start values.
(The DPDK variant is test_memif_reconnect_dpdk.py.)"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(__file__))
from memif_util import Ours, Proc, binary, check, fd_count, sock_name, wait_for  # noqa: E402

CYCLES = 20

name = sock_name("r1")
srv = Ours("memifctl", ["--role", "server", "--id", "1", "--socket", name, "-a"])
srv.wait_state("listening")
fds0 = fd_count(srv.pid())
inuse0 = srv.dinfo()["pool_in_use"]
base = 0
for i in range(CYCLES):
    peer = Proc([binary("vfwd"), "-l", "0-1", "--port", f"memif,role=client,id=1,socket={name}",
                 "--fwd", "mac", "--tx-first", "--burst", "8"], interactive=False)
    # traffic flows through the new connection...
    wait_for(lambda: srv.stats()["ipackets"] > base + 50, timeout=60,
             what=f"traffic in cycle {i}")
    peer.kill(signal.SIGKILL)
    srv.wait_state("listening")
    base = srv.stats()["ipackets"]
info = srv.dinfo()
check(info["connects"] == CYCLES and info["disconnects"] == CYCLES, f"{info}")
check(info["disconnect_reason"] == "Connection closed by peer", f"{info}")
wait_for(lambda: srv.dinfo()["pool_in_use"] == inuse0, timeout=30, what="mbufs back")
check(fd_count(srv.pid()) == fds0, f"fds {fd_count(srv.pid())} != {fds0} at start")
check(srv.stats()["ierrors"] == 0, "no errors")
check(srv.quit() == 0, "memifctl server exit")

print("ok")
