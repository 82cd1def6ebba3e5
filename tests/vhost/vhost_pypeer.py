"""A vhost-user front-end in Python for fault tests: it shares one memfd
(unsealed, so it can shrink it) as its guest memory, sets up one queue pair
(split or packed rings), transmits frames on vring 1 and posts receive
buffers on vring 0.  No protocol features: the rings start enabled."""
import ctypes
import mmap
import os
import socket
import struct

GET_FEATURES, SET_FEATURES, SET_OWNER, SET_MEM_TABLE = 1, 2, 3, 5
SET_VRING_NUM, SET_VRING_ADDR, SET_VRING_BASE = 8, 9, 10
SET_VRING_KICK, SET_VRING_CALL = 12, 13
F_VERSION_1, F_RING_PACKED = 1 << 32, 1 << 34

BASE = 0x40000000		# gpa == uva of the region
SIZE = 4 << 20
N = 256				# ring size
HDR = 12			# virtio_net_hdr_mrg_rxbuf
BUF = 2048
VRING_DESC_F_WRITE = 2
AVAIL, USED = 1 << 7, 1 << 15


def store16(buf, off, v):
    """One 16-bit store, as a driver publishes an index or a descriptor's
    flags: struct.pack_into writes byte by byte, and the back-end could read
    a torn value (255 -> 256 passes through 0)."""
    ctypes.c_uint16.from_buffer(buf, off).value = v & 0xffff


class FrontEnd:
    def __init__(self, path, packed=False, sock=None, features=0):
        """Connects to path, or with sock (accepted from a back-end in
        client mode) speaks on that; features: more to ask for (they must
        be offered)."""
        self.packed = packed
        self.fd = os.memfd_create("pyguest", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        os.ftruncate(self.fd, SIZE)
        self.m = mmap.mmap(self.fd, SIZE)
        if sock is not None:
            self.s = sock
        else:
            self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.s.connect(path)
        self.evs = []
        self._req(SET_OWNER)
        feats = self._get_u64(GET_FEATURES)
        want = F_VERSION_1 | (F_RING_PACKED if packed else 0) | features
        assert feats & want == want, hex(feats)
        self._req(SET_FEATURES, struct.pack("<Q", want))
        self._req(SET_MEM_TABLE, struct.pack("<II", 1, 0) +
                  struct.pack("<QQQQ", BASE, SIZE, BASE, 0), [self.fd])
        self.tx_next = 0
        for q in (0, 1):
            ring = self.ring_off(q)
            self._req(SET_VRING_NUM, struct.pack("<II", q, N))
            # desc, used (device area), avail (driver area)
            d, a, u = ring, ring + 16 * N, ring + 16 * N + 4096
            self._req(SET_VRING_ADDR, struct.pack("<IIQQQQ", q, 0, BASE + d, BASE + u, BASE + a, 0))
            self._req(SET_VRING_BASE, struct.pack("<II", q, 0x8000 if packed else 0))
            for r in (SET_VRING_KICK, SET_VRING_CALL):
                e = os.eventfd(0, os.EFD_NONBLOCK)
                self.evs.append(e)
                self._req(r, struct.pack("<Q", q), [e])
        # vring 0 (our rx): every buffer to the back-end
        for i in range(N):
            self._post(0, i, self.buf_off(0, i), BUF, True)
        self._publish(0, N)

    def ring_off(self, q):
        return q * 0x10000

    def buf_off(self, q, i):
        return 0x20000 + (q * N + i) * BUF

    def _req(self, req, payload=b"", fds=()):
        hdr = struct.pack("<III", req, 1, len(payload))
        anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack(f"{len(fds)}i", *fds))] if fds else []
        self.s.sendmsg([hdr + payload], anc)

    def _get_u64(self, req):
        self._req(req)
        b = b""
        while len(b) < 20:
            c = self.s.recv(20 - len(b))
            if not c:
                raise ConnectionError("back-end closed")
            b += c
        return struct.unpack_from("<Q", b, 12)[0]

    def _post(self, q, slot, off, length, write):
        d = self.ring_off(q) + 16 * slot
        if self.packed:
            fl = AVAIL | (VRING_DESC_F_WRITE if write else 0)
            struct.pack_into("<QIH", self.m, d, BASE + off, length, slot)
            store16(self.m, d + 14, fl)	# flags last, in one store
        else:
            struct.pack_into("<QIHH", self.m, d, BASE + off, length,
                             VRING_DESC_F_WRITE if write else 0, 0)
            a = self.ring_off(q) + 16 * N
            struct.pack_into("<H", self.m, a + 4 + 2 * slot, slot)

    def _publish(self, q, idx):
        if not self.packed:
            store16(self.m, self.ring_off(q) + 16 * N + 2, idx)

    def send_frames(self, k, size=60):
        """k <= N frames on vring 1, in the first lap (fault tests send few)."""
        frame = bytes(HDR) + b"\x02" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x08\x00" + bytes(size - 14)
        assert self.tx_next + k <= N
        for i in range(self.tx_next, self.tx_next + k):
            off = self.buf_off(1, i)
            self.m[off:off + len(frame)] = frame
            self._post(1, i, off, len(frame), False)
        self.tx_next += k
        self._publish(1, self.tx_next)
        os.eventfd_write(self.evs[2], 1)	# kick vring 1

    def send_raw(self, frames):
        """Split rings, once per connection: each of frames (virtio-net
        header included) as one descriptor on vring 1, its bytes running on
        into the buffers after its own (they lie contiguous)."""
        assert not self.packed and self.tx_next == 0
        slot = 0
        ring = self.ring_off(1)
        for a, fr in enumerate(frames):
            slots = (len(fr) + BUF - 1) // BUF
            assert slot + slots <= N
            off = self.buf_off(1, slot)
            self.m[off:off + len(fr)] = fr
            struct.pack_into("<QIHH", self.m, ring + 16 * slot, BASE + off, len(fr), 0, 0)
            struct.pack_into("<H", self.m, ring + 16 * N + 4 + 2 * a, slot)
            slot += slots
        self.tx_next = N		# no send_frames after this
        self._publish(1, len(frames))
        os.eventfd_write(self.evs[2], 1)	# kick vring 1

    def truncate(self, size=0):
        """The attack; nothing here touches the mapping afterwards."""
        os.ftruncate(self.fd, size)

    def wait_closed(self, timeout=10):
        """True when the back-end closes the connection."""
        self.s.settimeout(timeout)
        try:
            while self.s.recv(4096):
                pass
        except ConnectionResetError:
            pass
        return True

    def close(self):
        self.s.close()
        for e in self.evs:
            os.close(e)
        try:
            self.m.close()
        except (BufferError, ValueError):
            pass
        os.close(self.fd)
