#!/usr/bin/env python3
"""A vhost-user back-end that scribbles over all the memory virtio_user
hands it (issue 31): after a correct negotiation and traffic both ways, it
overwrites every byte of every region of the memory table -- data buffers,
descriptor tables, avail and used rings, tx headers -- again and again for
a while per pattern (random bytes, 0xff, small integers, values that look
like pointers into the region, zeroes) while its device loop keeps
delivering and completing packets, then hangs up.  vfwd must stay alive
(SIGSEGV, SIGABRT, or an ASan report ends it with a non-zero status), take
the link down, reconnect to the next back-end and forward again byte for
byte, and exit 0 at the end.  What makes it hold: the region holds only
data rooms, rings and tx headers; mbuf headers, the mempool and every
queue's state are private (lib/core/vf_mem.h, man vf-ports(7) "What a
peer can reach").

    test_virtio_scribble.py [split|packed|measure] [--long]

The back-end is test_virtio_hostile's Python device; vfwd runs io mode and
sends back what it receives.  measure: nullgen --fwd measure on a split
ring instead, which builds its frames in pool buffers the back-end reads
and parses received ones where the back-end wrote them
(drivers/virtio/virtio_inplace.c), the device reflecting each frame; after
every reconnect 200 frames go round intact and count as received.  Short
form: 0.6 s per pattern; --long: 2 s."""
import os
import random
import socket
import struct
import sys
import threading
import json
import time

from test_virtio_hostile import HDR, TX_HDR, Backend, frame
from vio_peers import Vfwd, check, sock_path, vftest, wait_for

AVAIL, USED, WRITE = 1 << 7, 1 << 15, 2


class Garbage(Exception):
    """What the device read back makes no sense (the memory is scribbled)."""


def ensure(cond, msg):
    if not cond:
        raise Garbage(msg)


