"""A QEMU guest for the vhost-user tests, written once.

QEMU 7.2 (Debian 12) under TCG with a vhost-user netdev, guest RAM shared
through a memfd, the Debian cloud kernel and a busybox initramfs built
here.  The virtio-net-pci device has vectors=0: QEMU 7.2 crashes in
vhost_net_start under TCG with MSI-X (protocols.md §5 pitfall 31).
Everything exits 77 (skip) when QEMU, busybox or the kernel are missing
(packages qemu-system-x86, busybox-static, linux-image-cloud-amd64)."""
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

# /init's first lines: busybox, /proc, /sys, the virtio-net modules, eth0 at
# %(ip)s; a test appends what the guest then does.
HEAD = """#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
for m in %(mods)s; do insmod /lib/$m || echo "insmod $m failed"; done
ip link set lo up
ip link set eth0 up
ip addr add %(ip)s/24 dev eth0
"""

# A guest at 10.0.0.2 that pings 10.0.0.1 every %(interval)s s until it is
# stopped (busybox prints "bytes from 10.0.0.1: seq=N" for each reply).
PING_FOREVER = "echo GUEST_UP\nping -i %(interval)s 10.0.0.1\npoweroff -f\n"


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


def kernel_and_modules():
    """(kernel path, its module directory); exits 77 when absent."""
    kernels = sorted(glob.glob(os.path.join(ROOT, "boot", "vmlinuz-*-cloud-amd64")))
    if not QEMU or not os.path.exists(BUSYBOX) or not kernels:
        skip("needs qemu-system-x86_64, busybox-static and linux-image-cloud-amd64")
    kernel = kernels[-1]
    kver = re.sub(r"^vmlinuz-", "", os.path.basename(kernel))
    moddir = os.path.join(ROOT, "lib", "modules", kver, "kernel")
    if not all(os.path.exists(os.path.join(moddir, m)) for m in MODULES):
        skip("modules of %s not found under %s" % (kver, moddir))
    return kernel, moddir


def module_names():
    return " ".join(os.path.basename(m) for m in MODULES)


def initrd(path, moddir, init_text):
    """Writes the initramfs: busybox, the virtio-net modules, /init."""
    ents = [("bin", stat.S_IFDIR | 0o755, None, (0, 0)),
            ("dev", stat.S_IFDIR | 0o755, None, (0, 0)),
            ("dev/console", stat.S_IFCHR | 0o600, None, (5, 1)),
            ("proc", stat.S_IFDIR | 0o755, None, (0, 0)),
            ("sys", stat.S_IFDIR | 0o755, None, (0, 0)),
            ("tmp", stat.S_IFDIR | 0o1777, None, (0, 0)),
            ("lib", stat.S_IFDIR | 0o755, None, (0, 0)),
            ("init", stat.S_IFREG | 0o755, init_text.encode(), (0, 0)),
            ("bin/busybox", stat.S_IFREG | 0o755, open(BUSYBOX, "rb").read(), (0, 0))]
    for m in MODULES:
        ents.append(("lib/" + os.path.basename(m), stat.S_IFREG | 0o644,
                     open(os.path.join(moddir, m), "rb").read(), (0, 0)))
    cpio_newc(ents, path)
    return path


def ping_initrd(path, moddir, interval):
    """The initramfs of a guest that pings 10.0.0.1 forever."""
    text = HEAD % {"mods": module_names(), "ip": "10.0.0.2"} + \
        PING_FOREVER % {"interval": interval}
    return initrd(path, moddir, text)


def qemu(kernel, rd, sock, name, mac="52:54:00:12:34:56", props="", server=False, extra=()):
    """A guest on the vhost-user socket sock.  server: QEMU listens there
    (the back-end connects, and may reconnect); props: more virtio-net-pci
    properties ("packed=on", ...); extra: more QEMU arguments."""
    chardev = "socket,id=c0,path=" + sock + (",server=on,wait=off" if server else "")
    return vt.Proc([QEMU, "-machine", "q35,memory-backend=m,accel=tcg", "-m", "256M",
                    "-object", "memory-backend-memfd,id=m,size=256M,share=on",
                    "-chardev", chardev,
                    "-netdev", "vhost-user,id=n0,chardev=c0",
                    "-device", "virtio-net-pci,netdev=n0,vectors=0,mac=" + mac +
                    ("," + props if props else ""),
                    "-kernel", kernel, "-initrd", rd,
                    "-append", "console=ttyS0 panic=-1 quiet",
                    "-nographic", "-no-reboot", "-nodefaults", "-serial", "stdio"] + list(extra),
                   name=name)


def seqs(text):
    """The sequence numbers of the echo replies a pinging guest printed."""
    return {int(m) for m in re.findall(r"bytes from 10\.0\.0\.1: seq=(\d+)", text)}
