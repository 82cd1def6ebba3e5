"""A memif server that scribbles over all the memory our zero-copy client
hands it (issue 31): region 0 (the rings) and regions 1..k (the peer heap:
the mbuf pool's data rooms, which our descriptors point into).

vfwd: memif client port 0 (zero-copy) and null ports 1-3 (0<->1, 2<->3
forward), so null port 1 sends into our C2S ring all along.  The Python
server (memif_pypeer's handshake) maps every region, moves traffic both
ways (consumes C2S, fills S2C buffers), then, per pattern (random bytes,
0xff, small integers, pointer-looking values, zeroes), overwrites every
byte of every region again and again for a while under that traffic and
hangs up.  vfwd must stay alive (a crash or an ASan report fails it), go
back to connecting, take the next connection and receive exactly what the
server delivers, and exit 0.

    test_memif_scribble.py [--long]     0.6 s a pattern; --long: 2 s"""
import mmap
import os
import random
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from memif_util import Ours, check, sock_name, wait_for  # noqa: E402
import memif_pypeer as mp  # noqa: E402

NULLS = ["--port", "null", "--port", "null", "--port", "null"]
HEAD, TAIL = 6, 64


class Server(mp.Server):
    """memif_pypeer's server, keeping what the regions and rings are."""

    def accept(self, timeout=30):
        """The next client that completes the handshake (an attempt the
        client gave up on while we were busy is skipped)."""
        end = time.time() + timeout
        while True:
            try:
                return self._accept1(max(1, end - time.time()))
            except (BrokenPipeError, ConnectionError) as e:
                if time.time() >= end:
                    raise
                print(f"a stale connection attempt skipped ({e})", flush=True)

    def _accept1(self, timeout):
        self.ls.settimeout(timeout)
        self.s, _ = self.ls.accept()
        mp.send(self.s, mp.HELLO, b"pyserver".ljust(32, b"\0") +
                struct.pack("<HHHHHB", mp.VERSION, mp.VERSION, 255, 0, 0, 10))
        self.maps, self.rings = {}, []      # index -> mmap; (s2c, region, offset, log2)
        while True:
            t, p, fd = mp.recv(self.s)
            if t == mp.ADD_REGION:
                idx, size = struct.unpack_from("<HQ", p)
                self.maps[idx] = mmap.mmap(fd, size, mmap.MAP_SHARED,
                                           mmap.PROT_READ | mmap.PROT_WRITE)
                os.close(fd)
            elif t == mp.ADD_RING:
                flags, _, region, off, log2 = struct.unpack_from("<HHHIB", p)
                self.rings.append((not flags & 1, region, off, log2))   # flag 1: C2S
                if fd is not None:
                    os.close(fd)
            elif fd is not None:
                os.close(fd)
            if t == mp.CONNECT:
                mp.send(self.s, mp.CONNECTED, b"pysrv".ljust(32, b"\0"))
                self.tails = {i: 0 for i in range(len(self.rings))}
                return
            if t == mp.DISCONNECT:
                raise ConnectionError(mp.reason(p))
            mp.send(self.s, mp.ACK)

    def _u16(self, region, off, v=None):
        m = self.maps[region]
        if v is None:
            return struct.unpack_from("<H", m, off)[0]
        m[off:off + 2] = struct.pack("<H", v & 0xffff)

    def step(self, frame):
        """One pass of the server's side: C2S rings consumed whole, one
        frame into each S2C ring that has a buffer.  Frames delivered."""
        n = 0
        for i, (s2c, region, off, log2) in enumerate(self.rings):
            head = self._u16(region, off + HEAD)
            if not s2c:
                self._u16(region, off + TAIL, head)
                continue
            t = self.tails[i]
            if t == head:
                continue
            d = off + 128 + 16 * (t & ((1 << log2) - 1))
            _, breg, blen, boff = struct.unpack_from("<HHII", self.maps[region], d)
            m = self.maps.get(breg)
            if m is None or blen < len(frame) or boff + len(frame) > len(m):
                raise ValueError("a buffer we cannot fill")
            m[boff:boff + len(frame)] = frame
            self.maps[region][d + 4:d + 8] = struct.pack("<I", len(frame))
            self.tails[i] = t + 1
            self._u16(region, off + TAIL, t + 1)
            n += 1
        return n

    def pump(self, stop, count):
        try:
            while not stop.is_set():
                count[0] += self.step(FRAME)
        except (ValueError, IndexError, struct.error, KeyError):
            pass        # garbage read back: the server gives up

    def hang_up(self):
        self.s.close()
        for m in self.maps.values():
            m.close()