class Device(Backend):
    """test_virtio_hostile's back-end, with a device loop for any lap of a
    split or packed ring (in order, one descriptor a buffer).  Nonsense
    read back (Garbage) ends the traffic loop quietly."""

    def __init__(self, path, case):
        super().__init__(path, case)
        self.packed = case.startswith("packed_")
        self.rx_k = self.tx_k = 0

    def mem(self, addr, n):
        for base, size, m in self.regions:
            if base <= addr and addr + n <= base + size:
                return m, addr - base
        raise Garbage(f"address {addr:#x}+{n} outside the memory table")

    def hang_up(self):
        try:
            self.c.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass        # vfwd hung up first
        self.t.join(timeout=30)
        self.c.close()
        for _, _, m in self.regions:
            m.close()

    def _pslot(self, i, k):
        n = self.rings[i]["num"]
        return k % n, 1 if (k // n) % 2 == 0 else 0

    def p_avail(self, i, k):
        s, w = self._pslot(i, k)
        # the flags first, then the rest, as a device must: read in one go,
        # the address could predate the flags' release (a torn read)
        d = self.rings[i]["desc"] + 16 * s
        fl = self.rd(d + 14, "<H")[0]
        if bool(fl & AVAIL) != bool(w) or bool(fl & USED) == bool(w):
            return None
        addr, ln, id_ = self.rd(d, "<QIH")
        return addr, ln, id_, fl

    def p_used(self, i, k, id_, ln):
        s, w = self._pslot(i, k)
        d = self.rings[i]["desc"] + 16 * s
        self.wr(d + 8, "<IH", ln, id_)
        self.wr(d + 14, "<H", (AVAIL | USED) if w else 0)

    def rx(self, data):
        """Delivers one packet into vring 0; False when no buffer is posted."""
        k = self.rx_k
        if self.packed:
            got = self.p_avail(0, k)
            if got is None:
                return False
            addr, ln, id_, fl = got
            ensure(fl & WRITE and ln >= HDR + len(data), f"rx slot {k}: {ln} {fl:#x}")
            self.wr_bytes(addr, struct.pack("<BBHHHHH", 0, 0, 0, 0, 0, 0, 1) + data)
            self.p_used(0, k, id_, HDR + len(data))
        else:
            head = self.avail(0, k)
            if head is None:
                return False
            addr, ln, fl, _ = self.desc(0, head)
            ensure(fl & WRITE and ln >= HDR + len(data), f"rx desc {head}: {ln} {fl}")
            self.wr_bytes(addr, struct.pack("<BBHHHHH", 0, 0, 0, 0, 0, 0, 1) + data)
            self.used(0, k, head, HDR + len(data), k + 1)
        self.rx_k += 1
        return True

    def tx(self):
        """vfwd's next transmitted packet (vring 1), completed; or None."""
        k = self.tx_k
        if self.packed:
            got = self.p_avail(1, k)
            if got is None:
                return None
            addr, ln, id_, fl = got
            ensure(not fl & 1, f"tx slot {k}: a chain ({fl:#x})")
            data = self.rd_bytes(addr, ln)
            self.p_used(1, k, id_, 0)
        else:
            head = self.avail(1, k)
            if head is None:
                return None
            addr, ln, fl, _ = self.desc(1, head)
            ensure(not fl & 1 and ln <= 65536, f"tx desc {head}: a chain or {ln} bytes")
            data = self.rd_bytes(addr, ln)
            self.used(1, k, head, 0, k + 1)
        self.tx_k += 1
        return data

    def exchange(self, n):
        """n packets through vfwd, checked byte for byte."""
        for j in range(n):
            f = frame(j)
            wait_for(lambda: self.rx(f), timeout=30, what=f"rx buffer {self.rx_k}")
            got = []
            wait_for(lambda: got.append(self.tx()) or got[-1] is not None, timeout=30,
                     what=f"tx packet {self.tx_k}")
            check(bytes(got[-1]) == TX_HDR + f, f"forwarded bytes differ: {got[-1]!r}")

    def reflect(self, n):
        """n of nullgen's frames sent back as they came (a full rx ring
        drops one, as a switch would)."""
        for _ in range(n):
            got = []
            wait_for(lambda: got.append(self.tx()) or got[-1] is not None, timeout=30,
                     what=f"tx packet {self.tx_k}")
            self.rx(bytes(got[-1][HDR:]))

    def pump(self, stop, counts, echo=False):
        """Traffic until stop: deliver, complete; any error ends it.
        echo: what is sent comes back (measure), else new frames."""
        try:
            while not stop.is_set():
                if not echo and self.rx(frame(self.rx_k)):
                    counts[0] += 1
                while (d := self.tx()) is not None:
                    counts[1] += 1
                    if echo and self.rx(bytes(d[HDR:])):
                        counts[0] += 1
        except (Garbage, ValueError, IndexError, struct.error):
            pass        # garbage read back: the device gives up


def patterns(base, size, seed):
    """(name, block maker): each makes `size` bytes for one pass."""
    rnd = random.Random(seed)

    def rand():
        return os.urandom(size)

    def ptrs():
        # 8-byte values pointing into the region (aligned and not),
        # then the same with small offsets from its start
        blk = b"".join(struct.pack("<Q", base + rnd.randrange(size)) for _ in range(8192))
        blk += b"".join(struct.pack("<Q", base + rnd.randrange(4096)) for _ in range(8192))
        return (blk * (size // len(blk) + 1))[:size]

    def small():
        blk = b"".join(struct.pack("<HHI", rnd.randrange(8), rnd.randrange(256),
                                   rnd.randrange(65536)) for _ in range(8192))
        return (blk * (size // len(blk) + 1))[:size]

    return [("random", rand), ("0xff", lambda: b"\xff" * size), ("small-ints", small),
            ("pointers", ptrs), ("zeroes", lambda: bytes(size))]


def scribble(be, name, seed, secs):
    """Overwrites every region whole with pattern name, again and again
    for secs; returns the passes made."""
    blocks = [(m, dict(patterns(base, size, seed))[name]()) for base, size, m in be.regions]
    passes, end = 0, time.time() + secs
    while True:
        for m, b in blocks:
            m[0:len(b)] = b
        passes += 1
        if time.time() >= end:
            return passes


def main(kind, long_form):
    case = "packed_scribble" if kind == "packed" else "scribble"
    secs = 2.0 if long_form else 0.6
    sock = sock_path(f"vio-scribble-{kind}.sock")
    port = f"virtio_user,path={sock},reconnect-ms=100" + (",packed_vq=1" if kind == "packed" else "")
    measure = kind == "measure"
    ctl = sock_path("vio-scribble-ng.ctl")
    be = Device(sock, case)
    vf = Vfwd([port], extra=["--total-num-mbufs", "4096"] +
              (["--fwd", "measure", "--rate", "20k", "--drain-ms", "200", "--ctl", ctl]
               if measure else []),
              tool="nullgen" if measure else "vfwd")

    def good(n):      # through the back-end of the moment
        (be.reflect if measure else be.exchange)(n)
    wait_for(be.running.is_set, timeout=60, what="DRIVER_OK from vfwd")
    vf.wait_link(True)
    kinds = None
    for rnd, (name, _) in enumerate(patterns(0, 8, 0)):
        if rnd > 0:
            # the next back-end: vfwd reconnects and forwards again
            os.unlink(sock)
            be = Device(sock, case)
            wait_for(be.running.is_set, timeout=60, what=f"reconnect before {name}")
            vf.wait_link(True)
        good(200 if measure else 8)
        size = sum(s for _, s, _ in be.regions)
        stop, counts = threading.Event(), [0, 0]
        t = threading.Thread(target=be.pump, args=(stop, counts, measure), daemon=True)
        t.start()
        time.sleep(0.1)         # traffic under way
        passes = scribble(be, name, rnd, secs)
        stop.set()
        t.join(10)
        check(vf.p.poll() is None, f"{kind}: died scribbled with {name}:\n"
              + vf.err.text()[-3000:])
        be.hang_up()
        vf.wait_link(False)
        print(f"{kind}: {name}: {passes} passes over {len(be.regions)} region(s) "
              f"of {size >> 20} MiB, {counts[0]} rx / {counts[1]} tx under it; alive",
              flush=True)
        kinds = name
    # and once more after the last pattern (zeroes)
    os.unlink(sock)
    be = Device(sock, case)
    wait_for(be.running.is_set, timeout=60, what="reconnect after the last pattern")
    vf.wait_link(True)
    good(200 if measure else 8)
    if measure:
        r = vftest.run([vftest.binary("vfctl"), "-s", ctl, "show", "port", "xstats", "0", "json"])
        check(r.returncode == 0, f"xstats: {r.stderr}")
        xs = json.loads(r.stdout)["ports"][0]["xstats"]
    st = vf.stop()
    p = st["ports"][0]
    check(p["ipackets"] >= 48 and p["opackets"] >= 48, f"counters {p}")
    if measure:
        # the 6 x 200 reflected before each scribble came back whole
        t = st["measure"]["total"]
        print(f"measure: {t['sent']} sent, {t['received']} received, corrupt "
              f"{st['measure']['corrupt']}, foreign {st['measure']['foreign']}")
        check(t["received"] >= 1200, f"measure received {t['received']} of at least 1200")
        # and in place: the frames were built and parsed in the ring's buffers
        print(f"in place: rx {xs['rx_in_place']} tx {xs['tx_in_place']}")
        check(xs["rx_in_place"] >= 1200 and xs["tx_in_place"] >= 1200, f"xstats {xs}")
    print(f"ok: virtio_user {kind} survives a back-end scribbling over its memory "
          f"(last pattern {kinds}); rx {p['ipackets']} tx {p['opackets']} "
          f"rx-err {p['ierrors']}")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(next((a for a in args if a in ("split", "packed", "measure")), "split"), "--long" in args)
