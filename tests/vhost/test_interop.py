#!/usr/bin/env python3
"""vhostd against DPDK 22.11's virtio_user (dpdk-testpmd) as the front-end.

Usage: test_interop.py CONFIG, where CONFIG is one of the keys of CONFIGS.
Echo configs: testpmd (rxonly) sends 4 bursts per queue with tx_first,
vhostd forwards them back (mac mode); both sides must count exactly that
many packets and bytes each way.  The txonly config has vhostd generate a
bounded count; testpmd must receive exactly what vhostd reports sent."""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vhtest as vt  # noqa: E402

# name: (virtio_user devargs, queue pairs, vhostd client mode, frame length, sessions)
CONFIGS = {
    "default": ("", 1, False, 64, 2),
    "in_order": ("in_order=1", 1, False, 64, 1),
    "no_in_order": ("in_order=0", 1, False, 64, 1),
    "mrg_rxbuf0": ("mrg_rxbuf=0", 1, False, 64, 1),
    "mrg_rxbuf1": ("mrg_rxbuf=1", 1, False, 1500, 1),
    "queues2": ("queues=2,cq=1", 2, False, 64, 1),
    "client": ("server=1", 1, True, 64, 2),
    # packed virtqueues (VIRTIO_F_RING_PACKED)
    "packed": ("packed_vq=1", 1, False, 64, 2),
    "packed_in_order0_mrg0": ("packed_vq=1,in_order=0,mrg_rxbuf=0", 1, False, 64, 1),
    "packed_in_order0_mrg1": ("packed_vq=1,in_order=0,mrg_rxbuf=1", 1, False, 1500, 1),
    "packed_in_order1_mrg0": ("packed_vq=1,in_order=1,mrg_rxbuf=0", 1, False, 64, 1),
    "packed_in_order1_mrg1": ("packed_vq=1,in_order=1,mrg_rxbuf=1", 1, False, 1500, 1),
    "packed_queues2": ("packed_vq=1,queues=2,cq=1", 2, False, 64, 1),
    "packed_client": ("packed_vq=1,server=1", 1, True, 64, 2),
}


def link(vh):
    p = vh.port()
    return p and p["link"]


def session(vh, sock, vdev, nq, client, flen, k):
    """One front-end connects, sends, receives, leaves."""
    tp = None
    try:
        if client and os.path.exists(sock):
            os.unlink(sock)
        tp = vt.Testpmd(sock, vdev, nq)
        tp.ready()
        vt.wait_for(lambda: link(vh) == "up", "vhostd link up")
        tp.cmd("set fwd rxonly")
        if flen != 64:
            tp.cmd("set txpkts %d" % flen)
        tp.cmd("start tx_first 4")
        n = 4 * 32 * nq
        vt.wait_for(lambda: tp.port_stats()["RX-packets"] >= n, "%d packets back" % n, step=0.5)
        st = tp.port_stats()
        tp.cmd("stop")
        vt.expect_eq("session %d: testpmd TX-packets" % k, st["TX-packets"], n, [tp, vh])
        vt.expect_eq("session %d: testpmd TX-bytes" % k, st["TX-bytes"], n * flen, [tp, vh])
        vt.expect_eq("session %d: testpmd RX-packets" % k, st["RX-packets"], n, [tp, vh])
        vt.expect_eq("session %d: testpmd RX-bytes" % k, st["RX-bytes"], n * flen, [tp, vh])
        vt.expect_eq("session %d: testpmd RX-errors" % k, st["RX-errors"], 0, [tp, vh])
        if nq > 1:
            xs = tp.xstats()
            for q in range(nq):
                key = "rx_q%d_good_packets" % q
                vt.expect_eq("session %d: testpmd %s" % (k, key), xs.get(key), 128, [tp, vh])
        return n
    finally:
        if tp:
            tp.quit()


