"""pcapng capture read back with tshark: the exact packets of a txonly
stream (count, length, UDP ports, direction, interface name); the shell's
capture start/stop with a count; what the file holds is what the counters
say.  Exit 77 (skip) without tshark."""
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from vftest import binary, check, final_stats, run, tmpdir, wait_for  # noqa: E402

tshark = shutil.which("tshark")
if not tshark:
    print("SKIP: needs tshark")
    sys.exit(77)
vfwd = binary("vfwd")
nullgen = binary("nullgen")
d = tmpdir()


def packets(path):
    """One tuple per packet: (length, udp src port, udp dst port, direction, interface)."""
    r = subprocess.run([tshark, "-r", path, "-T", "fields", "-e", "frame.len", "-e", "udp.srcport",
                        "-e", "udp.dstport", "-e", "frame.packet_flags_direction",
                        "-e", "frame.interface_name"], capture_output=True, text=True)
    check(r.returncode == 0, f"tshark cannot read {path}: {r.stderr}")
    return [tuple(ln.split("\t")) for ln in r.stdout.splitlines()]


# one-shot: exactly the 100 frames of 128 bytes a txonly stream sent
f = os.path.join(d, "tx.pcapng")
r = run([nullgen, "--port", "null,no-rx=1", "--fwd", "txonly", "--txpkts", "128", "--count", "100",
         "--duration", "0.5", "--capture", f"0:tx:{f}", "--json"])
check(r.returncode == 0, r.stderr)
check(final_stats(r.stdout)["ports"][0]["opackets"] == 100, "sent 100")
pk = packets(f)
check(len(pk) == 100, f"{len(pk)} packets in the capture")
check(all(p[:3] == ("128", "9", "9") for p in pk), f"lengths and UDP ports: {set(pk)}")
check(all(p[3] == "0x00000002" for p in pk), f"direction outbound: {set(p[3] for p in pk)}")
check(all(p[4] == "null0" for p in pk), f"interface name: {set(p[4] for p in pk)}")
# timestamps: now-ish and in order
r2 = subprocess.run([tshark, "-r", f, "-T", "fields", "-e", "frame.time_epoch"], capture_output=True, text=True)
ts = [float(x) for x in r2.stdout.split()]
check(ts == sorted(ts) and abs(ts[0] - time.time()) < 3600, f"timestamps {ts[:3]}")

# The measure mode's frames, checked by tshark itself: the IPv4 and UDP
# checksums it keeps up to date word by word (RFC 1624) rather than summing
# each frame, over many flows (address and port change per frame) and an odd
# length (the padded last byte).
for length, flows in ((64, 200), (1001, 7)):
    f = os.path.join(d, f"meas{length}.pcapng")
    r = run([nullgen, "--port", "null,no-rx=1", "--fwd", "measure", "--txpkts", str(length),
             "--flows", str(flows), "--count", "3000", "--rate", "100000", "--duration", "0.5",
             "--capture", f"0:tx:{f}", "--json"])
    check(r.returncode in (0, 1), r.stderr)
    c = subprocess.run([tshark, "-r", f, "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
                        "-T", "fields", "-e", "ip.checksum.status", "-e", "udp.checksum.status",
                        "-e", "ip.src", "-e", "udp.srcport"], capture_output=True, text=True)
    rows = [ln.split("\t") for ln in c.stdout.splitlines()]
    check(len(rows) == 3000, f"measure {length} B: {len(rows)} frames captured")
    bad = [x for x in rows if x[0] != "1" or x[1] != "1"]
    check(not bad, f"measure {length} B, {flows} flows: checksums tshark calls bad: {bad[:3]}")
    check(len({(x[2], x[3]) for x in rows}) == flows, f"measure {length} B: {flows} flows seen")

# bad --capture arguments: exit 2 and what is expected
for bad in ["x:f", "0", "0:rx:", "99:f"]:
    r = run([vfwd, "--port", "null", "--duration", "0.1", "--capture", bad])
    check(r.returncode != 0 and "capture" in r.stderr, f"--capture {bad}: {r.returncode} {r.stderr}")

# the shell: rx of port 1 with a count; then both directions unbounded,
# where the file holds exactly what the counters report
p = subprocess.Popen([vfwd, "--port", "null", "--port", "null"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)


def sh_json(line):
    p.stdin.write(line + " json\n")
    p.stdin.flush()
    out = p.stdout.readline()
    check(out, f"vfwd died: {p.stderr.read() if p.poll() is not None else ''}")
    return json.loads(out)


f2 = os.path.join(d, "rx.pcapng")
p.stdin.write(f"capture start 1 rx {f2} count 40\nstart\n")
p.stdin.flush()
wait_for(lambda: sh_json("show capture")["packets"] == 40, what="40 packets captured")
c = sh_json("capture stop")
check(c["packets"] == 40 and c["file"] == f2 and c["running"] is False and c["direction"] == "rx", f"{c}")
pk = packets(f2)
check(len(pk) == 40 and all(x[0] == "64" and x[3] == "0x00000001" and x[4] == "null1" for x in pk),
      f"rx capture {pk[:3]}")
f3 = os.path.join(d, "both.pcapng")
p.stdin.write(f"capture start 0 both {f3}\n")
p.stdin.flush()
wait_for(lambda: sh_json("show capture")["packets"] > 1000, what="some packets captured")
c = sh_json("capture stop")
pk = packets(f3)
check(len(pk) == c["packets"], f"file holds {len(pk)}, counters say {c}")
check({x[3] for x in pk} == {"0x00000001", "0x00000002"}, f"both directions {set(x[3] for x in pk)}")
p.stdin.write("capture stop\nstop\nquit\n")      # a second stop: an error, not a crash
p.stdin.flush()
out, err = p.communicate(timeout=60)
check(p.returncode == 0 and "no capture is running" in err, f"{p.returncode} {err}")
print("ok")
