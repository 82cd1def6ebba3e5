#!/usr/bin/env python3
"""A QEMU guest pinging through vhostd is live-migrated to a second QEMU on
a second vhostd.

Two vhostd instances (icmpecho; main lcores 0 and 1), a source QEMU 7.2
(TCG, Debian cloud kernel, busybox initramfs of qemu_guest.py) on the
first, a destination QEMU with -incoming on the second; QMP `migrate` over a
unix socket while the guest pings every 0.2 s.  Checked: the migration
completes (the source vhostd took a dirty log: SET_LOG_BASE, LOG_ALL, no
page it could not log), pings go on from the destination, the destination
vhostd put QEMU's RARP on the wire (SEND_RARP; xstats rx_q0_rarp, as the
guest has guest_announce=off so that QEMU asks the back-end to announce it),
neither vhostd crashed, and both are back to their idle fd count once their
QEMU is gone.  Reported: QEMU's downtime, pings lost, the longest gap.
Argument "packed": the device gets packed=on.  Exit 77 (skip) when QEMU,
busybox or the kernel are not installed."""
import json
import os
import re
import shutil
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vhtest as vt  # noqa: E402
import qemu_guest as qg  # noqa: E402

INTERVAL = 0.2
T0 = time.monotonic()
MAC = "52:54:00:12:34:56"


class Qmp:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(30)
        self.s.connect(path)
        self.f = self.s.makefile("rwb")
        self._read()				# greeting
        self.cmd("qmp_capabilities")

    def _read(self):
        while True:
            line = self.f.readline()
            if not line:
                vt.fail("QMP connection closed")
            msg = json.loads(line)
            if "event" not in msg:
                return msg

    def cmd(self, name, **args):
        self.f.write((json.dumps({"execute": name, "arguments": args}) + "\n").encode())
        self.f.flush()
        r = self._read()
        if "error" in r:
            vt.fail("QMP %s: %s" % (name, r["error"]))
        return r["return"]

    def close(self):
        self.s.close()


class Vh(vt.Proc):
    """vhostd in interactive mode (queried through its shell)."""

    def __init__(self, sock, core):
        super().__init__([vt.VHOSTD, "--iface", sock, "--fwd", "icmpecho", "-i", "-a",
                          "-l", "0-1", "--main-lcore", str(core)], stdin=True, name="vhostd%d" % core)

    def query(self, command, key):
        n = len(self.stdout().splitlines())
        self.send(command)

        def line():
            for ln in self.stdout().splitlines()[n:]:
                if ln.startswith("{") and key in ln:
                    return ln
            return None
        return json.loads(vt.wait_for(line, command, timeout=20))["ports"][0]

    def xstats(self):
        return self.query("show port xstats 0 json", "xstats")["xstats"]

    def dinfo(self):
        return self.query("show port info 0 json", "driver_info")["driver_info"]

    def fds(self):
        return len(os.listdir("/proc/%d/fd" % self.p.pid))


