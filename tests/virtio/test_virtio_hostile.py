#!/usr/bin/env python3
"""virtio_user against a hostile vhost-user backend written here, which maps
vfwd's memory from SET_MEM_TABLE and plays the device on the split rings
(or, for the packed_ cases, offers RING_PACKED and plays it on packed rings).

    test_virtio_hostile.py CASE     CASE: bad_id | idx_jump | bad_len | bad_reply | xstats
                                          | packed_bad_id | packed_never_posted
                                          | packed_bad_flags | packed_bad_len

Every case first moves one good packet each way (vfwd in io mode forwards
what it receives), then misbehaves:
  bad_id    a used entry naming a buffer never posted (hardening.md D1)
  idx_jump  used->idx advanced past what is outstanding (D3)
  bad_len   a used length larger than the buffer (D2): dropped and counted,
            the ring keeps working (a good packet follows)
  bad_reply GET_VRING_BASE answered for the wrong ring at stop (D4)
  packed_bad_id        a used descriptor with an id >= the ring size
  packed_never_posted  a used id that is not outstanding (already returned)
  packed_bad_flags     USED without AVAIL in the first lap (wrap counter 1)
  packed_bad_len       as bad_len, on a packed ring
vfwd must take the link down (except bad_len), keep running and exit 0."""
import mmap
import os
import socket
import struct
import sys
import threading

from vio_peers import Vfwd, check, fail, sock_path, wait_for

GET_FEATURES, SET_FEATURES, SET_OWNER, SET_MEM_TABLE = 1, 2, 3, 5
SET_VRING_NUM, SET_VRING_ADDR, SET_VRING_BASE, GET_VRING_BASE = 8, 9, 10, 11
SET_VRING_KICK, SET_VRING_CALL = 12, 13
GET_PROTOCOL_FEATURES, SET_PROTOCOL_FEATURES, SET_VRING_ENABLE = 15, 16, 18
SET_STATUS = 39
NEED_REPLY = 0x8
FEATURES = (1 << 32) | (1 << 30) | (1 << 35) | (1 << 15)   # V1, bit 30, IN_ORDER, MRG
PROTOCOL = (1 << 3) | (1 << 16)                              # REPLY_ACK, STATUS
HDR = 12
# The header of a forwarded packet: the 10 virtio_net_hdr bytes zero (no
# offloads); num_buffers, unused on transmit, is left as this back-end wrote
# it on receive (1), as DPDK's virtio PMD leaves it: vfwd does not dirty the
# header's cache line of every forwarded packet (issue 12).
TX_HDR = bytes(10) + struct.pack("<H", 1)


