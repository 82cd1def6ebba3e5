"""One-shot runs on null ports: JSON schema, counts, modes, generators,
periodic stats and the stats file, signals, two instances at once, nothing
left under /var/run/dpdk."""
import glob
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(__file__))
from vftest import (binary, check, final_stats, json_lines, port, run,  # noqa: E402
                    spawned, start, tmpdir)

vfwd = binary("vfwd")
nullgen = binary("nullgen")
PORT_KEYS = {"id", "name", "driver", "link", "ipackets", "opackets", "ibytes", "obytes",
             "imissed", "ierrors", "oerrors", "rx_nombuf", "rx_pps", "tx_pps", "rx_bps", "tx_bps"}


def rundirs():
    return set(glob.glob("/var/run/dpdk/vf-*")) | set(
        glob.glob(os.path.expanduser("~/.local/run/dpdk/vf-*")))


before = rundirs()

# nullgen with no ports: two null ports, io, raw speed of the framework
r = run([nullgen, "--duration", "1", "--json"])
check(r.returncode == 0, f"nullgen exit {r.returncode}: {r.stderr}")
s = final_stats(r.stdout)
check(len(json_lines(r.stdout)) == 1, "without --stats-period only the final line")
check(s["tool"] == "nullgen" and s["mode"] == "io", f"bad header {s}")
check(0.9 <= s["elapsed"] <= 5, f"elapsed {s['elapsed']}")
check(len(s["ports"]) == 2, "two ports")
for p in s["ports"]:
    check(set(p) == PORT_KEYS, f"port keys {sorted(p)}")
    check(p["driver"] == "null" and p["link"] == "up", f"port {p}")
    check(p["ipackets"] > 0 and p["ibytes"] == 64 * p["ipackets"], f"rx counts {p}")
    check(p["rx_pps"] > 0 and abs(p["rx_pps"] * s["elapsed"] - p["ipackets"]) <= 0.01 * p["ipackets"] + 1,
          f"final rx_pps is not the run average: {p}")
p0, p1 = port(s, 0), port(s, 1)
st = {x["id"]: x for x in s["streams"]}
check(len(st) == 2 and st[0]["rx_port"] == 0 and st[0]["tx_port"] == 1 and st[1]["tx_port"] == 0,
      f"streams {s['streams']}")
# io: what port 0 received went out of port 1
check(st[0]["rx"] == p0["ipackets"] and st[0]["tx"] + st[0]["dropped"] == st[0]["rx"], f"{st[0]} {p0}")
check(p1["opackets"] == st[0]["tx"], f"port 1 tx {p1['opackets']} != stream 0 tx {st[0]['tx']}")
check(sum(int(k) * v for k, v in st[0]["rx_bursts"].items()) == st[0]["rx"], "burst histogram sums to rx")
check(s["fwd"]["rx"] == st[0]["rx"] + st[1]["rx"], "fwd totals")

# vfwd the same way; one port forwards to itself
r = run([vfwd, "--port", "null", "--port", "null", "--fwd", "io", "--duration", "1", "--json"])
check(r.returncode == 0, f"vfwd exit {r.returncode}: {r.stderr}")
s = final_stats(r.stdout)
check(s["tool"] == "vfwd" and len(s["ports"]) == 2, "vfwd two ports")
r = run([vfwd, "--port", "null,size=128", "--duration", "0.5", "--json"])
s = final_stats(r.stdout)
check(s["streams"][0]["tx_port"] == 0 and port(s, 0)["obytes"] == 128 * port(s, 0)["opackets"],
      f"one port to itself: {s}")

# every mode runs; generators emit exactly --count packets of --txpkts bytes
for mode in ["io", "mac", "macswap", "rxonly", "icmpecho", "5tswap"]:
    r = run([vfwd, "--port", "null,copy=1", "--port", "null", "--fwd", mode,
             "--duration", "0.3", "--json"])
    check(r.returncode == 0, f"mode {mode}: exit {r.returncode} {r.stderr}")
    s = final_stats(r.stdout)
    check(s["mode"] == mode and port(s, 0)["ipackets"] > 0, f"mode {mode}: {s['ports']}")
    if mode == "rxonly":
        check(port(s, 1)["opackets"] == 0, "rxonly sends nothing")
    if mode == "icmpecho":
        # null frames are zeros: neither ARP nor ICMP, so all dropped
        check(port(s, 1)["opackets"] == 0 and s["fwd"]["dropped"] == s["fwd"]["rx"], "icmpecho drops")
