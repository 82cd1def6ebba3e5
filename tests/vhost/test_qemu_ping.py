#!/usr/bin/env python3
"""A QEMU guest pings through vhostd (icmpecho mode).

The guest (qemu_guest.py) is on vhostd's socket; its kernel virtio-net
driver uses EVENT_IDX and interrupts, so this is the test of notifications
a polling DPDK front-end never asks for.  Exit 77 (skip) when QEMU, busybox
or the kernel are not installed.  Arguments: packed (packed virtqueues),
adaptive (vhostd --rx-mode adaptive: its core sleeps between the pings and
the guest's kicks wake it)."""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vhtest as vt  # noqa: E402
import qemu_guest as qg  # noqa: E402

COUNT = 5
PING = """ping -c %(count)d -W 5 10.0.0.1
echo "PING_RESULT $?"
poweroff -f
"""


def main():
    # "packed": the device gets packed=on, so the guest's driver uses a
    # packed virtqueue (and its DESC event suppression with EVENT_IDX)
    # "adaptive": vhostd's core sleeps between the pings (rx modes): the
    # guest's kicks (EVENT_IDX: the avail event index; packed: the device
    # area) wake it
    packed = "packed" in sys.argv[1:]
    adaptive = "adaptive" in sys.argv[1:]
    kernel, moddir = qg.kernel_and_modules()

    d = vt.tmpdir()
    sock = os.path.join(d, "vh.sock")
    vh = qemu = None
    try:
        initrd = qg.initrd(os.path.join(d, "initrd.cpio"), moddir,
                           qg.HEAD % {"mods": qg.module_names(), "ip": "10.0.0.2"} +
                           PING % {"count": COUNT})

        vh = vt.Vhostd(["--iface", sock, "--fwd", "icmpecho"] +
                       (["--rx-mode", "adaptive"] if adaptive else []))
        vt.wait_for(lambda: os.path.exists(sock) or not vh.alive(), "the vhostd socket")
        qemu = qg.qemu(kernel, initrd, sock, "qemu", props="packed=on" if packed else "")
        res = vt.wait_for(lambda: re.search(r"PING_RESULT (\d+)", qemu.stdout()) or
                          (not qemu.alive() and "qemu exited"), "the guest's ping", timeout=100,
                          step=0.5)
        if res == "qemu exited" or res.group(1) != "0":
            qemu.dump()
            vh.dump()
            vt.fail("the guest's ping failed")
        m = re.search(r"(\d+) packets transmitted, (\d+) packets received", qemu.stdout())
        vt.expect_eq("guest echo replies", m and int(m.group(2)), COUNT, [qemu, vh])
        qemu.stop()
        doc = vh.finish()
        kind = "packed" if packed else "split"
        if ": %s virtqueues, features" % kind not in vh.stderr():
            vh.dump()
            vt.fail("the guest did not negotiate %s virtqueues" % kind)
        print("ok: %s virtqueues" % kind)
        p = vh.port(doc)
        # ARP request(s) + the echo requests in, their answers out
        if p["ipackets"] < COUNT + 1 or p["opackets"] < COUNT + 1:
            vh.dump()
            vt.fail("vhostd counted %d in, %d out" % (p["ipackets"], p["opackets"]))
        print("ok: vhostd in %d, out %d" % (p["ipackets"], p["opackets"]))
        if adaptive:
            st = doc.get("streams") or doc.get("fwd", {}).get("streams") or []
            if not st or st[0].get("wakeups", 0) < COUNT:
                vh.dump()
                vt.fail("vhostd's core did not sleep between the pings: %s" % st)
            print("ok: asleep %.2f s, %d wake-ups" % (st[0]["asleep_s"], st[0]["wakeups"]))
    finally:
        if qemu:
            qemu.stop()
        if vh:
            vh.stop()
        shutil.rmtree(d, ignore_errors=True)
    print("PASS", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
