"""The dpdk: driver runs DPDK's own PMDs inside our engine: net_null both
ways, and net_pcap with exact packet counts in and out of real pcap files."""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(__file__))
from vftest import binary, check, final_stats, port, run, tmpdir  # noqa: E402

vfwd = binary("vfwd")
d = tmpdir()


def read_pcap(path):
    data = open(path, "rb").read()
    check(len(data) >= 24, "pcap too short")
    magic = struct.unpack("<I", data[:4])[0]
    check(magic in (0xa1b2c3d4, 0xa1b23c4d), f"pcap magic {magic:#x}")
    off, frames = 24, []
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack("<IIII", data[off:off + 16])
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return frames


r = run([vfwd, "--port", "dpdk:net_null0", "--port", "null", "--duration", "0.5", "--json"])
check(r.returncode == 0, f"dpdk:net_null0: {r.stderr}")
s = final_stats(r.stdout)
p0 = port(s, 0)
check(p0["driver"] == "dpdk" and p0["name"] == "net_null0" and p0["ipackets"] > 0, f"{p0}")
check(port(s, 1)["opackets"] == s["streams"][0]["tx"], "forwarded into our null port")

# txonly into a pcap file: exactly --count frames, of --txpkts bytes, valid checksums
out = os.path.join(d, "out.pcap")
r = run([vfwd, "--port", f"dpdk:net_pcap0,tx_pcap={out}", "--fwd", "txonly", "--count", "100",
         "--txpkts", "98", "--duration", "0.5", "--json"])
check(r.returncode == 0, f"pcap tx: {r.stderr}")
check(port(final_stats(r.stdout), 0)["opackets"] == 100, "pcap port opackets")
frames = read_pcap(out)
check(len(frames) == 100 and all(len(f) == 98 for f in frames), f"{len(frames)} frames in pcap")
check(frames[0][12:14] == b"\x08\x00" and frames[0][23] == 17, "UDP/IPv4 frames")

# and back: the file replayed into rxonly arrives exactly
r = run([vfwd, "--port", f"dpdk:net_pcap1,rx_pcap={out}", "--fwd", "rxonly", "--duration", "0.5", "--json"])
check(r.returncode == 0, f"pcap rx: {r.stderr}")
p = port(final_stats(r.stdout), 0)
check(p["ipackets"] == 100 and p["ibytes"] == 9800, f"replayed {p}")

# a DPDK device that does not exist is an error, not a crash
r = run([vfwd, "--port", "dpdk:net_nosuch0", "--duration", "0.2"])
check(r.returncode == 1 and "net_nosuch0" in r.stderr, f"bad dpdk device: {r.returncode} {r.stderr!r}")
print("ok")