for mode in ["txonly", "flowgen"]:
    r = run([vfwd, "--port", "null,no-rx=1", "--fwd", mode, "--count", "1000", "--txpkts", "100",
             "--burst", "64", "--duration", "0.5", "--json"])
    check(r.returncode == 0, f"{mode}: {r.stderr}")
    p = port(final_stats(r.stdout), 0)
    check(p["opackets"] == 1000 and p["obytes"] == 100000 and p["ipackets"] == 0, f"{mode} --count: {p}")
r = run([vfwd, "--port", "null,no-rx=1", "--port", "null,no-rx=1", "--fwd", "txonly", "--tx-first",
         "--count", "10", "--duration", "0.3", "--json"])
s = final_stats(r.stdout)
check(port(s, 0)["opackets"] == 10 + 32 and port(s, 1)["opackets"] == 42, f"--tx-first adds one burst: {s['ports']}")
r = run([vfwd, "--port", "null", "--port", "null", "--fwd", "io", "--tx-first", "--duration", "0.3", "--json"])
check(r.returncode == 0, "io --tx-first")
r = run([vfwd, "--port", "null", "--fwd", "mac", "--eth-peer", "0,02:11:22:33:44:55", "--duration", "0.2"])
check(r.returncode == 0 and "rx-pkts" in r.stdout and "{" not in r.stdout, "text mode output")

# rate limiter: paced generation is far below the unpaced rate (figures in bench/)
r = run([nullgen, "--port", "null,no-rx=1", "--fwd", "txonly", "--rate", "1000", "--duration", "1", "--json"])
s = final_stats(r.stdout)
p = port(s, 0)
# at most rate x time plus the bucket's depth (max(rate/20, burst)) and a burst
check(0 < p["opackets"] <= 1000 * s["elapsed"] + 50 + 32, f"--rate 1000 for 1 s sent {p['opackets']}")

# multi-queue: one stream per queue
r = run([vfwd, "--port", "null", "--port", "null", "--rxq", "2", "--txq", "2", "--duration", "0.3", "--json"])
s = final_stats(r.stdout)
check(len(s["streams"]) == 4 and {x["rx_queue"] for x in s["streams"]} == {0, 1}, f"mq streams {s['streams']}")

# periodic stats, the stats file gets the same lines
d = tmpdir()
sf = os.path.join(d, "stats.jsonl")
r = run([nullgen, "--duration", "1.2", "--stats-period", "0.25", "--json", "--stats-file", sf])
lines = json_lines(r.stdout)
check(len(lines) >= 4 and all(x["final"] is False for x in lines[:-1]) and lines[-1]["final"] is True,
      f"{len(lines)} lines")
check(all(x["ports"][0]["rx_pps"] > 0 for x in lines[1:-1]), "periodic rates")
check(open(sf).read() == r.stdout, "stats file differs from stdout")

# SIGINT / SIGTERM: forwarding stops, final stats, exit 0
for sig in (signal.SIGINT, signal.SIGTERM):
    p = start([nullgen, "--json", "--stats-period", "0.2"])
    first = p.stdout.readline()          # forwarding runs once a line is out
    check(json_lines(first)[0]["final"] is False, "periodic line before the signal")
    p.send_signal(sig)
    out, err = p.communicate(timeout=30)
    check(p.returncode == 0, f"signal {sig}: exit {p.returncode} {err}")
    check(final_stats(first + out)["final"] is True, "final after signal")

# two instances started at the same moment never collide
ps = [start([nullgen, "--duration", "1", "--json", "-l", "0-1"]) for _ in range(2)]
for p in ps:
    out, err = p.communicate(timeout=30)
    check(p.returncode == 0, f"concurrent instance failed: {err}")
    final_stats(out)

# nothing left behind under /var/run/dpdk by the processes this test ran
# (others may come and go on a shared machine)
left = [d for d in rundirs() - before if int(os.path.basename(d).split("-")[2]) in spawned]
check(not left, f"left behind: {left}")
print("ok")
