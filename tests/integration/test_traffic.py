"""Frame-size mixes and field ranges end to end (issue 27 items 1 and 2).

1. IMIX measured through memifctl and through vhostd: every frame comes
   back (sent = received, nothing lost, corrupt or foreign) and, read by
   tshark from a capture of both directions, each length went out and came
   back exactly as often as the 7:4:1 schedule says, in its interleaved
   order.
   Jumbo frames (64,9000 and 4000:2,1518: past one mbuf, sent chained)
   the same way through both: counts exact, lengths and UDP checksums
   good in the capture of both directions.
2. Field ranges through memifctl: the frames the receiver sees carry
   exactly the asked tuples (an increasing source range times a seeded
   random destination-port range), every value inside its range; --flows N
   takes N distinct tuples; the old default mapping's collisions are gone
   (1000 flows, 1000 tuples).
   IPv6: the same through memifctl with IPv6 ranges (the last 32 bits
   of an address vary): every frame measured, UDP checksums good (IPv6
   requires them), the asked tuples seen, 64 raised to 84 bytes (the
   stamp after a 40-byte header); txonly sends IPv6 with good checksums.
3. txonly and flowgen on a null port: the mix's counts and the bytes the
   port counted.
4. --rate in bit/s with a mix: packets/s from the mean frame length.
5. Bad --txpkts and --flow-* exit 2 with what is accepted.

Exit 77 (skip) without tshark."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import vftest  # noqa: E402
from vftest import binary, check, final_stats, start, tmpdir, wait_for  # noqa: E402

tshark = shutil.which("tshark")
if not tshark:
    print("SKIP: needs tshark")
    sys.exit(77)
D = tmpdir()
A_CORE = ["-l", "0-1", "--main-lcore", "0"]   # forwards on core 1
B_CORE = ["-l", "0-1", "--main-lcore", "1"]   # forwards on core 0
IMIX = {64: 7, 570: 4, 1518: 1}
IMIX_ORDER = [64, 570, 64, 64, 570, 64, 1518, 64, 570, 64, 570, 64]   # one period, as scheduled


def memif(role, sock):
    return f"memif,role={role},socket={sock},socket-abstract=no"


def nullgen(args, timeout=90):
    return vftest.run([binary("nullgen")] + B_CORE + args + ["--json"], timeout=timeout)


def stop(p):
    p.terminate()
    p.communicate(timeout=30)


def fields(path, *names):
    r = subprocess.run([tshark, "-r", path, "-T", "fields"] + [a for n in names for a in ("-e", n)],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"tshark cannot read {path}: {r.stderr}")
    return [tuple(ln.split("\t")) for ln in r.stdout.splitlines()]


def by_len(rows):
    counts = {}
    for x in rows:
        counts[int(x[0])] = counts.get(int(x[0]), 0) + 1
    return counts


def imix_measured(port, label, n=1200):
    """A --count n IMIX measuring run over port, captured both ways."""
    cap = os.path.join(D, f"{label}.pcapng")
    r = nullgen(["--port", port, "--fwd", "measure", "--txpkts", "imix", "--rate", "20000",
                 "--count", str(n), "--max-loss", "0", "--capture", f"0:both:{cap}"])
    check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr}")
    st = final_stats(r.stdout)
    m = st["measure"]
    s = m["streams"][0]
    check(s["sent"] == n and s["received"] == n and s["lost"] == 0 and s["duplicates"] == 0,
          f"{label}: counts {s}")
    check(m["foreign"] == 0 and m["corrupt"] == 0 and m["stale"] == 0, f"{label}: {m}")
    load = st["load"]
    check(abs(load["frame_len"] - 4246 / 12) < 1e-6 and load["txpkts"] == "imix", f"{label}: {load}")
    rows = fields(cap, "frame.len", "frame.packet_flags_direction", "udp.checksum.status")
    tx = [x for x in rows if x[1] == "0x00000002"]
    rx = [x for x in rows if x[1] == "0x00000001"]
    want = {ln: n // 12 * w for ln, w in IMIX.items()}
    check(by_len(tx) == want, f"{label}: sent by length {by_len(tx)}, want {want}")
    check(by_len(rx) == want, f"{label}: received by length {by_len(rx)}, want {want}")
    check([int(x[0]) for x in tx[:24]] == IMIX_ORDER * 2, f"{label}: order {[x[0] for x in tx[:24]]}")
    print(f"{label}: {n} IMIX frames sent and received, by length {want}")


def jumbo_measured(port, label, n=600):
    """Frames longer than one mbuf: chained on the way out, measured back."""
    for mix, want in (("64,9000", {64: n // 2, 9000: n // 2}), ("4000:2,1518", {4000: n * 2 // 3, 1518: n // 3})):
        cap = os.path.join(D, f"{label}-jumbo.pcapng")
        r = nullgen(["--port", port, "--fwd", "measure", "--txpkts", mix, "--rate", "2000",
                     "--count", str(n), "--capture", f"0:both:{cap}"])
        check(r.returncode == 0, f"{label} {mix}: exit {r.returncode}: {r.stderr}")
        m = final_stats(r.stdout)["measure"]
        s = m["streams"][0]
        check(s["sent"] == n and s["received"] == n and m["corrupt"] == 0 and m["foreign"] == 0,
              f"{label} {mix}: counts {s}, corrupt {m['corrupt']}, foreign {m['foreign']}")
        rows = subprocess.run([tshark, "-r", cap, "-o", "udp.check_checksum:TRUE", "-T", "fields",
                               "-e", "frame.len", "-e", "frame.packet_flags_direction",
                               "-e", "udp.checksum.status"], capture_output=True, text=True).stdout.splitlines()
        rows = [x.split("\t") for x in rows]
        for d in ("0x00000002", "0x00000001"):
            got = by_len([x for x in rows if x[1] == d])
            check(got == want, f"{label} {mix}: direction {d} by length {got}, want {want}")
        check(all(x[2] == "1" for x in rows), f"{label} {mix}: bad UDP checksums")
        print(f"{label}: {n} frames of {mix} measured (chained past one mbuf)")


# 1. IMIX through memifctl (mac reflector) and through vhostd
sock = os.path.join(D, "m1.sock")
srv = start([binary("memifctl"), "--role", "server", "--socket", sock, "--socket-abstract", "no",
             "--duration", "600"] + A_CORE)
wait_for(lambda: os.path.exists(sock), what=f"{sock} listening")
imix_measured(memif("client", sock), "memif")
jumbo_measured(memif("client", sock), "memif")

vs = os.path.join(D, "vh.sock")
vh = start([binary("vhostd"), "--iface", vs, "--duration", "600"] + A_CORE)
wait_for(lambda: os.path.exists(vs), what="vhostd socket")
imix_measured(f"virtio_user,path={vs}", "vhost")
jumbo_measured(f"virtio_user,path={vs}", "vhost")
stop(vh)

# 2. field ranges: what the receiver sees (the reflected frames, captured
# on rx) is exactly the product of the ranges, checksums good
cap = os.path.join(D, "flows.pcapng")
SRC = [f"10.0.{i // 256}.{i % 256}" for i in range(250, 262)]   # 10.0.0.250 .. 10.0.1.5: 12
DPORTS = range(2000, 2010)
N = len(SRC) * len(DPORTS) * 5
r = nullgen(["--port", memif("client", sock), "--fwd", "measure", "--txpkts", "64,200",
             "--flow-src", "10.0.0.250-10.0.1.5", "--flow-dport", "2000-2009:random:7",
             "--flow-dst", "192.0.2.9", "--flow-sport", "5555",
             "--rate", "20000", "--count", str(N), "--max-loss", "0", "--capture", f"0:rx:{cap}"])
check(r.returncode == 0, f"flows: exit {r.returncode}: {r.stderr}")
s = final_stats(r.stdout)["measure"]["streams"][0]
check(s["sent"] == N and s["received"] == N, f"flows: counts {s}")
rows = subprocess.run([tshark, "-r", cap, "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
                       "-T", "fields", "-e", "ip.checksum.status", "-e", "udp.checksum.status",
                       "-e", "ip.src", "-e", "ip.dst", "-e", "udp.srcport", "-e", "udp.dstport"],
                      capture_output=True, text=True).stdout.splitlines()
rows = [x.split("\t") for x in rows]
check(len(rows) == N, f"flows: {len(rows)} frames captured of {N}")
check(all(x[0] == "1" and x[1] == "1" for x in rows), f"flows: bad checksums {[x for x in rows if x[:2] != ['1', '1']][:3]}")
seen = {(x[2], x[3], x[4], x[5]) for x in rows}
want = {(a, "192.0.2.9", "5555", str(p)) for a in SRC for p in DPORTS}
check(seen == want, f"flows: {len(seen)} tuples seen, {len(want)} asked; extra {sorted(seen - want)[:3]}, "
      f"missing {sorted(want - seen)[:3]}")
# each tuple equally often (5 passes), and the random ports not in order
per = {}
for x in rows:
    per[tuple(x[2:])] = per.get(tuple(x[2:]), 0) + 1
check(set(per.values()) == {5}, f"flows: per-tuple counts {set(per.values())}")
ports = [int(x[5]) for x in rows[::len(SRC)]][:len(DPORTS)]
check(sorted(ports) == list(DPORTS) and ports != list(DPORTS), f"flows: port order {ports}")
print(f"flows: {len(seen)} tuples seen, as asked")

# IPv6 ranges: measured like IPv4
cap = os.path.join(D, "flows6.pcapng")
SRC6 = ["2001:db8::fffe", "2001:db8::ffff", "2001:db8::1:0", "2001:db8::1:1"]
N6 = len(SRC6) * 5 * 3
r = nullgen(["--port", memif("client", sock), "--fwd", "measure", "--txpkts", "64,200",
             "--flow-src", "2001:db8::fffe-2001:db8::1:1", "--flow-dst", "2001:db8:1::9",
             "--flow-dport", "2000-2004:random:7", "--rate", "20000", "--count", str(N6),
             "--max-loss", "0", "--capture", f"0:both:{cap}"])
check(r.returncode == 0, f"flows6: exit {r.returncode}: {r.stderr}")
m = final_stats(r.stdout)["measure"]
s = m["streams"][0]
check(s["sent"] == N6 and s["received"] == N6 and m["corrupt"] == 0 and m["foreign"] == 0,
      f"flows6: counts {s} {m['corrupt']} {m['foreign']}")
rows = subprocess.run([tshark, "-r", cap, "-o", "udp.check_checksum:TRUE", "-T", "fields",
                       "-e", "frame.packet_flags_direction", "-e", "udp.checksum.status",
                       "-e", "ipv6.src", "-e", "ipv6.dst", "-e", "udp.dstport", "-e", "frame.len"],
                      capture_output=True, text=True).stdout.splitlines()
rows = [x.split("\t") for x in rows]
check(len(rows) == 2 * N6, f"flows6: {len(rows)} frames captured of {2 * N6}")
check(all(x[1] == "1" for x in rows), f"flows6: bad checksums {[x for x in rows if x[1] != '1'][:3]}")
seen = {(x[2], x[3], x[4]) for x in rows}
want = {(a, "2001:db8:1::9", str(p)) for a in SRC6 for p in range(2000, 2005)}
check(seen == want, f"flows6: extra {sorted(seen - want)[:3]}, missing {sorted(want - seen)[:3]}")
check(by_len([(x[5],) for x in rows]) == {84: N6, 200: N6}, f"flows6: lengths {by_len([(x[5],) for x in rows])}")
print(f"flows6: {N6} IPv6 frames measured, {len(seen)} tuples as asked")

# the default walk: 1000 flows are 1000 tuples (the old 1 + flow % 254 gave 994);
# --flows takes the first N of the ranges' tuples
for args, n in ((["--flows", "1000"], 1000),
                (["--flow-dst", "10.9.0.0/24", "--flow-sport", "1000-1999:random", "--flows", "3000"], 3000)):
    cap = os.path.join(D, "walk.pcapng")
    r = nullgen(["--port", memif("client", sock), "--fwd", "measure", "--rate", "50000",
                 "--count", str(n), "--capture", f"0:rx:{cap}"] + args)
    check(r.returncode == 0, f"{args}: exit {r.returncode}: {r.stderr}")
    rows = fields(cap, "ip.src", "ip.dst", "udp.srcport", "udp.dstport")
    check(len(rows) == n and len(set(rows)) == n, f"{args}: {len(set(rows))} tuples in {len(rows)} frames")
stop(srv)

# 3. txonly and flowgen on a null port: the mix's exact counts and bytes
for mode in ("txonly", "flowgen"):
    cap = os.path.join(D, f"{mode}.pcapng")
    r = nullgen(["--port", "null,no-rx=1", "--fwd", mode, "--txpkts", "64:3,1000:1", "--count", "4000",
                 "--rate", "100000", "--duration", "0.5", "--capture", f"0:tx:{cap}"])
    check(r.returncode == 0, f"{mode}: {r.stderr}")
    port = final_stats(r.stdout)["ports"][0]
    check(port["opackets"] == 4000 and port["obytes"] == 3000 * 64 + 1000 * 1000, f"{mode}: {port}")
    rows = fields(cap, "frame.len", "ip.src")
    check(by_len(rows) == {64: 3000, 1000: 1000}, f"{mode}: {by_len(rows)}")
    check(len({x[1] for x in rows}) == (1024 if mode == "flowgen" else 1), f"{mode}: sources")
cap = os.path.join(D, "txonly6.pcapng")
r = nullgen(["--port", "null,no-rx=1", "--fwd", "txonly", "--txpkts", "64,1000", "--count", "400",
             "--flow-dst", "2001:db8::1-2001:db8::4", "--rate", "100000", "--duration", "0.5",
             "--capture", f"0:tx:{cap}"])
check(r.returncode == 0, f"txonly6: {r.stderr}")
rows = subprocess.run([tshark, "-r", cap, "-o", "udp.check_checksum:TRUE", "-T", "fields",
                       "-e", "udp.checksum.status", "-e", "ipv6.src", "-e", "ipv6.dst"],
                      capture_output=True, text=True).stdout.splitlines()
rows = [x.split("\t") for x in rows]
check(len(rows) == 400 and all(x[0] == "1" and x[1] == "2001:2::1" for x in rows) and
      {x[2] for x in rows} == {f"2001:db8::{i}" for i in range(1, 5)}, f"txonly6: {rows[:3]}")

# 4. bit/s with a mix: the mean length (353.8 bytes, 357.8 with the FCS)
r = vftest.run([binary("nullgen")] + A_CORE + ["--port", "null", "--port", "null", "--fwd", "measure",
                                               "--txpkts", "imix", "--rate", "100Mbps", "--duration", "0.5",
                                               "--json"], timeout=60)
check(r.returncode == 0, r.stderr)
load = final_stats(r.stdout)["load"]
want = round(100e6 / ((4246 / 12 + 4) * 8))
check(load["intended_pps"] == want, f"100Mbps of imix: {load['intended_pps']} pps, want {want}")
check(abs(load["asked"]["l2_bps"] - 100e6) < 1500, f"{load['asked']}")

# 5. bad options: exit 2 and what is accepted
for args, msg in ((["--txpkts", "9001"], "42..9000"),
                  (["--txpkts", "64,64"], "appears twice"),
                  (["--txpkts", "64:0"], "bad weight"),
                  (["--txpkts", "jumbo"], "imix"),
                  (["--flow-src", "10.0.0.9-10.0.0.1"], "--flow-src"),
                  (["--flow-dport", "5:random"], "give a range"),
                  (["--flow-dport", "1-99999"], "0..65535"),
                  (["--flow-sport", "1-10", "--flows", "11"], "10 distinct tuples"),
                  (["--flow-src", "10.0.0.0/8", "--flow-dst", "10.0.0.0/8"], "give --flows"),
                  (["--flow-src", "2001:db8::1", "--flow-dst", "10.0.0.1"], "one IPv4 and one IPv6"),
                  (["--flow-src", "2001:db8::1-2001:db8:0:1::1"], "last 32 bits")):
    r = vftest.run([binary("nullgen"), "--fwd", "flowgen", "--duration", "0.1"] + args, timeout=30)
    check(r.returncode == 2 and msg in r.stderr, f"{args}: exit {r.returncode}: {r.stderr}")
print("ok")
