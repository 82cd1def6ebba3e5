"""vhostd dies and comes back under a running front-end.

    test_backend_restart.py split|packed

DPDK's virtio_user (testpmd, server=1) keeps the socket; vhostd connects to
it (--client).  Packets loop between them (testpmd io, vhostd mac) when
vhostd is SIGKILLed mid-traffic: what was in flight is lost, testpmd keeps
running and sees the link go down.  A new vhostd connects to the same
socket and the front-end sets the rings up again: DPDK resets packed rings
(SET_VRING_BASE then carries the wrap counter in bit 15), while on split
rings the new vhostd resumes at used->idx and serves what the old one left
(those packets come back late and are let drain).  Over the restart,
testpmd's sent = received + lost in flight, with the loss bounded: one
burst of the old vhostd (split), the packets in the reset rings (packed).
Then an exact number of
packets goes out and comes back, byte for byte.  The
new vhostd exits cleanly."""
import os
import shutil
import signal
import sys

sys.path.insert(0, os.path.dirname(__file__))
import vhtest as vt  # noqa: E402

N_BURSTS = 4
N = N_BURSTS * 32


def link(vh):
    p = vh.port()
    return p and p["link"]


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("split", "packed"):
        print("usage: test_backend_restart.py split|packed", file=sys.stderr)
        return 2
    kind = sys.argv[1]
    vdev = "server=1" + (",packed_vq=1" if kind == "packed" else "")
    d = vt.tmpdir()
    sock = os.path.join(d, "vh.sock")
    tp = vh = vh2 = None
    try:
        tp = vt.Testpmd(sock, vdev)
        vt.wait_for(lambda: os.path.exists(sock) or not tp.alive(), "the testpmd socket")
        vh = vt.Vhostd(["--iface", sock, "--client"])
        tp.ready()
        vt.wait_for(lambda: link(vh) == "up", "vhostd link up")
        tp.cmd("set fwd io")
        tp.cmd("start tx_first %d" % N_BURSTS)
        vt.wait_for(lambda: (vh.port() or {}).get("ipackets", 0) > 20000, "packets looping",
                    step=0.5)
        vh.stop(signal.SIGKILL)
        vh = None
        tp.cmd("stop")
        vt.expect_eq("testpmd alive after the back-end died", tp.alive(), True, [tp])
        # Every packet testpmd sent came back or was lost in flight: its
        # io loop re-sends what it receives (what it cannot re-send it
        # drops after counting it received), so sent - received is what
        # is still out.
        killed = tp.port_stats()

        vh2 = vt.Vhostd(["--iface", sock, "--client"])
        vt.wait_for(lambda: link(vh2) == "up", "the new vhostd's link up")
        vt.expect_eq("rings set up again as %s" % kind,
                     vh2.stderr().count(": %s virtqueues, features" % kind), 1, [vh2])
        # Split rings are not reset by the front-end: the new back-end
        # resumes at used->idx, so buffers the old one never completed are
        # served now and come back late.  Let them drain first.
        tp.cmd("clear port stats all")
        tp.cmd("set fwd rxonly")
        tp.cmd("start")
        last = [-1]

        def settled():
            rx = tp.port_stats()["RX-packets"]
            done, last[0] = rx == last[0], rx
            return done
        vt.wait_for(settled, "late packets drained", step=1.0)
        late = last[0]
        tp.cmd("stop")
        lost = killed["TX-packets"] - killed["RX-packets"] - late
        print("%s: sent %d, received %d before the restart and %d late; lost in flight %d"
              % (kind, killed["TX-packets"], killed["RX-packets"], late, lost))
        # Split: the new vhostd resumes at used->idx, so only what the old
        # one held between its dequeue and its enqueue is lost: one burst.
        # Packed: DPDK resets the rings, and what was in them goes too.
        bound = 32 if kind == "split" else N
        vt.expect_eq("sent = received + lost in flight, 0 <= lost <= %d" % bound,
                     0 <= lost <= bound, True, [tp])
        tp.cmd("clear port stats all")
        before = tp.port_stats()
        tp.cmd("start tx_first %d" % N_BURSTS)
        vt.wait_for(lambda: tp.port_stats()["RX-packets"] >= before["RX-packets"] + N,
                    "%d packets back through the new vhostd" % N, step=0.5, must=False)
        st = tp.port_stats()
        tp.cmd("stop")
        vt.expect_eq("testpmd TX-packets", st["TX-packets"] - before["TX-packets"], N, [tp, vh2])
        vt.expect_eq("testpmd RX-packets", st["RX-packets"] - before["RX-packets"], N, [tp, vh2])
        vt.expect_eq("testpmd RX-bytes", st["RX-bytes"] - before["RX-bytes"], N * 64, [tp, vh2])
        tp.quit()
        tp = None
        doc = vh2.finish()
        p = vh2.port(doc)
        vt.expect_eq("new vhostd opackets", p["opackets"], late + N, [vh2])
        vt.expect_eq("new vhostd obytes", p["obytes"], (late + N) * 64, [vh2])
        vt.expect_eq("new vhostd ipackets", p["ipackets"], late + N, [vh2])
        vh2 = None
        print("ok: %s: back-end restarted, %d packets each way afterwards" % (kind, N))
        return 0
    finally:
        for p in (tp, vh, vh2):
            if p:
                p.stop(signal.SIGKILL)
        shutil.rmtree(d, ignore_errors=True)


sys.exit(main())
