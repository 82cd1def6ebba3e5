#!/usr/bin/env python3
"""vhostd restarts under a running VM: the guest keeps pinging, no reboot.

    test_qemu_restart.py [packed] [ROUNDS]

QEMU is the vhost-user server (chardev server=on) and vhostd the client
(--client, icmpecho), the deployment where a back-end can go away and come
back: OVS-DPDK's dpdkvhostuserclient.  The guest (qemu_guest.py) pings
10.0.0.1 every INTERVAL s.  Each round SIGKILLs vhostd (nothing drains:
the worst case) and starts a new one on the same socket; QEMU resets the
rings it had to where the guest is (split: the used index it reads back
from the ring) and the new vhostd serves from there.  Checked each round:
the new vhostd negotiates, the guest's pings come back, QEMU never
restarts the guest (GUEST_UP once; -no-reboot would end QEMU) and never
dies.  Reported: per round the time from the kill to the first reply
through the new vhostd, the pings lost, and the totals.  Exit 77 (skip)
when QEMU, busybox or the kernel are not installed."""
import os
import shutil
import signal
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vhtest as vt  # noqa: E402
import qemu_guest as qg  # noqa: E402

INTERVAL = 0.2
RETRY_MS = 1000


def main():
    args = sys.argv[1:]
    packed = "packed" in args
    rounds = int(next((a for a in args if a.isdigit()), "10"))
    kernel, moddir = qg.kernel_and_modules()
    d = vt.tmpdir()
    sock = os.path.join(d, "vh.sock")
    vh = qemu = None

    def vhostd():
        return vt.Vhostd(["--port", "vhost,iface=%s,client=1,reconnect-ms=%d" % (sock, RETRY_MS),
                          "--fwd", "icmpecho"])

    def replies():
        return qg.seqs(qemu.stdout())

    def dump_all():
        for p in (qemu, vh):
            if p:
                p.dump()
    try:
        rd = qg.ping_initrd(os.path.join(d, "initrd.cpio"), moddir, INTERVAL)
        qemu = qg.qemu(kernel, rd, sock, "qemu", props="packed=on" if packed else "",
                       server=True)
        vt.wait_for(lambda: os.path.exists(sock) or not qemu.alive(), "QEMU's socket")
        vh = vhostd()
        if not vt.wait_for(lambda: len(replies()) >= 5 or not qemu.alive() or not vh.alive(),
                           "the guest's first pings", timeout=150, step=0.5, must=False) \
                or not qemu.alive() or not vh.alive():
            dump_all()
            vt.fail("the guest did not ping through vhostd")
        kind = "packed" if packed else "split"
        if ": %s virtqueues, features" % kind not in vh.stderr():
            dump_all()
            vt.fail("the guest did not negotiate %s virtqueues" % kind)
        print("ok: the guest pings through vhostd (client mode, %s)" % kind, flush=True)

        resume, lost, moved = [], [], 0
        for r in range(rounds):
            t0 = time.monotonic()
            vh.stop(signal.SIGKILL)
            before = max(replies())
            vh = vhostd()

            def back():
                new = [s for s in replies() if s > before]
                return new or (not qemu.alive() and "qemu exited") or \
                    (not vh.alive() and "vhostd exited")
            res = vt.wait_for(back, "pings through vhostd #%d" % (r + 2), timeout=60,
                              step=0.05, must=False)
            if not res or isinstance(res, str):
                dump_all()
                vt.fail("round %d: %s" % (r + 1, res or "no ping came back"))
            took = time.monotonic() - t0
            first = min(res)
            # pings sent while no back-end served them: sequence numbers
            # between the last reply before the kill and the first after
            gone = len(set(range(before + 1, first)) - replies())
            # packed: QEMU 7.2 cannot read the position back and sends
            # the first start's base; vhostd resumes where the ring shows
            moved += "is not where the ring stands" in vh.stderr()
            resume.append(took)
            lost.append(gone)
            print("round %d: replies again %.2f s after the kill, %d pings lost" %
                  (r + 1, took, gone), flush=True)
            # the new vhostd has its own rings: wait for a second reply so
            # the next kill does not land mid-negotiation every time
            vt.wait_for(lambda: len([s for s in replies() if s > first]) >= 1,
                        "a second reply after round %d" % (r + 1), timeout=30, step=0.05)

        if packed:
            vt.expect_eq("packed restarts resumed from the ring's flags", moved > 0, True, [vh])
            print("ok: %d of %d packed restarts resumed from the ring's own position" %
                  (moved, rounds), flush=True)
        vt.expect_eq("guest boots", qemu.stdout().count("GUEST_UP"), 1, [qemu])
        vt.expect_eq("QEMU alive", qemu.alive(), True, [qemu, vh])
        top = max(replies())
        total_lost = len(set(range(top + 1)) - replies())
        print("restart (%s, %d rounds): replies again after median %.2f s [%.2f-%.2f], "
              "pings lost per round median %d [%d-%d], %d of %d lost in all" %
              (kind, rounds, statistics.median(resume), min(resume), max(resume),
               statistics.median(lost), min(lost), max(lost), total_lost, top + 1),
              flush=True)
        qemu.stop()
        qemu = None
        doc = vh.finish()
        p = vh.port(doc)
        if p["ipackets"] < 1 or p["opackets"] < 1:
            vt.fail("the last vhostd counted %d in, %d out" % (p["ipackets"], p["opackets"]))
        vh = None
    finally:
        for p in (qemu, vh):
            if p:
                p.stop(signal.SIGKILL)
        shutil.rmtree(d, ignore_errors=True)
    print("PASS", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
