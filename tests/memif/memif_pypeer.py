"""A memif peer in Python for fault tests: a client that hands the server a
memfd of its own (unsealed, so it can truncate it), and a server that
receives the client's.  Only the few messages a handshake needs; rings and
buffers are laid out as DPDK's client does (rings, then bsize buffers)."""
import ctypes
import mmap
import os
import socket
import struct

MSG = 128
ACK, HELLO, INIT, ADD_REGION, ADD_RING, CONNECT, CONNECTED, DISCONNECT = 1, 2, 3, 4, 5, 6, 7, 8
COOKIE = 0x3E31F20
VERSION = 0x0200
RING_HDR = 128
DESC = 16


def store16(buf, off, v):
    """One 16-bit store, as a peer publishes a ring index: struct.pack_into
    writes byte by byte, and the other side can read a torn index (255 ->
    257 passes through 1, "head jumped beyond the ring")."""
    ctypes.c_uint16.from_buffer(buf, off).value = v & 0xffff


def ring_bytes(log2):
    return RING_HDR + DESC * (1 << log2)


def _addr(name):
    return "\0" + name[1:] if name.startswith("@") else name


def msg(t, payload=b""):
    b = struct.pack("<H", t) + payload
    return b + bytes(MSG - len(b))


def send(s, t, payload=b"", fd=None):
    anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", fd))] if fd is not None else []
    s.sendmsg([msg(t, payload)], anc)


def recv(s, timeout=10):
    """(type, payload bytes, fd or None)."""
    s.settimeout(timeout)
    data, anc, _flags, _a = s.recvmsg(MSG, socket.CMSG_SPACE(4))
    fd = None
    for lvl, typ, d in anc:
        if lvl == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
            fd = struct.unpack("i", d[:4])[0]
    if len(data) < 2:
        raise ConnectionError("connection closed")
    return struct.unpack_from("<H", data)[0], data[2:], fd


def reason(payload):
    return payload[4:100].split(b"\0")[0].decode()


class Layout:
    """Region 0: C2S ring, S2C ring, then one bsize buffer per slot."""

    def __init__(self, log2=8, bsize=2048):
        self.log2, self.bsize, self.n = log2, bsize, 1 << log2
        self.rb = ring_bytes(log2)
        self.bufs = (2 * self.rb + 127) // 128 * 128
        self.size = self.bufs + 2 * self.n * bsize

    def ring(self, i):
        return i * self.rb

    def buf(self, ring, slot):
        return self.bufs + (ring * self.n + slot) * self.bsize


class Client:
    """Connects to a memif server as interface id, region 0 from a memfd."""

    def __init__(self, sock_name, id=0, log2=8, name="pyhostile"):
        self.L = Layout(log2)
        self.fd = os.memfd_create("pymemif", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        os.ftruncate(self.fd, self.L.size)
        self.m = mmap.mmap(self.fd, self.L.size)
        for r in (0, 1):
            struct.pack_into("<IHH", self.m, self.L.ring(r), COOKIE, 0, 0)
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.s.connect(_addr(sock_name))
        t, _, _ = recv(self.s)
        assert t == HELLO, t
        self.evs = [os.eventfd(0, os.EFD_NONBLOCK) for _ in (0, 1)]
        steps = [
            (INIT, struct.pack("<HIB", VERSION, id, 0) + bytes(24) + name.encode().ljust(32, b"\0"), None),
            (ADD_REGION, struct.pack("<HQ", 0, self.L.size), self.fd),
            (ADD_RING, struct.pack("<HHHIBH", 1, 0, 0, self.L.ring(0), log2, 0), self.evs[0]),
            (ADD_RING, struct.pack("<HHHIBH", 0, 0, 0, self.L.ring(1), log2, 0), self.evs[1]),
        ]
        for t, p, fd in steps:
            send(self.s, t, p, fd)
            rt, rp, _ = recv(self.s)
            if rt != ACK:
                raise ConnectionError(f"no ACK for {t}: {rt} {reason(rp) if rt == DISCONNECT else ''}")
        send(self.s, CONNECT, b"pyif".ljust(32, b"\0"))
        rt, rp, _ = recv(self.s)
        if rt != CONNECTED:
            raise ConnectionError(f"no CONNECTED: {rt}")
        self.c2s_head = 0
        # S2C: give the server every buffer to fill
        for slot in range(self.L.n):
            self._desc(1, slot, self.L.bsize)
        self._set_head(1, self.L.n)

    def _desc(self, ring, slot, length):
        off = self.L.ring(ring) + RING_HDR + slot * DESC
        struct.pack_into("<HHIII", self.m, off, 0, 0, length, self.L.buf(ring, slot), 0)

    def _set_head(self, ring, v):
        store16(self.m, self.L.ring(ring) + 6, v)

    def c2s_tail(self):
        return struct.unpack_from("<H", self.m, self.L.ring(0) + 64)[0]

    def send_frames(self, k, size=60):
        """Places up to k frames in the C2S ring (as room allows); returns
        how many."""
        room = self.L.n - ((self.c2s_head - self.c2s_tail()) & 0xffff)
        k = min(k, room)
        frame = b"\x02" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x08\x00" + bytes(size - 14)
        for i in range(k):
            slot = (self.c2s_head + i) & (self.L.n - 1)
            o = self.L.buf(0, slot)
            self.m[o:o + size] = frame
            self._desc(0, slot, size)
        self.c2s_head += k
        self._set_head(0, self.c2s_head)
        return k

    def truncate(self, size=0):
        """The attack: shrink the memfd the server mapped.  Nothing here
        touches the mapping afterwards (it would SIGBUS us)."""
        os.ftruncate(self.fd, size)

    def wait_disconnect(self, timeout=10):
        """The server's DISCONNECT reason."""
        while True:
            t, p, fd = recv(self.s, timeout)
            if fd is not None:
                os.close(fd)
            if t == DISCONNECT:
                return reason(p)

    def close(self):
        self.s.close()
        for e in self.evs:
            os.close(e)
        try:
            self.m.close()
        except (BufferError, ValueError):
            pass
        os.close(self.fd)


class Server:
    """Listens as a memif server for one client; keeps the client's region
    fds (to try truncating them)."""

    def __init__(self, sock_name):
        self.ls = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.ls.bind(_addr(sock_name))
        self.ls.listen(1)
        self.region_fds = []

    def accept(self, timeout=30):
        self.ls.settimeout(timeout)
        self.s, _ = self.ls.accept()
        send(self.s, HELLO, b"pyserver".ljust(32, b"\0") +
             struct.pack("<HHHHHB", VERSION, VERSION, 255, 0, 0, 10))
        while True:
            t, p, fd = recv(self.s)
            if t == ADD_REGION:
                self.region_fds.append(fd)
            elif fd is not None:
                os.close(fd)
            if t == CONNECT:
                send(self.s, CONNECTED, b"pysrv".ljust(32, b"\0"))
                return
            if t == DISCONNECT:
                raise ConnectionError(reason(p))
            send(self.s, ACK)

    def close(self):
        for fd in self.region_fds:
            os.close(fd)
        self.region_fds = []
        self.s.close()
