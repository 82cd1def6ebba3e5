#!/usr/bin/env python3
"""vfwd's virtio_user against DPDK's net_vhost (dpdk-testpmd is the backend).

    test_virtio_testpmd.py CASE      CASE: default | in_order0 | mrg0 | queues2 | server | vanish
                                     or packed_ + any of the first five (packed_vq=1)

vfwd forwards in io mode (rx queue i -> tx queue i of the same port) and, in
client mode, first sends one burst of its own (--tx-first).  testpmd sends
`start tx_first N` bursts and receives in rxonly mode.  Every packet is
counted on both sides: testpmd's port counters and vfwd's final JSON must
agree exactly (packets and bytes).  Ring sizes exceed what is in flight, so
nothing can be dropped whatever the speed of either side.
"""
import os
import shutil
import sys

from vio_peers import Testpmd, Vfwd, check, sock_path

F_MRG = 1 << 15
F_MQ = 1 << 22
F_IN_ORDER = 1 << 35
F_V1 = 1 << 32
F_PACKED = 1 << 34
BURST = 32
FRAME = 64          # testpmd's default txonly frame


def one_round(tp, vf, bursts_per_stream, nstreams, tp_before, vf_in_before):
    """testpmd sends bursts, vfwd forwards them back; checks testpmd's
    cumulative counters exactly.  Returns testpmd's (rx, rx_bytes, tx, tx_bytes)."""
    n = bursts_per_stream * nstreams * BURST
    tp.cmd("stop")
    tp.cmd(f"start tx_first {bursts_per_stream}")
    rx = tp.wait_rx(tp_before[0] + n)
    check(rx[0] == tp_before[0] + n, f"testpmd received {rx[0]}, expected {tp_before[0] + n}")
    check(rx[2] == tp_before[2] + n, f"testpmd sent {rx[2]}, expected {tp_before[2] + n}")
    check(rx[1] - tp_before[1] == rx[3] - tp_before[3],
          f"bytes back {rx[1] - tp_before[1]} != bytes sent {rx[3] - tp_before[3]}")
    vf.wait_port(lambda p: p["ipackets"] >= vf_in_before + n, "vfwd counters")
    return rx


def vanish():
    """Traffic loops between the two (both io); the backend is SIGKILLed
    mid-burst: vfwd's link goes down and it keeps running.  A new backend on
    the same socket is found again (server=0 retries with backoff) and
    carries an exact count both ways; vfwd exits cleanly."""
    sock = sock_path("vio-vanish.sock")
    vdev = f"net_vhost0,iface={sock}"
    tp = Testpmd(vdev)
    vf = Vfwd([f"virtio_user,path={sock}"])
    vf.wait_link(True)
    tp.cmd("set fwd io")
    tp.cmd("start tx_first 4")
    vf.wait_port(lambda p: p["ipackets"] > 20000, "packets looping")
    tp.p.kill()
    tp.p.wait()
    vf.wait_link(False)
    p0 = vf.port()
    check("backend lost" in vf.err.text(), "no log line about the lost backend")

    os.unlink(sock)         # left behind by the killed server
    tp = Testpmd(vdev)
    vf.wait_link(True)
    check(vf.port()["ipackets"] == p0["ipackets"], "packets received while down")
    tp.cmd("set fwd rxonly")
    tp.cmd("start")
    one_round(tp, vf, 2, 1, (0, 0, 0, 0), p0["ipackets"])
    tp.quit()
    st = vf.stop()
    p = st["ports"][0]
    n = 2 * BURST
    check(p["ipackets"] == p0["ipackets"] + n, f"ipackets {p['ipackets']} != {p0['ipackets']} + {n}")
    check(p["opackets"] == p0["opackets"] + n, f"opackets {p['opackets']} != {p0['opackets']} + {n}")
    check(p["ibytes"] == p0["ibytes"] + n * FRAME, "ibytes after reconnect")
    check("reconnected" in vf.err.text(), "no log line about the reconnection")
    shutil.rmtree(os.path.dirname(sock), ignore_errors=True)
    print(f"ok: vanish: {p0['ipackets']} packets before the backend died, {n} after it came back")


