"""Our memifctl client, zero-copy, against a DPDK net_memif server that is
killed with SIGKILL and restarted 3 times: the client reconnects by itself
(DPDK's own client would not), exactly one reflected burst arrives each
time, and the client's fds come back to their value and its mbufs (posted
to the server or in flight when it died) to the pool."""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(__file__))
from memif_util import Ours, TestPmd, check, fd_count, sock_name, wait_for  # noqa: E402

name = sock_name("r2")[1:]
cli = Ours("memifctl", ["--role", "client", "--id", "2", "--socket", name,
                        "--reconnect-ms", "100", "--zero-copy", "-a"])
fds0 = None
for i in range(3):
    tp = TestPmd(f"net_memif0,role=server,id=2,socket={name}")
    cli.wait_state("connected")
    tp.wait_link()
    tp.cmd("set fwd rxonly")
    tp.cmd("start tx_first")
    wait_for(lambda: tp.port_stats()["rx"] >= 32, timeout=60, what=f"reflected burst {i}")
    check(tp.port_stats()["rx"] == 32, "exactly one burst back")
    info = cli.dinfo()
    check(info["zero_copy"] and info["regions"] >= 2, f"zero-copy in use: {info}")
    # our receive buffers are posted to the server: mbufs in use
    check(info["pool_in_use"] >= 1024, f"posted rx mbufs {info}")
    tp.kill(signal.SIGKILL)
    cli.wait_state("connecting")
    wait_for(lambda: cli.dinfo()["pool_in_use"] == 0, timeout=30, what="client mbufs reclaimed")
    if fds0 is None:
        fds0 = fd_count(cli.pid())
check(fd_count(cli.pid()) == fds0, "client fds back to their value after the first loss")
check(cli.dinfo()["connects"] == 3, f"{cli.dinfo()}")
check(cli.quit() == 0, "memifctl client exit")
print("ok")
