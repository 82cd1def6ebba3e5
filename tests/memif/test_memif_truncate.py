"""A memif peer that shrinks the shared memory under us (hardening.md F11,
FI15).

1. Our server (vfwd: memif port 0, null ports 1-3; 0<->1 and 2<->3
   forward) maps a Python client's unsealed memfd region; 100 frames come
   in; the client truncates the memfd to 0 while our null port 1 keeps
   sending into its ring.  The process survives the SIGBUS, tells the
   client DISCONNECT "Peer memory truncated", counts mem_faults 1, goes
   back to listening; ports 2-3 keep forwarding; a new client connects and
   its 100 frames arrive, 200 in all, exactly.  Before vf_peermem the
   server died of SIGBUS here.
2. Our client (the memory is ours, sealed): a Python server that tries to
   truncate the region fds we sent is refused (EPERM) and the link stays;
   copy mode and zero-copy (the mbuf pool's region)."""
import errno
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from memif_util import Ours, check, sock_name, wait_for  # noqa: E402
import memif_pypeer  # noqa: E402

NULLS = ["--port", "null", "--port", "null", "--port", "null"]

# 1. our server, the client truncates
name = sock_name("tr1")
srv = Ours("vfwd", ["--port", f"memif,role=server,id=0,socket={name}"] + NULLS + ["-a"])
srv.wait_state("listening")
c = memif_pypeer.Client(name)
srv.wait_state("connected")
check(c.send_frames(100) == 100, "room for 100 frames")
wait_for(lambda: srv.stats()["ipackets"] >= 100, timeout=30, what="100 frames in")
check(srv.stats()["ipackets"] == 100, f"{srv.stats()}")
# our null port 1 sends into the client's S2C ring all along
wait_for(lambda: srv.stats()["opackets"] > 0, timeout=30, what="server tx into the client")
other = srv.stats(2)["opackets"]
c.truncate(0)
why = c.wait_disconnect()
check(why == "Peer memory truncated", f"DISCONNECT reason {why!r}")
check(srv.p.poll() is None, "server survived the SIGBUS")
srv.wait_state("listening")
i = srv.dinfo()
check(i["mem_faults"] == 1 and i["disconnect_reason"] == "Peer memory truncated", f"{i}")
xs = srv.query("show port xstats 0 json")
check('"memif_mem_faults": 1' in str(xs).replace("'", '"'), f"{xs}")
wait_for(lambda: srv.stats(2)["opackets"] > other + 10000, timeout=30,
         what="ports 2-3 still forwarding")
c.close()
# the next connection works
c2 = memif_pypeer.Client(name)
srv.wait_state("connected")
check(c2.send_frames(100) == 100, "room for 100 frames")
wait_for(lambda: srv.stats()["ipackets"] >= 200, timeout=30, what="100 more frames in")
check(srv.stats()["ipackets"] == 200, f"exactly 200: {srv.stats()}")
check(srv.dinfo()["mem_faults"] == 1, "no new fault")
c2.close()
srv.wait_state("listening")
check(srv.quit() == 0, "vfwd server exit")

# 2. our client: its memory is sealed, in copy mode (its own regions) and
# in zero-copy mode (regions 1..k are the mbuf pool: the sealed peer heap,
# lib/core/vf_mem.h; before it they were DPDK's unsealed heap memfd, and the
# truncate succeeded)
for mode in ("", ",zero-copy=yes"):
    name2 = sock_name("tr2" + ("zc" if mode else ""))
    ps = memif_pypeer.Server(name2)
    cli = Ours("vfwd", ["--port", f"memif,role=client,id=0,socket={name2}{mode}"] + NULLS + ["-a"])
    ps.accept()
    cli.wait_state("connected")
    check(len(ps.region_fds) >= (2 if mode else 1), f"regions came with their fds {mode}")
    for fd in ps.region_fds:
        try:
            os.ftruncate(fd, 0)
            check(False, f"our region could be truncated{mode}")
        except OSError as e:
            check(e.errno == errno.EPERM, f"ftruncate{mode}: {e}")
    other = cli.stats(2)["opackets"]
    wait_for(lambda: cli.stats(2)["opackets"] > other + 10000, timeout=30,
             what="ports 2-3 forwarding")
    check(cli.p.poll() is None, f"vfwd client died{mode}")
    check(cli.dinfo()["state"] == "connected" and cli.dinfo()["mem_faults"] == 0, f"{cli.dinfo()}")
    ps.close()
    cli.wait_state("connecting")
    check(cli.quit() == 0, "vfwd client exit")
print("ok")
