"""Offload requests a guest hands vhost leave a port without offloads
finished: a Python front-end negotiates CSUM and HOST_TSO4 with vfwd's
vhost port (tso=1) and sends UDP frames with a partial checksum
(NEEDS_CSUM) and one 9000-byte TCP TSO frame (gso_size 1000); vfwd io
forwards them to a memif port, whose driver knows nothing of offloads.
memifctl on the other end captures what arrives: every UDP and TCP
checksum is right (tshark), the TSO frame arrived as 9 segments of at most
1000 payload bytes with consecutive sequence numbers, and vfwd's memif
port counts the work (tx_sw_csum, tx_sw_tso).  Before the framework's
software completion the frames left with the pseudo-header sum as their
checksum and the TSO frame whole.  Exit 77 without tshark."""
import os
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "memif"))
from memif_util import Ours, check, sock_name, wait_for  # noqa: E402
import vftest  # noqa: E402
import vhost_pypeer  # noqa: E402

tshark = shutil.which("tshark")
if not tshark:
    print("SKIP: needs tshark")
    sys.exit(77)

F_CSUM, F_HOST_TSO4 = 1 << 0, 1 << 11
SRC, DST = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])


def csum16(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def ipv4(proto, payload_len, ident):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + payload_len, ident, 0x4000, 64, proto, 0,
                    SRC, DST)
    return h[:10] + struct.pack("!H", 0xffff - csum16(h)) + h[12:]


def pseudo(proto, length):
    return csum16(SRC + DST + struct.pack("!BBH", 0, proto, length))


ETH = b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01" + b"\x08\x00"


def vnet(flags, gso_type, hdr_len, gso_size, start, off):
    return struct.pack("<BBHHHHH", flags, gso_type, hdr_len, gso_size, start, off, 0)


def udp_frame(k):
    data = bytes((k + i) & 0xff for i in range(100))
    ln = 8 + len(data)
    udp = struct.pack("!HHHH", 4000 + k, 5000, ln, pseudo(17, ln)) + data
    return vnet(1, 0, 0, 0, 34, 6) + ETH + ipv4(17, ln, k) + udp


def tso_frame():
    data = bytes(i & 0xff for i in range(9000))
    tcp = struct.pack("!HHIIBBHHH", 6000, 7000, 1000000, 0, 5 << 4, 0x18, 65535,
                      pseudo(6, 20 + len(data)), 0) + data
    return vnet(1, 1, 54, 1000, 34, 16) + ETH + ipv4(6, len(tcp), 100) + tcp


d = vftest.tmpdir()
sock = os.path.join(d, "vh.sock")
cap = os.path.join(d, "rx.pcapng")
name = sock_name("ol")
fwd = Ours("vfwd", ["--main-lcore", "0", "--port", f"vhost,iface={sock},tso=1",
                    "--port", f"memif,role=server,id=0,socket={name}", "-a"])
peer = Ours("memifctl", ["--main-lcore", "1", "--role", "client", "--socket", name,
                         "--fwd", "rxonly", "--capture", f"0:rx:{cap}", "-a"])
wait_for(lambda: os.path.exists(sock), timeout=30, what="the vhost socket")
wait_for(lambda: fwd.stats(1)["link"] == "up", timeout=30, what="memif link up")
fe = vhost_pypeer.FrontEnd(sock, features=F_CSUM | F_HOST_TSO4)
wait_for(lambda: fwd.stats(0)["link"] == "up", timeout=30, what="vhost link up")
fe.send_raw([udp_frame(k) for k in range(20)] + [tso_frame()])
wait_for(lambda: peer.stats(0)["ipackets"] >= 29, timeout=30, what="29 frames at memifctl")
check(peer.stats(0)["ipackets"] == 29, f"20 UDP + 9 segments: {peer.stats(0)}")
xs = fwd.query("show port xstats 1 json")["ports"][0]["xstats"]
check(xs.get("tx_sw_csum") == 20 and xs.get("tx_sw_tso") == 1 and xs.get("tx_sw_tso_segs") == 9,
      f"memif port xstats {xs}")
peer.quit()
fe.close()
fwd.quit()

r = subprocess.run([tshark, "-r", cap, "-o", "udp.check_checksum:TRUE", "-o",
                    "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE", "-T", "fields",
                    "-e", "ip.checksum.status", "-e", "udp.checksum.status",
                    "-e", "tcp.checksum.status", "-e", "tcp.len", "-e", "tcp.seq_raw",
                    "-e", "ip.id", "-e", "tcp.flags.push"], capture_output=True, text=True)
check(r.returncode == 0, f"tshark: {r.stderr}")
rows = [ln.split("\t") for ln in r.stdout.splitlines()]
check(len(rows) == 29, f"{len(rows)} frames captured")
udp = [x for x in rows if x[1]]
tcp = [x for x in rows if x[2]]
check(len(udp) == 20 and all(x[0] == "1" and x[1] == "1" for x in udp),
      f"UDP checksums good (1): {[x[:2] for x in udp]}")
check(len(tcp) == 9 and all(x[0] == "1" and x[2] == "1" for x in tcp),
      f"TCP checksums good (1): {[x[:3] for x in tcp]}")
check([int(x[3]) for x in tcp] == [1000] * 9, f"segment payloads {[x[3] for x in tcp]}")
check([int(x[4]) for x in tcp] == [1000000 + 1000 * i for i in range(9)],
      f"sequence numbers {[x[4] for x in tcp]}")
check([int(x[5], 0) for x in tcp] == [100 + i for i in range(9)], f"IP ids {[x[5] for x in tcp]}")
check([x[6] for x in tcp] == ["0"] * 8 + ["1"], f"PSH on the last only {[x[6] for x in tcp]}")
print("ok: 20 partial checksums and a 9000-byte TSO frame finished before memif")
