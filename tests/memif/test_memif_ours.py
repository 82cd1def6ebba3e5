"""Ours <-> ours: memifctl server and a vfwd memif client.

1. Two queues, bsize 1024, rsize 8: 2 x 50 frames of 1500 bytes (two
   descriptors each) sent with tx_first, reflected, counted exactly.
2. A second client for the connected id is refused with a reason it can
   show; the first session is untouched.
3. A client started before its server retries by itself and connects."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from memif_util import Ours, check, sock_name, wait_for  # noqa: E402

name = sock_name("o1")

srv = Ours("memifctl", ["--role", "server", "--id", "7", "--socket", name, "--queues", "2",
                        "--bsize", "1024", "-a"])
srv.wait_state("listening")
cli = Ours("vfwd", ["--port", f"memif,role=client,id=7,socket={name},bsize=1024,rsize=8",
                    "--rxq", "2", "--txq", "2", "--fwd", "rxonly", "--burst", "50",
                    "--txpkts", "1500"])
cli.wait_state("connected")
srv.wait_state("connected")
i = cli.dinfo()
check(i["peer_name"] == "memifctl" and i["rings_c2s"] == 2 and i["rings_s2c"] == 2, f"{i}")
cli.cmd("start tx_first")
wait_for(lambda: cli.stats()["ipackets"] >= 100, timeout=60, what="100 packets back")
c, s = cli.stats(), srv.stats()
check(c["opackets"] == 100 and c["obytes"] == 150000, f"client sent {c}")
check(c["ipackets"] == 100 and c["ibytes"] == 150000, f"client received {c}")
check(s["ipackets"] == 100 and s["opackets"] == 100 and s["ibytes"] == 150000, f"server {s}")
check(c["ierrors"] == 0 and s["ierrors"] == 0, "no errors")
# memifctl's own shell command: state and every ring with head and tail
m = srv.query("show memif all json")["memif"]
check(len(m) == 1 and m[0]["state"] == "connected" and m[0]["peer_name"] == "vfwd", f"{m}")
rings = m[0]["rings"]
check(len(rings) == 4 and all(r["size"] == 256 for r in rings), f"rings {rings}")
# the server consumed everything the client produced on its rx (C2S) rings
check(all(r["head"] == r["tail"] == r["last"] for r in rings if r["dir"] == "rx"), f"{rings}")

# 2. a second client on the same id
dup = Ours("memifctl", ["--role", "client", "--id", "7", "--socket", name,
                        "--reconnect-ms", "200"])
wait_for(lambda: dup.dinfo()["disconnect_reason"] == "peer: Already connected",
         timeout=60, what="second client refused")
check(dup.dinfo()["state"] in ("connecting", "handshake"), f"{dup.dinfo()}")
check(dup.info()["link"] == "down", "refused client link down")
check(srv.dinfo()["state"] == "connected" and srv.dinfo()["connects"] == 1, f"{srv.dinfo()}")
check(srv.dinfo()["ctl_rejects"] >= 1, f"{srv.dinfo()}")

# 3. the first client leaves: the waiting one gets in by itself
check(cli.quit() == 0, f"vfwd exit {cli.p.returncode}")
dup.wait_state("connected")
check(dup.info()["link"] == "up", "second client link up")
check(dup.quit() == 0, "memifctl client exit")
srv.wait_state("listening")

# a client started before any server, then the server appears
late = sock_name("o2")
lc = Ours("memifctl", ["--role", "client", "--socket", late, "--reconnect-ms", "100"])
check(lc.dinfo()["state"] == "connecting", f"{lc.dinfo()}")
ls = Ours("memifctl", ["--role", "server", "--socket", late])
lc.wait_state("connected")
check(lc.quit() == 0 and ls.quit() == 0 and srv.quit() == 0, "clean exits")
print("ok")