def main():
    packed = sys.argv[1:] == ["packed"]
    kernel, moddir = qg.kernel_and_modules()
    d = vt.tmpdir()
    procs = []
    try:
        initrd = qg.ping_initrd(os.path.join(d, "initrd.cpio"), moddir, INTERVAL)
        sa, sb = os.path.join(d, "a.sock"), os.path.join(d, "b.sock")
        vha, vhb = Vh(sa, 0), Vh(sb, 1)
        procs += [vha, vhb]
        vt.wait_for(lambda: (os.path.exists(sa) and os.path.exists(sb)) or
                    not (vha.alive() and vhb.alive()), "the vhostd sockets")
        time.sleep(0.5)
        idle = (vha.fds(), vhb.fds())

        def qemu(sock, name, extra):
            return qg.qemu(kernel, initrd, sock, name, mac=MAC,
                           props="guest_announce=off" + (",packed=on" if packed else ""),
                           extra=["-qmp", "unix:%s,server=on,wait=off" %
                                  os.path.join(d, name + ".qmp")] + extra)

        src = qemu(sa, "src", [])
        procs.append(src)
        if not vt.wait_for(lambda: len(qg.seqs(src.stdout())) >= 10 or not src.alive(),
                           "the guest's first pings", timeout=120, step=0.5, must=False) \
                or not src.alive():
            src.dump()
            vha.dump()
            vt.fail("the guest did not ping through the source vhostd")
        print("ok: the guest pings (%.0f s into the test)" % (time.monotonic() - T0), flush=True)
        mig = os.path.join(d, "mig.sock")
        dst = qemu(sb, "dst", ["-incoming", "unix:" + mig])
        procs.append(dst)
        vt.wait_for(lambda: os.path.exists(mig) or not dst.alive(), "the destination QEMU")
        # the destination's vhost-user connection is up before the switch
        vt.wait_for(lambda: vhb.dinfo()["connected"], "the destination's vhost-user connection")

        qa = Qmp(os.path.join(d, "src.qmp"))
        # 40 MiB/s: the 92 MiB take about 2 s, so the guest pings (every 0.2 s)
        # while the source logs; at 1 GiB/s a 0.5 s migration under load (a
        # slow TCG guest, CI) could see no ping and mark no page
        qa.cmd("migrate-set-parameters", **{"max-bandwidth": 40 << 20, "downtime-limit": 300})
        before = max(qg.seqs(src.stdout()))
        t0 = time.monotonic()
        qa.cmd("migrate", uri="unix:" + mig)

        def done():
            st = qa.cmd("query-migrate")
            return st if st.get("status") in ("completed", "failed", "cancelled") else None
        st = vt.wait_for(done, "the migration", timeout=60, step=0.2)
        took = time.monotonic() - t0
        if st["status"] != "completed":
            for p in procs:
                p.dump()
            vt.fail("migration %s: %s" % (st["status"], st.get("error-desc")))
        ram = st.get("ram", {})
        print("ok: migrated in %.1f s (%.0f s into the test), QEMU downtime %s ms, %.1f MiB sent, "
              "%s dirty-sync rounds" % (took, time.monotonic() - T0, st.get("downtime"),
                                         ram.get("transferred", 0) / 2**20,
                                         ram.get("dirty-sync-count")), flush=True)
        ia = vha.dinfo()
        xa = vha.xstats()
        vt.expect_eq("source: log bases taken", xa["log_bases"] >= 1, True, procs)
        vt.expect_eq("source: pages it could not log",
                     xa["rx_q0_log_miss_pages"] + xa["tx_q0_log_miss_pages"], 0, procs)
        # the guest's ring and buffer pages were marked while it migrated
        vt.expect_eq("source: pages marked in the log",
                     xa["rx_q0_log_pages"] > 0 and xa["tx_q0_log_pages"] > 0, True, procs)
        print("ok: source vhostd marked %d + %d pages in a %d-byte bitmap" %
              (xa["rx_q0_log_pages"], xa["tx_q0_log_pages"], ia["log_bytes"]), flush=True)

        # pings go on from the destination
        if not vt.wait_for(lambda: len([s for s in qg.seqs(dst.stdout()) if s > before]) >= 15 or
                           not dst.alive(), "pings after the switch", timeout=60, step=0.5,
                           must=False) or not dst.alive():
            dst.dump()
            vhb.dump()
            vt.fail("no pings through the destination vhostd")
        xb = vt.wait_for(lambda: (lambda x: x if x["rx_q0_rarp"] >= 1 else None)(vhb.xstats()),
                         "the destination's RARP", timeout=20, step=0.5)
        vt.expect_eq("destination: SEND_RARP requests seen", xb["rarp_requests"] >= 1, True, procs)
        print("ok: destination vhostd sent %d RARP announcement(s) for %s" %
              (xb["rx_q0_rarp"], MAC), flush=True)
        vt.expect_eq("destination: dirty logging off", vhb.dinfo()["dirty_logging"], False, procs)

        rtt = [float(t) for t in re.findall(r"seq=\d+ ttl=\d+ time=([\d.]+) ms", dst.stdout())]
        got = qg.seqs(src.stdout()) | qg.seqs(dst.stdout())
        top = max(got)
        lost = sorted(set(range(top + 1)) - got)
        gap = max(b - a for a, b in zip(sorted(got), sorted(got)[1:]))
        print("migration: %s, QEMU downtime %s ms, %d of %d pings lost %s, longest gap %d "
              "intervals (%.1f s), slowest reply on the destination %.0f ms" %
              ("packed" if packed else "split", st.get("downtime"), len(lost), top + 1,
               lost[:20], gap, gap * INTERVAL, max(rtt) if rtt else -1), flush=True)

        # the source QEMU (paused) and then the destination go: each
        # vhostd back to its idle fd count, both alive
        qa.cmd("quit")
        qa.close()
        src.stop()
        vt.wait_for(lambda: vha.fds() == idle[0] or not vha.alive(),
                    "the source vhostd's fds back to %d (now %d)" % (idle[0], vha.fds()))
        dst.stop()
        vt.wait_for(lambda: vhb.fds() == idle[1] or not vhb.alive(),
                    "the destination vhostd's fds back to %d (now %d)" % (idle[1], vhb.fds()))
        for v in (vha, vhb):
            if not v.alive():
                v.dump()
                vt.fail("%s died" % v.name)
            v.send("quit")
            rc = v.stop(timeout=20)
            if rc != 0:
                v.dump()
                vt.fail("%s exited with %s" % (v.name, rc))
        print("ok: both vhostd idle again and exited 0 (%.0f s)" % (time.monotonic() - T0),
              flush=True)
    finally:
        for p in procs:
            p.stop()
        shutil.rmtree(d, ignore_errors=True)
    print("PASS", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
