"""The hugepage runtime: with a hugetlbfs mounted and free 2 MB pages, vhostd
and vfwd run on hugepages (show config runtime says so), share them with
each other by fd over vhost-user (virtio_user <-> vhostd), and pass an exact
number of packets each way.  When they exit, every page is free again (the
memory is in-memory memfd: nothing is left in hugetlbfs).

Needs root to reserve pages and mount hugetlbfs; it restores both.  Without
root, or when the kernel gives no pages, it reports a skip (exit 77)."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from vftest import Sh, binary, check, tmpdir, wait  # noqa: E402

NR = "/proc/sys/vm/nr_hugepages"
PAGES = 256  # 512 MB: both processes' pools and rings
N = 1000


def meminfo(key):
    with open("/proc/meminfo") as f:
        for ln in f:
            if ln.startswith(key + ":"):
                return int(ln.split()[1])
    return 0


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def main():
    if os.getuid() != 0:
        skip("not root: cannot reserve hugepages")
    with open(NR) as f:
        old_nr = int(f.read())
    mnt = tmpdir()
    mounted = False
    try:
        try:
            with open(NR, "w") as f:
                f.write(str(old_nr + PAGES))
        except OSError as e:
            skip(f"cannot reserve hugepages: {e}")
        if meminfo("HugePages_Free") < PAGES:
            skip(f"the kernel gave {meminfo('HugePages_Free')} free pages, {PAGES} needed")
        if subprocess.run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M", "nodev", mnt]).returncode:
            skip("cannot mount hugetlbfs")
        mounted = True
        free0 = meminfo("HugePages_Free")
        exchange(free0)
        wait(lambda: meminfo("HugePages_Free") == free0, "every hugepage free after exit")
        check(os.listdir(mnt) == [], f"files left in hugetlbfs: {os.listdir(mnt)}")
        print("ok")
    finally:
        if mounted:
            subprocess.run(["umount", mnt])
        with open(NR, "w") as f:
            f.write(str(old_nr))


def exchange(free0):
    sock = os.path.join(tmpdir(), "vh.sock")
    vh = Sh([binary("vhostd"), "-l", "0-1", "--iface", sock, "--count", str(N)])
    check(vh.json("show config runtime")["memory"] == "hugepages", "vhostd not on hugepages")
    vu = Sh([binary("vfwd"), "-l", "0-1", "--port", f"virtio_user,path={sock}",
             "--count", str(N)])
    check(vu.json("show config runtime")["memory"] == "hugepages", "vfwd not on hugepages")
    check(meminfo("HugePages_Free") < free0, "no hugepage in use while both run")
    wait(lambda: vh.link_up() and vu.link_up(), "links up")
    for tx, rx, name in ((vu, vh, "vfwd -> vhostd"), (vh, vu, "vhostd -> vfwd")):
        rx.cmd("set fwd rxonly")
        rx.cmd("start")
        tx.cmd("set fwd txonly")
        tx.cmd("start")
        wait(lambda: rx.port()["ipackets"] >= N, f"{name}: {N} packets")
        tx.stop_fwd()
        rx.stop_fwd()
        got, sent = rx.port(), tx.port()
        check(sent["opackets"] == N and got["ipackets"] == N and got["ibytes"] == N * 64,
              f"{name}: sent {sent['opackets']}, got {got['ipackets']} pkts {got['ibytes']} B")
        rx.cmd("clear port stats all")
        tx.cmd("clear port stats all")
    vu.quit()
    vh.quit()


main()
