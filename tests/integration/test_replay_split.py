"""--fwd replay --split (issue 27 item 4: with two ports the capture is
split by direction), on two null ports, each port's sent frames read back
from our own --capture (one port per run):

1. --split mac: a pcap written here, frames from two source MACs
   interleaved; port 0 (the pair's first) sends exactly the frames from
   the first frame's source MAC, port 1 exactly the others, each byte for
   byte and in capture order, with --speed and --loop 2 (each side twice);
2. --split mac at --rate, --loop 3;
3. --split iface: a pcapng written here with two interfaces; port 0 sends
   interface 0's frames, port 1 interface 1's;
4. --split none (the default) still sends the whole capture on each port;
5. refused with exit 2 and a reason: iface on a classic pcap, an odd
   number of ports, --one-way, --split without --pcap, an unknown mode.
No timing is checked here (test_replay.py does that for the whole capture)."""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(__file__))
import vftest  # noqa: E402
from vftest import binary, check, tmpdir  # noqa: E402

D = tmpdir()
NG = [binary("nullgen"), "-l", "0-1", "--main-lcore", "0"]
TWO = ["--port", "null,no-rx=1", "--port", "null,no-rx=1"]
MAC_A = bytes.fromhex("020000000a01")
MAC_B = bytes.fromhex("020000000b02")


def frame(src, dst, seq, length=64):
    """An Ethernet frame numbered seq (in its payload), so any two differ."""
    head = dst + src + b"\x08\x00" + struct.pack(">I", seq)
    return head + bytes((seq + i) & 0xff for i in range(length - len(head)))


# A conversation: A speaks, B answers, runs of either side, 5 ms apart.
SIDES = [0, 1, 0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0]
FRAMES = [frame(MAC_A if s == 0 else MAC_B, MAC_B if s == 0 else MAC_A, i, 64 + 4 * i)
          for i, s in enumerate(SIDES)]


def write_pcap(path):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, b in enumerate(FRAMES):
            us = 1000 + i * 5000
            f.write(struct.pack("<IIII", us // 1000000, us % 1000000, len(b), len(b)) + b)


def block(typ, body):
    body += b"\0" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack("<II", typ, n) + body + struct.pack("<I", n)


def write_pcapng(path, ifaces):
    """Frame i on interface ifaces[i] (two interfaces, microseconds)."""
    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += block(1, struct.pack("<HHI", 1, 0, 0)) * 2
    for i, b in enumerate(FRAMES):
        us = 1000 + i * 5000
        out += block(6, struct.pack("<IIIII", ifaces[i], us >> 32, us & 0xffffffff, len(b), len(b)) + b)
    open(path, "wb").write(out)


def read_pcapng(path):
    """The frames of every enhanced packet block (our writer: LE)."""
    b = open(path, "rb").read()
    out, off = [], 0
    while off + 12 <= len(b):
        typ, blen = struct.unpack_from("<II", b, off)
        if typ == 6:
            cap = struct.unpack_from("<I", b, off + 20)[0]
            out.append(b[off + 28:off + 28 + cap])
        off += blen
    return out


def sent(src, port, extra):
    """The frames port sent while replaying src over two ports."""
    out = os.path.join(D, f"tx{port}.pcapng")
    if os.path.exists(out):
        os.unlink(out)
    r = vftest.run(NG + TWO + ["--fwd", "replay", "--pcap", src, "--capture", f"{port}:tx:{out}",
                               "--duration", "30", "-v"] + extra, timeout=60)
    check(r.returncode == 0, f"replay {extra}: exit {r.returncode}: {r.stderr}")
    return read_pcapng(out), r.stderr


def expect(src, extra, side_of, loops, what):
    for port in (0, 1):
        want = [b for i, b in enumerate(FRAMES) if side_of[i] == port] * loops
        got, err = sent(src, port, extra)
        check(got == want, f"{what} {extra}: port {port} sent {len(got)} frames, expected {len(want)} "
              f"(side {port} of the capture, in order, {loops}x)")
    return err


pcap = os.path.join(D, "two.pcap")
write_pcap(pcap)
n0 = SIDES.count(0)

# 1: by source MAC, recorded timing, two passes; the run ends by itself
err = expect(pcap, ["--split", "mac", "--speed", "4", "--loop", "2"], SIDES, 2, "split mac")
check(f"{len(SIDES)} frames split by mac: {n0} (from 02:00:00:00:0a:01) sent on the first port of each "
      f"pair, {len(SIDES) - n0} on the second" in err.lower(), f"no split line with -v: {err!r}")

# 2: at --rate instead of the recorded timing
expect(pcap, ["--split", "mac", "--rate", "1000", "--loop", "3"], SIDES, 3, "split mac")

# 3: by pcapng interface (the first frame on interface 1: the rule is the
# interface, not the first frame)
ifaces = [1 - s for s in SIDES]
ng = os.path.join(D, "two.pcapng")
write_pcapng(ng, ifaces)
expect(ng, ["--split", "iface", "--speed", "4"], ifaces, 1, "split iface")

# 4: none (and no --split): each port the whole capture, as before
for extra in (["--split", "none"], []):
    for port in (0, 1):
        got, _ = sent(pcap, port, extra + ["--speed", "4"])
        check(got == FRAMES, f"{extra}: port {port} sent {len(got)} frames, not the whole capture")

# 5: refused, with a reason, before any traffic
ONE = ["--port", "null,no-rx=1"]
for ports, args, why in [
        (TWO, ["--pcap", pcap, "--split", "iface"], "needs a pcapng"),
        (ONE, ["--pcap", pcap, "--split", "mac"], "give an even number"),
        (TWO + ONE, ["--pcap", pcap, "--split", "mac"], "3 ports"),
        (TWO, ["--pcap", pcap, "--split", "mac", "--one-way"], "not with --one-way"),
        (TWO, ["--split", "mac"], "go together"),
        (TWO, ["--pcap", pcap, "--split", "both"], "bad --split")]:
    r = vftest.run(NG + ports + ["--fwd", "replay"] + args + ["--duration", "1"], timeout=60)
    check(r.returncode == 2 and why in r.stderr, f"{args}: exit {r.returncode}, stderr {r.stderr!r}")
r = vftest.run(NG + TWO + ["--fwd", "txonly", "--split", "mac", "--duration", "1"], timeout=60)
check(r.returncode == 2 and "--split" in r.stderr, f"--split with txonly: {r.returncode} {r.stderr!r}")
print("ok")
