"""Ours as memif server against DPDK 22.11 net_memif as client (testpmd):
a known number of packets each way arrives exactly, bytes counted.

1. memifctl server (mac reflector), two queues, bsize 2048: testpmd
   client with 2 rx/tx queues sends one 1500-byte burst per queue.
2. vfwd memif server port, bsize 1024; testpmd client bsize 1024, rsize 8
   sends 3 bursts of 1000 bytes (<= bsize, pitfall 24), gets them back.
3. A second DPDK client asking for the connected id is refused with a
   reason; the first session is untouched."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from memif_util import Ours, TestPmd, check, sock_name, wait_for  # noqa: E402


def case_two_queues():
    name = sock_name("c1")[1:]
    mc = Ours("memifctl", ["--role", "server", "--id", "3", "--socket", name,
                           "--queues", "2", "-a"])
    mc.wait_state("listening")
    tp = TestPmd(f"net_memif0,role=client,id=3,socket={name}", ["--rxq=2", "--txq=2"])
    tp.wait_link()
    mc.wait_state("connected")
    info = mc.dinfo()
    check(info["rings_c2s"] == 2 and info["rings_s2c"] == 2, f"rings {info}")
    for c in ("set fwd rxonly", "set txpkts 1500", "start tx_first"):
        tp.cmd(c)
    wait_for(lambda: tp.port_stats()["tx"] > 0, timeout=60, what="testpmd tx")
    sent = tp.port_stats()["tx"]
    check(sent == 64, f"tx_first on two streams sends 2 x 32, not {sent}")
    wait_for(lambda: tp.port_stats()["rx"] >= sent, timeout=60, what="reflected packets")
    t = tp.port_stats()
    check(t == {"rx": 64, "rx_bytes": 96000, "tx": 64, "tx_bytes": 96000}, f"testpmd {t}")
    st = mc.stats()
    check(st["ipackets"] == 64 and st["opackets"] == 64 and st["ibytes"] == 96000, f"memifctl {st}")
    # both queues carried traffic
    rings = mc.query("show port ring 0 json")["rings"]
    used = {(r["dir"], r["queue"]) for r in rings if r["last"] != 0}
    check({("rx", 0), ("rx", 1), ("tx", 0), ("tx", 1)} <= used, f"rings {rings}")
    tp.kill()
    mc.wait_state("listening")
    check(mc.dinfo()["disconnect_reason"] == "Connection closed by peer", f"{mc.dinfo()}")
    check(mc.quit() == 0, f"memifctl exit {mc.p.returncode}")


def case_vfwd_1024_and_refusal():
    name = sock_name("c2")[1:]
    ours = Ours("vfwd", ["--port", f"memif,role=server,id=4,socket={name},bsize=1024",
                         "--fwd", "mac", "-a"])
    ours.wait_state("listening")
    tp = TestPmd(f"net_memif0,role=client,id=4,socket={name},bsize=1024,rsize=8")
    tp.wait_link()
    ours.wait_state("connected")
    check(ours.dinfo()["rsize"] == 8, f"the client chooses the ring size: {ours.dinfo()}")
    for c in ("set fwd rxonly", "set txpkts 1000", "start tx_first 3"):
        tp.cmd(c)
    wait_for(lambda: tp.port_stats()["rx"] >= 96, timeout=60, what="96 packets back")
    t = tp.port_stats()
    check(t == {"rx": 96, "rx_bytes": 96000, "tx": 96, "tx_bytes": 96000}, f"testpmd {t}")

    # Same id again from a second DPDK client: refused, first untouched.
    tp2 = TestPmd(f"net_memif0,role=client,id=4,socket={name}")
    wait_for(lambda: ours.dinfo()["ctl_rejects"] >= 1, timeout=60, what="second client refused")
    tp2.kill()
    info = ours.dinfo()
    check(info["state"] == "connected" and info["connects"] == 1, f"first session {info}")
    tp.cmd("stop")
    tp.cmd("start tx_first 1")  # still forwarding after the refusal
    wait_for(lambda: tp.port_stats()["rx"] >= 128, timeout=60, what="traffic after refusal")
    check(tp.port_stats()["rx"] == 128, "exactly one more burst")
    st = ours.stats()
    check(st["ipackets"] == 128 and st["opackets"] == 128, f"vfwd {st}")
    check(ours.quit() == 0, f"vfwd exit {ours.p.returncode}")
    tp.kill()


case_two_queues()
case_vfwd_1024_and_refusal()
print("ok")