FRAME = bytes([0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x08, 0x00]) + bytes(50)


def block(name, size, base, seed):
    rnd = random.Random(seed)
    if name == "random":
        return os.urandom(size)
    if name == "0xff":
        return b"\xff" * size
    if name == "zeroes":
        return bytes(size)
    if name == "small-ints":
        blk = b"".join(struct.pack("<HHI", rnd.randrange(8), rnd.randrange(256),
                                   rnd.randrange(65536)) for _ in range(8192))
    else:   # pointers: offsets into the region and addresses of its size
        blk = b"".join(struct.pack("<IIQ", rnd.randrange(size), rnd.randrange(64),
                                   base + rnd.randrange(size)) for _ in range(8192))
    return (blk * (size // len(blk) + 1))[:size]


def main(long_form):
    secs = 2.0 if long_form else 0.6
    name = sock_name("scribble")
    srv = Server(name)
    cli = Ours("vfwd", ["--port", f"memif,role=client,id=0,socket={name},zero-copy=yes,"
                        "reconnect-ms=100"] + NULLS + ["-a", "--total-num-mbufs", "8192"])
    delivered = 0
    for rnd, pat in enumerate(("random", "0xff", "small-ints", "pointers", "zeroes", None)):
        srv.accept()
        cli.wait_state("connected")
        check(len(srv.maps) >= 2, f"zero-copy: regions {sorted(srv.maps)}")
        # traffic before: exactly what we deliver arrives
        before = cli.stats()["ipackets"]
        got = 0
        end = time.time() + 30
        while got < 16 and time.time() < end:
            got += srv.step(FRAME)
        check(got >= 16, "S2C buffers posted")
        delivered += got
        wait_for(lambda: cli.stats()["ipackets"] >= before + got, timeout=30,
                 what=f"{got} frames in")
        check(cli.stats()["ipackets"] == before + got, f"exactly {got}: {cli.stats()}")
        if pat is None:
            srv.hang_up()
            break
        stop, count = threading.Event(), [0]
        t = threading.Thread(target=srv.pump, args=(stop, count), daemon=True)
        t.start()
        time.sleep(0.1)
        blocks = [(m, block(pat, len(m), 0x7f0000000000, rnd)) for m in srv.maps.values()]
        passes, end = 0, time.time() + secs
        while time.time() < end:
            for m, b in blocks:
                m[0:len(b)] = b
            passes += 1
        stop.set()
        t.join(10)
        check(cli.p.poll() is None, f"vfwd died scribbled with {pat}")
        mib = sum(len(m) for m in srv.maps.values()) >> 20
        srv.hang_up()
        cli.wait_state("connecting")
        print(f"memif zero-copy: {pat}: {passes} passes over {len(srv.maps)} regions "
              f"({mib} MiB), {count[0]} frames "
              "under it; alive", flush=True)
    try:
        srv.ls.close()
    except OSError:
        pass
    st = cli.stats()
    check(cli.quit() == 0, "vfwd client exit")
    print(f"ok: memif zero-copy client survives a server scribbling over its memory; "
          f"{delivered} frames checked in, rx {st['ipackets']}")


if __name__ == "__main__":
    main("--long" in sys.argv[1:])
