"""A peer killed with SIGKILL mid-traffic, again and again.

1. Our memifctl server reflects a ping-pong stream from a vfwd client
   (mac, tx_first); the client is killed with SIGKILL while packets move
   and restarted, 20 times.  Traffic resumes every time; afterwards the
   server's fd count and mbuf pool in-use count equal their start values.
2. Our memifctl client against a DPDK net_memif server that is killed
   with SIGKILL and restarted 3 times: the client reconnects by itself
   (DPDK's own client would not) and traffic flows each time."""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(__file__))
from memif_util import Ours, Proc, TestPmd, binary, check, fd_count, sock_name, wait_for  # noqa: E402

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
    wait_for(lambda: srv.stats()["ipackets"] > base + 200, timeout=60,
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

# 2. DPDK server killed and restarted; our client comes back by itself
name = sock_name("r2")[1:]
cli = Ours("memifctl", ["--role", "client", "--id", "2", "--socket", name,
                        "--reconnect-ms", "100", "-a"])
fds0 = None
for i in range(3):
    tp = TestPmd(f"net_memif0,role=server,id=2,socket={name}")
    cli.wait_state("connected")
    tp.wait_link()
    tp.cmd("set fwd rxonly")
    tp.cmd("start tx_first")
    wait_for(lambda: tp.port_stats()["rx"] >= 32, timeout=60, what=f"reflected burst {i}")
    check(tp.port_stats()["rx"] == 32, "exactly one burst back")
    tp.kill(signal.SIGKILL)
    cli.wait_state("connecting")
    if fds0 is None:
        fds0 = fd_count(cli.pid())
check(fd_count(cli.pid()) == fds0, "client fds back to their value after the first loss")
check(cli.dinfo()["connects"] == 3, f"{cli.dinfo()}")
wait_for(lambda: cli.dinfo()["pool_in_use"] == 0, timeout=30, what="client mbufs back")
check(cli.quit() == 0, "memifctl client exit")
print("ok")