def echo(name):
    vdev, nq, client, flen, sessions = CONFIGS[name]
    d = vt.tmpdir()
    sock = os.path.join(d, "vh.sock")
    vh = None
    try:
        args = ["--iface", sock]
        if nq > 1:
            args += ["--queues", str(nq)]
        if client:
            args += ["--client"]
        vh = vt.Vhostd(args)
        if not client:
            vt.wait_for(lambda: os.path.exists(sock) or not vh.alive(), "the vhostd socket")
        total = 0
        for k in range(sessions):
            total += session(vh, sock, vdev, nq, client, flen, k)
            # the front-end left: link down, then the next one is served
            vt.wait_for(lambda: link(vh) == "down", "vhostd link down")
        doc = vh.finish()
        # the ring layout both sides agreed on, once per session
        kind = "packed" if "packed_vq=1" in vdev else "split"
        vt.expect_eq("sessions with %s virtqueues" % kind,
                     vh.stderr().count(": %s virtqueues, features" % kind), sessions, [vh])
        p = vh.port(doc)
        vt.expect_eq("vhostd ipackets", p["ipackets"], total, [vh])
        vt.expect_eq("vhostd ibytes", p["ibytes"], total * flen, [vh])
        vt.expect_eq("vhostd opackets", p["opackets"], total, [vh])
        vt.expect_eq("vhostd obytes", p["obytes"], total * flen, [vh])
        vt.expect_eq("vhostd ierrors", p["ierrors"], 0, [vh])
        if not client:
            vt.expect_eq("socket removed at exit", os.path.exists(sock), False)
    finally:
        if vh:
            vh.stop()
        shutil.rmtree(d, ignore_errors=True)


def txonly():
    """vhostd (client mode, shell on a pipe) generates --count packets at
    --rate once testpmd (server=1, rxonly) forwards; vhostd sends exactly
    that many and testpmd receives them all, byte for byte."""
    from test_ring_full import Shell
    d = vt.tmpdir()
    sock = os.path.join(d, "vh.sock")
    vh = tp = None
    count, rate = 30000, 10000
    try:
        tp = vt.Testpmd(sock, "server=1")
        vt.wait_for(lambda: os.path.exists(sock) or not tp.alive(), "the testpmd socket")
        vh = Shell(["--iface", sock, "--client", "--fwd", "txonly", "--count", str(count),
                    "--rate", str(rate)])
        tp.ready()
        tp.cmd("set fwd rxonly")
        tp.cmd("start")
        vt.wait_for(lambda: vh.json_cmd("show port info 0 json")["ports"][0]["link"] == "up",
                    "vhostd link up", step=0.5)
        vh.send("start")

        def xs():
            return vh.json_cmd("show port xstats 0 json")["ports"][0]["xstats"]
        # --count hands exactly `count` packets to the port: what a full
        # ring refuses (tx_q0_dropped_ring_full counts each refusal) is
        # offered again, so every one is sent in the end.
        vt.wait_for(lambda: xs()["tx_q0_packets"] >= count,
                    "vhostd to send %d packets" % count, step=0.5)
        x = xs()
        sent = x["tx_q0_packets"]
        vt.expect_eq("vhostd sent", sent, count, [vh])
        vt.wait_for(lambda: tp.port_stats()["RX-packets"] >= sent, "%d packets" % sent, step=0.5,
                    must=False)
        st = tp.port_stats()
        vt.expect_eq("testpmd RX-packets", st["RX-packets"], sent, [tp, vh])
        vt.expect_eq("testpmd RX-bytes", st["RX-bytes"], x["tx_q0_bytes"], [tp, vh])
        vt.expect_eq("vhostd tx bytes", x["tx_q0_bytes"], sent * 64, [vh])
        tp.quit()
        tp = None
        vh.send("quit")
        vh.p.wait(30)
        vt.expect_eq("vhostd exit status", vh.p.returncode, 0, [vh])
    finally:
        if tp:
            tp.quit()
        if vh:
            vh.stop()
        shutil.rmtree(d, ignore_errors=True)


def main():
    if len(sys.argv) != 2 or (sys.argv[1] not in CONFIGS and sys.argv[1] != "txonly"):
        print("usage: test_interop.py %s|txonly" % "|".join(CONFIGS), file=sys.stderr)
        return 2
    for path in (vt.VHOSTD, vt.TESTPMD):
        if not os.access(path, os.X_OK):
            vt.fail("%s is missing" % path)
    if sys.argv[1] == "txonly":
        txonly()
    else:
        echo(sys.argv[1])
    print("PASS", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
