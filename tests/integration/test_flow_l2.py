"""MAC address and VLAN ranges end to end (issue 27 item 3: --flow-src-mac,
--flow-dst-mac, --flow-vlan).

1. measure through memifctl (mac reflector): a source MAC range (4 values,
   the last 32 bits crossing a byte), a fixed destination MAC and a seeded
   random VLAN range.  Read by tshark from a capture of both directions:
   every frame sent carries exactly the asked MAC x VLAN tuples, each as
   often; every frame comes back (counts exact, nothing corrupt or
   foreign) with its tag as sent and good UDP checksums; 64-byte frames
   are raised to 68 (the stamp after a tagged header).  Sent in bursts
   (--pattern burst:20/1ms).
2. IPv6 with a tag through vhostd over virtio_user, IMIX at 50 Mbit/s
   with Poisson arrivals: counts exact.
3. txonly on a null port, IPv6 and one fixed tag: the tag and the UDP
   checksums IPv6 requires, in every frame; the default flows kept.
4. Bad values exit 2 with what is accepted.

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
A_CORE = ["-l", "0-1", "--main-lcore", "0"]   # the device forwards on core 1
B_CORE = ["-l", "0-1", "--main-lcore", "1"]   # nullgen on core 0


def nullgen(args, timeout=90):
    return vftest.run([binary("nullgen")] + B_CORE + args + ["--json"], timeout=timeout)


def rows_of(cap, *names):
    r = subprocess.run([tshark, "-r", cap, "-o", "udp.check_checksum:TRUE", "-T", "fields"]
                       + [a for n in names for a in ("-e", n)], capture_output=True, text=True)
    return [tuple(x.split("\t")) for x in r.stdout.splitlines()]


def measured(r, n, label):
    check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr}")
    m = final_stats(r.stdout)["measure"]
    s = m["streams"][0]
    check(s["sent"] == n and s["received"] == n and s["lost"] == 0 and m["corrupt"] == 0
          and m["foreign"] == 0, f"{label}: {s}, corrupt {m['corrupt']}, foreign {m['foreign']}")


# 1. memifctl
sock = os.path.join(D, "m.sock")
srv = start([binary("memifctl"), "--role", "server", "--socket", sock, "--socket-abstract", "no",
             "--duration", "600"] + A_CORE)
wait_for(lambda: os.path.exists(sock), what=f"{sock} listening")
SMAC = ["02:00:00:00:00:fe", "02:00:00:00:00:ff", "02:00:00:00:01:00", "02:00:00:00:01:01"]
DMAC = "02:aa:00:00:00:01"
VIDS = ["100", "101", "102"]
PASSES = 5
N = len(SMAC) * len(VIDS) * PASSES
cap = os.path.join(D, "l2.pcapng")
r = nullgen(["--port", f"memif,role=client,socket={sock},socket-abstract=no", "--fwd", "measure",
             "--txpkts", "64,200", "--flow-src-mac", f"{SMAC[0]}-{SMAC[-1]}", "--flow-dst-mac", DMAC,
             "--flow-vlan", "100-102:random:3", "--pattern", "burst:20/1ms", "--count", str(N),
             "--max-loss", "0", "--capture", f"0:both:{cap}"])
measured(r, N, "memif")
rows = rows_of(cap, "frame.packet_flags_direction", "eth.src", "eth.dst", "vlan.id",
               "udp.checksum.status", "frame.len")
tx = [x for x in rows if int(x[0], 16) & 3 == 2]
rx = [x for x in rows if int(x[0], 16) & 3 == 1]
check(len(tx) == N and len(rx) == N, f"memif: {len(tx)} frames out, {len(rx)} in, of {N}")
per = {}
for x in tx:
    per[(x[1], x[2], x[3])] = per.get((x[1], x[2], x[3]), 0) + 1
want = {(s, DMAC, v) for s in SMAC for v in VIDS}
check(set(per) == want, f"memif: extra {sorted(set(per) - want)[:3]}, missing {sorted(want - set(per))[:3]}")
check(set(per.values()) == {PASSES}, f"memif: per-tuple counts {per}")
check(sorted(x[3] for x in rx) == sorted(x[3] for x in tx), "memif: the tags that came back differ")
check(all(x[4] == "1" for x in rows), f"memif: bad checksums {[x for x in rows if x[4] != '1'][:3]}")
check({x[5] for x in rows} == {"68", "200"}, f"memif: lengths {sorted({x[5] for x in rows})}")
print(f"memif: {N} frames, {len(per)} MAC x VLAN tuples as asked, all back tagged")
srv.terminate()
srv.communicate(timeout=30)

# 2. vhostd, IPv6 and a tag
vs = os.path.join(D, "vh.sock")
vh = start([binary("vhostd"), "--iface", vs, "--duration", "600"] + A_CORE)
wait_for(lambda: os.path.exists(vs), what="vhostd socket")
r = nullgen(["--port", f"virtio_user,path={vs}", "--fwd", "measure", "--txpkts", "imix",
             "--flow-dst", "2001:db8::1-2001:db8::8", "--flow-vlan", "7-9", "--flow-dst-mac",
             "02:bb:00:00:00:00-02:bb:00:00:00:01:random", "--rate", "50Mbps", "--pattern", "poisson:3",
             "--count", "1200",
             "--max-loss", "0"])
measured(r, 1200, "vhostd")
print("vhostd: 1200 IPv6 frames with tags measured")
vh.terminate()
vh.communicate(timeout=30)

# 3. txonly, IPv6, one tag: the default flows stay (one for txonly)
cap = os.path.join(D, "tx6.pcapng")
r = nullgen(["--port", "null,no-rx=1", "--fwd", "txonly", "--txpkts", "64,1000", "--count", "400",
             "--flow-dst", "2001:db8::1-2001:db8::4", "--flow-vlan", "4094", "--rate", "100000",
             "--duration", "0.5", "--capture", f"0:tx:{cap}"])
check(r.returncode == 0, f"txonly: {r.stderr}")
rows = rows_of(cap, "vlan.id", "udp.checksum.status", "ipv6.dst", "frame.len")
check(len(rows) == 400 and all(x[0] == "4094" and x[1] == "1" for x in rows), f"txonly: {rows[:3]}")
check({x[2] for x in rows} == {f"2001:db8::{i}" for i in range(1, 5)}, f"txonly: {rows[:3]}")
check({x[3] for x in rows} == {"66", "1000"}, f"txonly: lengths {sorted({x[3] for x in rows})}")

# 4. bad values
for args, msg in ((["--flow-vlan", "4096"], "0..4095"),
                  (["--flow-src-mac", "02:00:00:00:00"], "expected a MAC address"),
                  (["--flow-dst-mac", "02:00:00:00:00:01-03:00:00:00:00:01"], "last 32 bits")):
    r = vftest.run([binary("nullgen"), "--port", "null", "--fwd", "txonly"] + args, timeout=30)
    err = [ln for ln in r.stderr.splitlines() if ln.strip()]
    check(r.returncode == 2 and len(err) == 1 and msg in err[0], f"{args}: exit {r.returncode}: {r.stderr}")
print("ok")
