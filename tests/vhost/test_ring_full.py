#!/usr/bin/env python3
"""Packets the front-end's full rx ring refuses are counted (and, with
--count, offered again until they fit), and the xstats, port info and ring
state agree with what the front-end received.  vhostd runs its interactive
shell on a pipe: it generates only after the link is up; testpmd
(virtio_user) drains its rx ring only once the ring is full."""
import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vhtest as vt  # noqa: E402

COUNT = 1000


class Shell(vt.Proc):
    def __init__(self, args):
        super().__init__([vt.VHOSTD, "-i"] + args, stdin=True, name="vhostd")

    def json_cmd(self, line):
        n = self._count()
        self.send(line)
        vt.wait_for(lambda: self._count() > n or not self.alive(), "vhostd '%s'" % line)
        if not self.alive():
            self.dump()
            vt.fail("vhostd exited during '%s'" % line)
        return json.loads([l for l in self.stdout().splitlines() if l.startswith("{")][-1])

    def _count(self):
        return sum(1 for l in self.stdout().splitlines() if l.startswith("{"))


def main():
    d = vt.tmpdir()
    sock = os.path.join(d, "vh.sock")
    vh = tp = None
    try:
        vh = Shell(["--iface", sock, "--fwd", "txonly", "--count", str(COUNT)])
        vt.wait_for(lambda: os.path.exists(sock) or not vh.alive(), "the vhostd socket")
        tp = vt.Testpmd(sock)
        tp.ready()
        tp.cmd("set fwd rxonly")
        vt.wait_for(lambda: vh.json_cmd("show port info 0 json")["ports"][0]["link"] == "up",
                    "vhostd link up", step=0.5)
        info = vh.json_cmd("show port info 0 json")["ports"][0]["driver_info"]
        vt.expect_eq("connected", info["connected"], True, [vh])
        vt.expect_eq("protocol features", info["protocol_features"], "0x10009", [vh])
        vh.send("start")

        def xs():
            return vh.json_cmd("show port xstats 0 json")["ports"][0]["xstats"]
        # testpmd does not drain yet: the ring fills, then refuses.  With
        # --count, vhostd keeps the refused packets and offers them again.
        vt.wait_for(lambda: xs()["tx_q0_dropped_ring_full"] > 0, "a full ring", step=0.5)
        time.sleep(0.5)
        x = xs()
        sent, full = x["tx_q0_packets"], x["tx_q0_dropped_ring_full"]
        if sent == 0 or sent >= COUNT:
            vh.dump()
            vt.fail("want a partly filled ring before the front-end drains: %d sent" % sent)
        vt.expect_eq("tx bytes", x["tx_q0_bytes"], sent * 64, [vh])
        vt.expect_eq("no broken ring", x["tx_q0_ring_broken"] + x["rx_q0_ring_broken"], 0, [vh])
        # the front-end polls: it never asked for a call
        vt.expect_eq("calls", x["tx_q0_calls"] + x["rx_q0_calls"], 0, [vh])
        ring = vh.json_cmd("show port ring 0 json")["vrings"][0]
        vt.expect_eq("vring 0 last_used", ring["last_used"], sent % 65536, [vh])
        # now the front-end drains its ring: all COUNT packets arrive, none lost
        tp.cmd("start")
        vt.wait_for(lambda: tp.port_stats()["RX-packets"] >= COUNT, "%d packets" % COUNT, step=0.5)
        st = tp.port_stats()
        tp.cmd("stop")
        vt.expect_eq("testpmd RX-packets", st["RX-packets"], COUNT, [tp, vh])
        vt.expect_eq("testpmd RX-bytes", st["RX-bytes"], COUNT * 64, [tp, vh])
        vt.expect_eq("vhostd tx packets", xs()["tx_q0_packets"], COUNT, [vh])
        tp.quit()
        tp = None
        vt.wait_for(lambda: vh.json_cmd("show port info 0 json")["ports"][0]["link"] == "down",
                    "vhostd link down", step=0.5)
        x = xs()
        vt.expect_eq("connections", x["connections"], 1, [vh])
        vt.expect_eq("link changes", x["link_changes"], 2, [vh])
        vh.send("quit")
        vh.p.wait(30)
        vt.expect_eq("vhostd exit status", vh.p.returncode, 0, [vh])
    finally:
        if tp:
            tp.quit()
        if vh:
            vh.stop()
        shutil.rmtree(d, ignore_errors=True)
    print("PASS", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