class Backend:
    """Listens on path (vfwd with server=0 connects), or with connect=True
    connects to vfwd's server=1 socket."""

    def __init__(self, path, case, connect=False):
        self.case = case
        if connect:
            self.c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.c.connect(path)
        else:
            self.ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.ls.bind(path)
            self.ls.listen(1)
        self.regions = []       # (uva, size, mmap)
        self.keep_fds = case == "truncate"
        self.mem_fds = []       # the memory table's fds, kept for case "truncate"
        self.rings = {}         # index -> dict(num, desc, avail, used)
        self.running = threading.Event()
        self.closed = threading.Event()
        self.t = threading.Thread(target=self.serve, args=(not connect,), daemon=True)
        self.t.start()

    # -- messages --
    def reply(self, req, payload):
        self.c.sendall(struct.pack("<III", req, 0x5, len(payload)) + payload)

    def hang_up(self):
        """Closes the connection (the serving thread ends) and unmaps."""
        self.c.shutdown(socket.SHUT_RDWR)
        self.t.join(timeout=30)
        self.c.close()
        for _, _, m in self.regions:
            m.close()

    def serve(self, accept):
        if accept:
            self.c, _ = self.ls.accept()
            self.ls.close()     # vfwd's reconnect attempts are refused
        try:
            while True:
                msg, anc, _, _ = self.c.recvmsg(12, socket.CMSG_SPACE(8 * 4))
                if len(msg) < 12:
                    break
                fds = []
                for lvl, typ, data in anc:
                    if lvl == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
                        fds += list(struct.unpack(f"<{len(data) // 4}i", data))
                req, flags, size = struct.unpack("<III", msg)
                p = b""
                while len(p) < size:
                    p += self.c.recv(size - len(p))
                self.handle(req, flags, p, fds)
        except OSError:
            pass
        self.closed.set()

    def handle(self, req, flags, p, fds):
        if req == GET_FEATURES:
            packed = (1 << 34) if self.case.startswith("packed_") else 0
            return self.reply(req, struct.pack("<Q", FEATURES | packed))
        if req == GET_PROTOCOL_FEATURES:
            return self.reply(req, struct.pack("<Q", PROTOCOL))
        if req == GET_VRING_BASE:
            idx = struct.unpack("<I", p[:4])[0]
            if self.case == "bad_reply":
                idx += 1
            return self.reply(req, struct.pack("<II", idx, 0))
        if req == SET_MEM_TABLE:
            n = struct.unpack("<I", p[:4])[0]
            check(n == len(fds) and n >= 1, f"mem table: {n} regions, {len(fds)} fds")
            for i in range(n):
                gpa, size, uva, off = struct.unpack("<QQQQ", p[8 + 32 * i: 8 + 32 * (i + 1)])
                check(gpa == uva, "gpa != uva")
                m = mmap.mmap(fds[i], off + size, mmap.MAP_SHARED,
                              mmap.PROT_READ | mmap.PROT_WRITE, offset=0)
                self.regions.append((uva - off, off + size, m))
                if self.keep_fds:
                    self.mem_fds.append(fds[i])
                else:
                    os.close(fds[i])
            fds = []
        elif req == SET_VRING_NUM:
            i, num = struct.unpack("<II", p)
            self.rings.setdefault(i, {})["num"] = num
        elif req == SET_VRING_ADDR:
            i, _, desc, used, avail, _ = struct.unpack("<IIQQQQ", p)
            self.rings.setdefault(i, {}).update(desc=desc, used=used, avail=avail)
        elif req == SET_STATUS:
            if struct.unpack("<Q", p)[0] & 4:
                self.running.set()
        for fd in fds:
            os.close(fd)
        if flags & NEED_REPLY:
            self.reply(req, struct.pack("<Q", 0))

    # -- memory, by our peer's virtual address --
    def mem(self, addr, n):
        for base, size, m in self.regions:
            if base <= addr and addr + n <= base + size:
                return m, addr - base
        fail(f"address {addr:#x}+{n} outside the memory table")

    def rd(self, addr, fmt):
        m, o = self.mem(addr, struct.calcsize(fmt))
        return struct.unpack_from(fmt, m, o)

    def wr(self, addr, fmt, *v):
        # Not struct.pack_into: it zeroes the target before packing, and
        # vfwd would see that transient 0 in a flags or index word.
        b = struct.pack(fmt, *v)
        m, o = self.mem(addr, len(b))
        m[o:o + len(b)] = b

    def wr_bytes(self, addr, b):
        m, o = self.mem(addr, len(b))
        m[o:o + len(b)] = b

    def rd_bytes(self, addr, n):
        m, o = self.mem(addr, n)
        return m[o:o + n]

    # -- split ring, device side --
    def avail(self, i, k):
        r = self.rings[i]
        idx = self.rd(r["avail"] + 2, "<H")[0]
        if (idx - k) & 0xffff == 0:
            return None
        return self.rd(r["avail"] + 4 + 2 * (k % r["num"]), "<H")[0]

    def desc(self, i, d):
        return self.rd(self.rings[i]["desc"] + 16 * d, "<QIHH")

    def used(self, i, k, id_, ln, publish):
        r = self.rings[i]
        self.wr(r["used"] + 4 + 8 * (k % r["num"]), "<II", id_, ln)
        self.wr(r["used"] + 2, "<H", publish & 0xffff)

    # -- packed ring, device side (first lap only: wrap counter 1; every
    # buffer one descriptor, used in order, so buffer k is slot k) --
    def pdesc(self, i, k):
        # the flags first, then the rest, as a device must (one read could
        # see the fields from before the flags' release)
        d = self.rings[i]["desc"] + 16 * k
        fl = self.rd(d + 14, "<H")[0]
        return self.rd(d, "<QIH") + (fl,)

    def pused(self, i, k, id_, ln, flags=(1 << 7) | (1 << 15)):
        d = self.rings[i]["desc"] + 16 * k
        self.wr(d + 8, "<IH", ln, id_)
        self.wr(d + 14, "<H", flags)

    def rx_packet(self, k, frame, claim=None):
        """Delivers frame into rx buffer number k (vring 0)."""
        if self.case.startswith("packed_"):
            addr, ln, id_, flags = self.pdesc(0, k)
            check(flags & (1 << 7) and not flags & (1 << 15) and flags & 2 and
                  ln >= HDR + len(frame), f"rx slot {k}: len {ln} flags {flags:#x}")
            self.wr_bytes(addr, struct.pack("<BBHHHHH", 0, 0, 0, 0, 0, 0, 1) + frame)
            self.pused(0, k, id_, claim if claim is not None else HDR + len(frame))
            return ln
        head = self.avail(0, k)
        check(head is not None, f"no rx buffer {k} posted")
        addr, ln, flags, _ = self.desc(0, head)
        check(flags & 2 and ln >= HDR + len(frame), f"rx desc {head}: len {ln} flags {flags}")
        self.wr_bytes(addr, struct.pack("<BBHHHHH", 0, 0, 0, 0, 0, 0, 1) + frame)
        self.used(0, k, head, claim if claim is not None else HDR + len(frame), k + 1)
        return ln

    def tx_packet(self, k):
        """Reads vfwd's k-th transmitted packet (vring 1), completes it."""
        if self.case.startswith("packed_"):
            addr, ln, id_, flags = self.pdesc(1, k)
            if not flags & (1 << 7) or flags & (1 << 15):
                return None
            check(not flags & 1, f"tx slot {k}: a chain ({flags:#x})")
            data = self.rd_bytes(addr, ln)
            self.pused(1, k, id_, 0)
            return data
        head = self.avail(1, k)
        if head is None:
            return None
        data, d = b"", head
        for _ in range(64):
            addr, ln, flags, nxt = self.desc(1, d)
            data += self.rd_bytes(addr, ln)
            if not flags & 1:
                break
            d = nxt
        self.used(1, k, head, 0, k + 1)
        return data


