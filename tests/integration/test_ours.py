"""Ours <-> ours: vfwd's virtio_user port against vhostd, in the matrix of the
DPDK interop tests (default, in_order=0, mrg_rxbuf=0, queues=2, and
virtio_user server=1 with vhostd --client).  Both sides are driven through
their shells on a pipe; a known number of packets goes each way and arrives
exactly, bytes checked.  `test_ours.py packed` runs the same matrix with
packed_vq=1 (packed rings negotiated, checked), plus the largest frames both
tools generate.  (Chains and mergeable rx on packed rings are covered
against testpmd: tests/virtio/test_virtio_testpmd.py.)"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from vftest import Sh, binary, check, tmpdir, wait  # noqa: E402

vfwd, vhostd = binary("vfwd"), binary("vhostd")
N = 1000


def case(name, vu_extra, vh_extra, q=1, size1=100, size2=1400):
    d = tmpdir()
    sock = os.path.join(d, "vh.sock")
    qargs = ["--rxq", str(q), "--txq", str(q)] if q > 1 else []
    vh_first = "--client" not in vh_extra
    vh_argv = [vhostd, "-l", "0-1", "--iface", sock, "--count", str(N), "--txpkts", str(size2)] + vh_extra
    vu_argv = [vfwd, "-l", "0-1", "--port", f"virtio_user,path={sock}{vu_extra}",
               "--count", str(N), "--txpkts", str(size1)] + qargs
    if vh_first:
        vh = Sh(vh_argv)
        vh.json("show config rxtx")           # up and listening
        vu = Sh(vu_argv)
    else:
        vu = Sh(vu_argv)
        vu.json("show config rxtx")
        vh = Sh(vh_argv)
    wait(lambda: vh.link_up() and vu.link_up(), f"{name}: links up")
    feats = int(vu.json("show port info 0")["ports"][0]["driver_info"]["features"], 16)
    packed = "packed_vq=1" in vu_extra
    check(bool(feats & (1 << 34)) == packed, f"{name}: RING_PACKED bit {feats:#x}")
    # virtio_user -> vhostd
    vh.cmd("set fwd rxonly")
    vh.cmd("start")
    vu.cmd("set fwd txonly")
    vu.cmd("start")
    wait(lambda: vh.port()["ipackets"] >= N * q, f"{name}: vhostd got {N * q}")
    vu.stop_fwd()
    time.sleep(0.2)
    got, sent = vh.port(), vu.port()
    check(sent["opackets"] == N * q and got["ipackets"] == N * q and got["ibytes"] == N * q * size1,
          f"{name}: vfwd sent {sent['opackets']}, vhostd got {got['ipackets']} pkts {got['ibytes']} B")
    vh.stop_fwd()
    # vhostd -> virtio_user
    vu.cmd("clear port stats all")
    vu.cmd("set fwd rxonly")
    vu.cmd("start")
    vh.cmd("clear port stats all")
    vh.cmd("set fwd txonly")
    vh.cmd("start")
    wait(lambda: vu.port()["ipackets"] >= N * q, f"{name}: vfwd got {N * q}")
    vh.stop_fwd()
    time.sleep(0.2)
    got, sent = vu.port(), vh.port()
    check(sent["opackets"] == N * q and got["ipackets"] == N * q and got["ibytes"] == N * q * size2,
          f"{name}: vhostd sent {sent['opackets']}, vfwd got {got['ipackets']} pkts {got['ibytes']} B")
    vu.stop_fwd()
    vu.quit()
    vh.quit()
    print(f"{name}: ok")


if len(sys.argv) > 1 and sys.argv[1] == "packed":
    P = ",packed_vq=1"
    case("packed", P, [])
    case("packed_in_order0", P + ",in_order=0", [])
    case("packed_mrg_rxbuf0", P + ",mrg_rxbuf=0", [])
    case("packed_queues2", P + ",queues=2", ["--queues", "2"], q=2)
    case("packed_server", P + ",server=1", ["--client"])
    case("packed_max", P, [], size1=2048, size2=2048)
else:
    case("default", "", [])
    case("in_order0", ",in_order=0", [])
    case("mrg_rxbuf0", ",mrg_rxbuf=0", [])
    case("queues2", ",queues=2", ["--queues", "2"], q=2)
    case("server", ",server=1", ["--client"])
print("ok")
