"""A Python memif client that reflects nullgen's measure frames (nullgen is
the server) and mixes in, each when asked, what the in-place path must
hand over to the mbuf bursts: S2C buffers posted below a frame's length
(small), frames returned as two-slot chains (chains), descriptors outside
the region (bad); mangle(i, frame) may change the i-th frame on its way
back.  Used by test_measure_inplace.py and test_measure_check.py."""
import struct
import threading
import time

import memif_pypeer as mp
import vftest
from memif_util import Proc, sock_name

NEXT = 1
HEAD, TAIL = 6, 64
SMALL = 40


class Reflector(mp.Client):
    def __init__(self, name, small=True, chains=True, bad=True, mangle=None):
        super().__init__(name)
        self.small, self.chains, self.bad, self.mangle = small, chains, bad, mangle
        self.posted = [self.L.bsize] * self.L.n     # what each S2C slot was posted with
        self.s2c_last = 0
        self.s2c_head = self.L.n
        self.nposts = 0
        self.stats = {"frames": 0, "chains_out": 0, "chains_in": 0, "bad": 0,
                      "small_posts": 0, "overrun": 0}
        self.stop = False

    def _u16(self, ring, off):
        return struct.unpack_from("<H", self.m, self.L.ring(ring) + off)[0]

    def _desc_full(self, ring, slot, flags, length, offset):
        o = self.L.ring(ring) + mp.RING_HDR + slot * mp.DESC
        struct.pack_into("<HHIII", self.m, o, flags, 0, length, offset, 0)

    def _read_desc(self, ring, slot):
        o = self.L.ring(ring) + mp.RING_HDR + slot * mp.DESC
        return struct.unpack_from("<HHIII", self.m, o)

    def take_s2c(self):
        """The frames nullgen finished (whole chains), their slots posted
        again, every 5th post SMALL bytes."""
        frames = []
        tail = self._u16(1, TAIL)
        while self.s2c_last != tail:
            data, used = b"", 0
            while True:
                slot = (self.s2c_last + used) & (self.L.n - 1)
                flags, _rg, length, _off, _md = self._read_desc(1, slot)
                if length > self.posted[slot]:
                    self.stats["overrun"] += 1
                o = self.L.buf(1, slot)
                data += bytes(self.m[o:o + min(length, self.L.bsize)])
                used += 1
                if not flags & NEXT:
                    break
                if (self.s2c_last + used) & 0xffff == tail:
                    return frames       # a chain not complete yet: next time
            if used > 1:
                self.stats["chains_out"] += 1
            for k in range(used):
                slot = (self.s2c_last + k) & (self.L.n - 1)
                self.nposts += 1
                size = SMALL if self.small and self.nposts % 5 == 0 else self.L.bsize
                self.stats["small_posts"] += size == SMALL
                self.posted[slot] = size
                self._desc_full(1, slot, 0, size, self.L.buf(1, slot))
            self.s2c_last = (self.s2c_last + used) & 0xffff
            self.s2c_head = (self.s2c_head + used) & 0xffff
            self._set_head(1, self.s2c_head)
            frames.append(data)
        return frames

    def give_c2s(self, frame):
        i = self.stats["frames"]
        self.stats["frames"] += 1
        bad = self.bad and i % 100 == 50
        chain = self.chains and i % 7 == 3 and not bad
        if self.mangle:
            frame = self.mangle(i, frame)
        need = 2 if chain else 1
        while self.L.n - ((self.c2s_head - self.c2s_tail()) & 0xffff) < need:
            if self.stop:
                return
            time.sleep(0.0002)
        slot = self.c2s_head & (self.L.n - 1)
        if bad:
            # outside the region: must be dropped, never read
            self._desc_full(0, slot, 0, len(frame), self.L.size + 4096)
            self.stats["bad"] += 1
        elif chain:
            cut = 30
            o = self.L.buf(0, slot)
            self.m[o:o + cut] = frame[:cut]
            self._desc_full(0, slot, NEXT, cut, o)
            slot2 = (self.c2s_head + 1) & (self.L.n - 1)
            o2 = self.L.buf(0, slot2)
            self.m[o2:o2 + len(frame) - cut] = frame[cut:]
            self._desc_full(0, slot2, 0, len(frame) - cut, o2)
            self.stats["chains_in"] += 1
        else:
            o = self.L.buf(0, slot)
            self.m[o:o + len(frame)] = frame
            self._desc_full(0, slot, 0, len(frame), o)
        self.c2s_head = (self.c2s_head + need) & 0xffff
        self._set_head(0, self.c2s_head)

    def run(self):
        while not self.stop:
            frames = self.take_s2c()
            if not frames:
                time.sleep(0.0002)
            for f in frames:
                self.give_c2s(f)




def run(tag, args, timeout=90, **kw):
    """nullgen (args, a memif server on a fresh socket appended) against a
    Reflector(**kw) until it exits: (exit status, its output, the
    reflector)."""
    name = sock_name(tag)
    gen = Proc(args + ["--port", f"memif,role=server,id=0,socket={name}"], interactive=False)
    refl = None
    end = time.time() + 30
    while refl is None:
        try:
            refl = Reflector(name, **kw)
        except (ConnectionRefusedError, FileNotFoundError):
            if time.time() > end or gen.p.poll() is not None:
                vftest.fail(f"no memif server: {gen.text()[-2000:]}")
            time.sleep(0.1)
    t = threading.Thread(target=refl.run, daemon=True)
    t.start()
    try:
        rc = gen.p.wait(timeout=timeout)
    except Exception:
        vftest.fail(f"nullgen did not finish: {gen.text()[-2000:]}")
    refl.stop = True
    t.join(5)
    return rc, gen.text(), refl