def case(name):
    if name == "vanish":
        return vanish()
    sock = sock_path(f"vio-{name}.sock")
    packed = name.startswith("packed_")
    name = name[len("packed_"):] if packed else name
    server = name == "server"
    qp = 2 if name == "queues2" else 1
    devargs = f"virtio_user,path={sock}"
    devargs += {"in_order0": ",in_order=0", "mrg0": ",mrg_rxbuf=0", "queues2": ",queues=2",
                "server": ",server=1", "default": ""}[name]
    if packed:
        devargs += ",packed_vq=1"
    vdev = f"net_vhost0,iface={sock}" + (",client=1" if server else "") + \
        (",queues=2" if qp == 2 else "")
    pmd = ["--rxq=2", "--txq=2"] if qp == 2 else []
    vf_args = ["--rxq", str(qp), "--txq", str(qp)]
    own = 0 if server else BURST * qp
    if not server:
        vf_args.append("--tx-first")

    if server:
        vf = Vfwd([devargs], vf_args)
        # vfwd listens without blocking; the link stays down until a backend
        vf.wait_port(lambda p: p["link"] == "down", "vfwd up, link down")
        tp = Testpmd(vdev, pmd)
    else:
        tp = Testpmd(vdev, pmd)
        vf = Vfwd([devargs], vf_args)
    vf.wait_link(True)
    tp.cmd("set fwd rxonly")
    tp.cmd("start")
    if own:
        # vfwd's own burst arrives once testpmd polls
        tp.wait_rx(own)

    feats = vf.features()
    check(feats & F_V1, "VERSION_1 not negotiated")
    check(bool(feats & F_IN_ORDER) == (name != "in_order0"), f"IN_ORDER bit wrong: {feats:#x}")
    check(bool(feats & F_MRG) == (name != "mrg0"), f"MRG_RXBUF bit wrong: {feats:#x}")
    check(bool(feats & F_MQ) == (qp == 2), f"MQ bit wrong: {feats:#x}")
    check(bool(feats & F_PACKED) == packed, f"RING_PACKED bit wrong: {feats:#x}")

    # round 1: 4 bursts per testpmd stream of 64-byte frames
    n1 = 4 * qp * BURST
    rx = one_round(tp, vf, 4, qp, (own, own * FRAME, 0, 0), 0)
    check(rx[3] == n1 * FRAME, f"testpmd tx bytes {rx[3]} != {n1 * FRAME}")
    total_fwd = n1
    bytes_fwd = n1 * FRAME
    if name == "default":
        # round 2: 3000-byte frames in two 1500-byte segments: mergeable rx
        # on our side (2 buffers per packet), multi-descriptor tx back
        tp.cmd("stop")
        tp.cmd("set txpkts 1500,1500")
        rx = one_round(tp, vf, 1, qp, rx, total_fwd)
        total_fwd += qp * BURST
        bytes_fwd += qp * BURST * 3000

    if server:
        # the backend leaves: link down (vfwd keeps running) ...
        tp.quit()
        vf.wait_link(False)
        # ... and a new one is accepted and resumes traffic
        tp = Testpmd(vdev, pmd)
        vf.wait_link(True)
        tp.cmd("set fwd rxonly")
        tp.cmd("start")
        rx = one_round(tp, vf, 2, qp, (0, 0, 0, 0), total_fwd)
        total_fwd += 2 * qp * BURST
        bytes_fwd += 2 * qp * BURST * FRAME
        check(rx[0] == 2 * qp * BURST and rx[2] == 2 * qp * BURST,
              f"second backend counters {rx}")
    else:
        check(rx[0] == total_fwd + own, f"testpmd rx {rx[0]} != {total_fwd + own}")
        check(rx[1] == bytes_fwd + own * FRAME, f"testpmd rx bytes {rx[1]} != {bytes_fwd + own * FRAME}")
        check(rx[2] == total_fwd, f"testpmd tx {rx[2]} != {total_fwd}")
        check(rx[3] == bytes_fwd, f"testpmd tx bytes {rx[3]} != {bytes_fwd}")

    tp.quit()
    st = vf.stop()
    p = st["ports"][0]
    check(p["ipackets"] == total_fwd, f"vfwd ipackets {p['ipackets']} != {total_fwd}")
    check(p["ibytes"] == bytes_fwd, f"vfwd ibytes {p['ibytes']} != {bytes_fwd}")
    check(p["opackets"] == total_fwd + own, f"vfwd opackets {p['opackets']} != {total_fwd + own}")
    check(p["obytes"] == bytes_fwd + own * FRAME, f"vfwd obytes {p['obytes']} != {bytes_fwd + own * FRAME}")
    check(p["ierrors"] == 0 and p["oerrors"] == 0, f"vfwd errors {p}")
    check(st["fwd"]["dropped"] == 0, f"vfwd dropped {st['fwd']}")
    if qp == 2:
        per_q = [s["rx"] for s in st["streams"]]
        check(len(per_q) == 2 and all(x == total_fwd // 2 for x in per_q),
              f"traffic not spread over both queue pairs: {per_q}")
    if server:
        check(not os.path.exists(sock), "server socket left behind")
    shutil.rmtree(os.path.dirname(sock), ignore_errors=True)
    print(f"ok: {'packed_' if packed else ''}{name}: {total_fwd} packets each way checked")


if __name__ == "__main__":
    case(sys.argv[1] if len(sys.argv) > 1 else "default")
