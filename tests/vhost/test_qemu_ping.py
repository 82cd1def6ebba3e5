#!/usr/bin/env python3
"""A QEMU guest pings through vhostd (icmpecho mode).

QEMU 7.2 (Debian 12) under TCG with a vhost-user netdev on vhostd's socket,
guest RAM shared through a memfd, the Debian cloud kernel and a busybox
initramfs built here; the virtio-net-pci device has vectors=0 (QEMU 7.2
crashes in vhost_net_start under TCG with MSI-X; protocols.md §5 pitfall
31).  The guest's kernel virtio-net driver uses EVENT_IDX and interrupts,
so this is the test of notifications a polling DPDK front-end never asks
for.  Exit 77 (skip) when QEMU, busybox or the kernel are not installed
(packages qemu-system-x86, busybox-static, linux-image-cloud-amd64).
Arguments: packed (packed virtqueues), adaptive (vhostd --rx-mode
adaptive: its core sleeps between the pings and the guest's kicks wake
it)."""
import glob
import os
import re
import shutil
import stat
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vhtest as vt  # noqa: E402

ROOT = os.environ.get("VF_GUEST_ROOT", "/")	# where boot/ and lib/modules/ are
QEMU = shutil.which("qemu-system-x86_64")
BUSYBOX = "/bin/busybox"
MODULES = ["drivers/virtio/virtio_ring.ko", "drivers/virtio/virtio.ko",
           "drivers/virtio/virtio_pci_modern_dev.ko", "drivers/virtio/virtio_pci_legacy_dev.ko",
           "drivers/virtio/virtio_pci.ko", "net/core/failover.ko",
           "drivers/net/net_failover.ko", "drivers/net/virtio_net.ko"]
COUNT = 5

INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
for m in %(mods)s; do insmod /lib/$m || echo "insmod $m failed"; done
ip link set lo up
ip link set eth0 up
ip addr add 10.0.0.2/24 dev eth0
ping -c %(count)d -W 5 10.0.0.1
echo "PING_RESULT $?"
poweroff -f
"""


def skip(why):
    print("SKIP: " + why, flush=True)
    sys.exit(77)


def cpio_newc(entries, path):
    """entries: (name, mode, data or None, rdev (major, minor))."""
    out = bytearray()
    ino = 1

    def pad4():
        while len(out) % 4:
            out.append(0)

    for name, mode, data, rdev in entries + [("TRAILER!!!", 0, b"", (0, 0))]:
        data = data or b""
        nb = name.encode() + b"\0"
        fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(nb), 0]
        out += b"070701" + "".join("%08x" % f for f in fields).encode()
        out += nb
        pad4()
        out += data
        pad4()
        ino += 1
    with open(path, "wb") as f:
        f.write(out)


def guest_parts(make_init):
    """The cloud kernel and the initramfs entries (busybox, virtio-net
    modules, /init = make_init("mod.ko ...")); exits 77 when absent."""
    kernels = sorted(glob.glob(os.path.join(ROOT, "boot", "vmlinuz-*-cloud-amd64")))
    if not QEMU or not os.path.exists(BUSYBOX) or not kernels:
        skip("needs qemu-system-x86_64, busybox-static and linux-image-cloud-amd64")
    kernel = kernels[-1]
    kver = re.sub(r"^vmlinuz-", "", os.path.basename(kernel))
    moddir = os.path.join(ROOT, "lib", "modules", kver, "kernel")
    if not all(os.path.exists(os.path.join(moddir, m)) for m in MODULES):
        skip("modules of %s not found under %s" % (kver, moddir))
    names = [os.path.basename(m) for m in MODULES]
    ents = [("bin", stat.S_IFDIR | 0o755, None, (0, 0)),
            ("dev", stat.S_IFDIR | 0o755, None, (0, 0)),
            ("dev/console", stat.S_IFCHR | 0o600, None, (5, 1)),
            ("proc", stat.S_IFDIR | 0o755, None, (0, 0)),
            ("sys", stat.S_IFDIR | 0o755, None, (0, 0)),
            ("lib", stat.S_IFDIR | 0o755, None, (0, 0)),
            ("init", stat.S_IFREG | 0o755, make_init(" ".join(names)).encode(), (0, 0)),
            ("bin/busybox", stat.S_IFREG | 0o755, open(BUSYBOX, "rb").read(), (0, 0))]
    for m in MODULES:
        ents.append(("lib/" + os.path.basename(m), stat.S_IFREG | 0o644,
                     open(os.path.join(moddir, m), "rb").read(), (0, 0)))
    return kernel, ents


def main():
    # "packed": the device gets packed=on, so the guest's driver uses a
    # packed virtqueue (and its DESC event suppression with EVENT_IDX)
    # "adaptive": vhostd's core sleeps between the pings (rx modes): the
    # guest's kicks (EVENT_IDX: the avail event index; packed: the device
    # area) wake it
    packed = "packed" in sys.argv[1:]
    adaptive = "adaptive" in sys.argv[1:]
    kernel, ents = guest_parts(lambda mods: INIT % {"mods": mods, "count": COUNT})

    d = vt.tmpdir()
    sock = os.path.join(d, "vh.sock")
    vh = qemu = None
    try:
        initrd = os.path.join(d, "initrd.cpio")
        cpio_newc(ents, initrd)

        vh = vt.Vhostd(["--iface", sock, "--fwd", "icmpecho"] +
                       (["--rx-mode", "adaptive"] if adaptive else []))
        vt.wait_for(lambda: os.path.exists(sock) or not vh.alive(), "the vhostd socket")
        qemu = vt.Proc([QEMU, "-machine", "q35,memory-backend=m,accel=tcg", "-m", "256M",
                        "-object", "memory-backend-memfd,id=m,size=256M,share=on",
                        "-chardev", "socket,id=c0,path=" + sock,
                        "-netdev", "vhost-user,id=n0,chardev=c0",
                        "-device", "virtio-net-pci,netdev=n0,vectors=0,mac=52:54:00:12:34:56" +
                        (",packed=on" if packed else ""),
                        "-kernel", kernel, "-initrd", initrd,
                        "-append", "console=ttyS0 panic=-1 quiet",
                        "-nographic", "-no-reboot", "-nodefaults", "-serial", "stdio"],
                       name="qemu")
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
