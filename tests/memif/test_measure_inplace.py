"""nullgen --fwd measure builds its frames in memif's ring buffers and reads
received ones in place (vf_slot_ops); what cannot be done in place goes
through the mbuf bursts.  A Python memif client reflects nullgen's frames
(nullgen is the server) and mixes in everything the in-place path must
hand over to them:

- S2C: every 5th buffer it posts is 40 bytes, below a frame: nullgen must
  not write a frame into it in place, but chain the frame over slots (the
  mbuf burst), and never write more than a buffer's posted length;
- C2S: every 7th frame comes back as a two-slot chain (NEXT), which must be
  received whole, not parsed in place as a cut frame;
- C2S: every 100th frame comes back with a descriptor whose offset lies
  outside the region: dropped and counted (bad descriptor), nothing read
  outside the shared memory (the ASan build runs this too).

Exact: every frame sent is received but the bad ones, which are exactly
the lost; nothing foreign, corrupt or stale; the chained buffers and small
posts really happened; the port's rx and tx counters match."""
import os
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
import vftest  # noqa: E402
from memif_util import Proc, check, sock_name  # noqa: E402
import memif_pypeer as mp  # noqa: E402

N, RATE = 3000, 5000
NEXT = 1
HEAD, TAIL = 6, 64
SMALL = 40


class Reflector(mp.Client):
    def __init__(self, name):
        super().__init__(name)
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
                size = SMALL if self.nposts % 5 == 0 else self.L.bsize
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
        bad = i % 100 == 50
        chain = i % 7 == 3 and not bad
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


name = sock_name("inplace")
args = [vftest.binary("nullgen"), "-l", "0-1", "--main-lcore", "1", "--json",
        "--port", f"memif,role=server,id=0,socket={name}", "--fwd", "measure",
        "--rate", str(RATE), "--count", str(N)]
gen = Proc(args, interactive=False)
refl = None
end = time.time() + 30
while refl is None:
    try:
        refl = Reflector(name)
    except (ConnectionRefusedError, FileNotFoundError):
        if time.time() > end or gen.p.poll() is not None:
            vftest.fail(f"no memif server: {gen.text()[-2000:]}")
        time.sleep(0.1)
t = threading.Thread(target=refl.run, daemon=True)
t.start()
try:
    rc = gen.p.wait(timeout=90)
except Exception:
    vftest.fail(f"nullgen did not finish: {gen.text()[-2000:]}")
refl.stop = True
t.join(5)
out = gen.text()
lines = [ln for ln in out.splitlines() if ln.startswith('{"tool"')]
check(lines, f"no JSON from nullgen: {out[-2000:]}")
o = vftest.json_lines(lines[-1])[-1]
m, st = o["measure"], refl.stats
print(f"reflector: {st}; measure: {m['total']['sent']} sent, {m['total']['received']} received, "
      f"{m['total']['lost']} lost")
check(st["frames"] == N, f"the reflector saw {st['frames']} of {N} frames")
check(st["overrun"] == 0, f"nullgen wrote past a posted buffer {st['overrun']} times")
check(st["small_posts"] >= 100 and st["chains_out"] >= 50,
      f"small posts {st['small_posts']}, chained frames from nullgen {st['chains_out']}")
check(st["chains_in"] >= 300 and st["bad"] == N // 100, f"{st}")
check(m["foreign"] == 0 and m["corrupt"] == 0 and m["stale"] == 0, f"{m}")
tot = m["total"]
check(tot["sent"] == N and tot["received"] == N - st["bad"] and tot["lost"] == st["bad"],
      f"sent {tot['sent']} received {tot['received']} lost {tot['lost']}, bad {st['bad']}")
check(tot["duplicates"] == 0 and tot["reordered"] == 0, f"{tot}")
p = o["ports"][0]
check(p["opackets"] == N and p["ipackets"] == N - st["bad"], f"port counters {p}")
refl.close()
print("ok")