def frame(seed):
    return bytes([0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x08, 0x00]) + \
        bytes((seed + i) & 0xff for i in range(50))


def xstats_case():
    """The same bad used id, with vfwd's shell asked for the counters:
    used_bad_id, ring_broken and link_down_events count it; quit exits 0."""
    import subprocess
    import re
    import vftest
    from vio_peers import _Reader
    sock = sock_path("vio-hostile-xstats.sock")
    be = Backend(sock, "bad_id")
    vf = subprocess.Popen([vftest.binary("vfwd"), "-l", "0-1", "-i", "-a",
                           "--port", f"virtio_user,path={sock}"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    vftest._procs.append(vf)
    out, err = _Reader(vf.stdout), _Reader(vf.stderr)
    wait_for(be.running.is_set, timeout=60, what="DRIVER_OK from vfwd")

    def xstat(name):
        mark = out.count()
        vf.stdin.write("show port xstats 0\n")
        vf.stdin.flush()
        vals = []

        def got():
            m = re.search(rf"{name}\s+(\d+)", out.text(mark))
            if m:
                vals.append(int(m.group(1)))
            return bool(m)
        wait_for(got, timeout=30, what=f"xstat {name}")
        return vals[0]

    check(xstat("backend_connects") == 1, "backend_connects != 1")
    check(xstat("link_down_events") == 0, "link down before anything happened")
    be.rx_packet(0, frame(1))
    wait_for(lambda: be.tx_packet(0) is not None, what="packet forwarded")
    be.used(0, 1, 999, HDR + 60, 2)
    wait_for(lambda: xstat("link_down_events") == 1, what="link_down_events 1")
    check(xstat("used_bad_id") == 1, "used_bad_id != 1")
    check(xstat("ring_broken") == 1, "ring_broken != 1")
    check(xstat("used_idx_jump") == 0, "used_idx_jump counted")
    vf.stdin.write("quit\n")
    vf.stdin.flush()
    check(vf.wait(timeout=30) == 0, f"vfwd exit {vf.returncode}: {err.text()[-2000:]}")
    print("ok: hostile backend counted in xstats")


def main(case):
    if case == "xstats":
        return xstats_case()
    sock = sock_path(f"vio-hostile-{case}.sock")
    be = Backend(sock, case)
    vf = Vfwd([f"virtio_user,path={sock}" + (",packed_vq=1" if case.startswith("packed_") else "")])
    wait_for(be.running.is_set, timeout=60, what="DRIVER_OK from vfwd")
    vf.wait_link(True)

    # one good packet each way
    f1 = frame(1)
    be.rx_packet(0, f1)
    vf.wait_port(lambda p: p["ipackets"] == 1 and p["opackets"] == 1, "first packet forwarded")
    got = []
    wait_for(lambda: got.append(be.tx_packet(0)) or got[-1] is not None, what="tx packet")
    check(got[-1] == TX_HDR + f1, f"forwarded bytes differ: {got[-1]!r}")

    if case == "packed_bad_id":
        be.pused(0, 1, 999, HDR + 60)
    elif case == "packed_never_posted":
        be.pused(0, 1, 0, HDR + 60)                    # buffer 0 came back already
    elif case == "packed_bad_flags":
        be.pused(0, 1, 1, HDR + 60, flags=(1 << 15) | 2)   # USED without AVAIL in lap 1
    elif case == "bad_id":
        be.used(0, 1, 999, HDR + 60, 2)
    elif case == "idx_jump":
        be.used(0, 1, 0, HDR + 60, 1 + 1000)
    elif case in ("bad_len", "packed_bad_len"):
        buflen = be.pdesc(0, 1)[1] if case == "packed_bad_len" else be.desc(0, be.avail(0, 1))[1]
        be.rx_packet(1, frame(2), claim=buflen + 100)
        vf.wait_port(lambda p: p["ierrors"] == 1, "oversized used len counted")
        be.rx_packet(2, frame(3))
        vf.wait_port(lambda p: p["ipackets"] == 2 and p["opackets"] == 2, "ring still working")
        wait_for(lambda: got.append(be.tx_packet(1)) or got[-1] is not None, what="tx packet 2")
        check(got[-1] == TX_HDR + frame(3), "second forwarded packet differs")
    if case in ("bad_id", "idx_jump", "packed_bad_id", "packed_never_posted", "packed_bad_flags"):
        vf.wait_link(False)
        wait_for(be.closed.is_set, what="vfwd to drop the connection")
        check("broke vring 0" in vf.err.text(), "no log line naming the broken ring:\n"
              + vf.err.text()[-2000:])
    st = vf.stop()
    p = st["ports"][0]
    if case == "bad_reply":
        check("GET_VRING_BASE: reply for ring" in vf.err.text(),
              "bad GET_VRING_BASE reply not reported:\n" + vf.err.text()[-2000:])
    if case in ("bad_len", "packed_bad_len"):
        check(p["ipackets"] == 2 and p["ierrors"] == 1, f"counters {p}")
    else:
        check(p["ipackets"] == 1, f"counters {p}")
    print(f"ok: hostile backend {case}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bad_id")
