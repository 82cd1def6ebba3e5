"""Text output for people, JSON unchanged, DPDK quiet by default.

Text: a summary line, one aligned table row per port and per stream, human
units; --stats-period prints one line per period under a heading; the first
`show port stats` has rates since start.  stderr holds no DPDK log line
without -v."""
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from vftest import binary, check, final_stats, run  # noqa: E402

vfwd = binary("vfwd")
nullgen = binary("nullgen")


def dpdk_lines(err):
    """Lines of DPDK's own logging (EAL:, TELEMETRY:, PMD and friends)."""
    return [ln for ln in err.splitlines() if re.match(r"^[A-Z_]+: ", ln)]


# the example: nothing from DPDK on a plain run
r = run([vfwd, "--port", "null", "--port", "null", "--duration", "0.5"])
check(r.returncode == 0, r.stderr)
check(dpdk_lines(r.stderr) == [], f"DPDK lines without -v: {r.stderr!r}")
lines = r.stdout.splitlines()
# one summary line first
check(re.fullmatch(r"forwarded [\d.]+( [kMGT])? packets in [\d.]+ s: [\d.]+ [kM]?pps, [\d,]+ dropped",
                   lines[0]), f"summary line {lines[0]!r}")
# the port table: a heading, then a row per port
head = [i for i, ln in enumerate(lines) if ln.split()[:5] == ["port", "name", "driver", "link", "rx-pkts"]]
check(len(head) == 1, f"one port table heading:\n{r.stdout}")
rows = [ln.split() for ln in lines[head[0] + 1:head[0] + 3]]
check([x[:4] for x in rows] == [["0", "null0", "null", "up"], ["1", "null1", "null", "up"]],
      f"port rows:\n{r.stdout}")
# aligned: every row as long as... the columns line up under the heading
hl = lines[head[0]]
for ln in lines[head[0] + 1:head[0] + 3]:
    check(len(ln) == len(hl), f"row not aligned with its heading:\n{hl}\n{ln}")
# digits grouped, rates in Mpps/kpps, no long float
check(re.search(r"\d{1,3}(,\d{3})+", r.stdout), f"grouped digits:\n{r.stdout}")
check(re.search(r"[\d.]+ [kM]pps", lines[head[0] + 1]), f"rate unit:\n{r.stdout}")
check(not re.search(r"\d+\.\d{4,}", r.stdout), f"long floats in text:\n{r.stdout}")
check(lines[-1].startswith("total: rx "), f"last line {lines[-1]!r}")

# four ports fit in one screen (24 lines), streams included
r = run([vfwd] + ["--port", "null"] * 4 + ["--duration", "0.3"])
check(r.returncode == 0, r.stderr)
n = len(r.stdout.splitlines())
check(n <= 24, f"four ports take {n} lines:\n{r.stdout}")

# -v: DPDK's own lines are back (on stderr, never on stdout)
r = run([vfwd, "--port", "null", "--duration", "0.2", "-v"])
check(r.returncode == 0 and dpdk_lines(r.stderr), f"-v shows DPDK logs: {r.stderr!r}")
check(dpdk_lines(r.stdout) == [], f"DPDK lines on stdout: {r.stdout!r}")

# errors are still shown without -v
r = run([vfwd, "--port", "null", "--duration", "0.2", "--eal", "--no-such-eal-option"])
check(r.returncode != 0 and r.stderr.strip(), f"EAL error shown: {r.returncode} {r.stderr!r}")

# JSON: the same keys as ever
r = run([vfwd, "--port", "null", "--port", "null", "--duration", "0.3", "--json"])
s = final_stats(r.stdout)
check(list(s)[:5] == ["tool", "time", "elapsed", "final", "mode"], f"top keys {list(s)}")
check(list(s["ports"][0]) == ["id", "name", "driver", "link", "ipackets", "opackets", "ibytes", "obytes",
                              "imissed", "ierrors", "oerrors", "rx_nombuf", "rx_pps", "tx_pps", "rx_bps",
                              "tx_bps"], f"port keys {list(s['ports'][0])}")
check(list(s["streams"][0]) == ["id", "rx_port", "rx_queue", "tx_port", "tx_queue", "lcore", "rx", "tx",
                                "dropped", "tx_retries", "rx_bursts"], f"stream keys {list(s['streams'][0])}")
check(set(s["fwd"]) == {"rx", "tx", "dropped"}, f"fwd {s['fwd']}")

# text --stats-period: one line per period under one heading
r = run([nullgen, "--duration", "1", "--stats-period", "0.2"])
check(r.returncode == 0, r.stderr)
lines = r.stdout.splitlines()
check(lines[0].split()[:3] == ["time", "rx-rate", "tx-rate"], f"period heading {lines[:2]}")
period = []
for ln in lines[1:]:
    if ln.startswith(nullgen.split("/")[-1]) or ln.startswith(("forwarded", "sent", "received")):
        break
    period.append(ln)
check(period and all(re.match(r"^ *[\d.]+ +[\d.]+ [kM]?pps", x) for x in period), f"period lines {period}")
check(sum(1 for ln in lines if ln.split()[:2] == ["time", "rx-rate"]) == 1, "one heading for a few lines")

# shell: the first show port stats has rates since start; text is a table
p = subprocess.Popen([vfwd, "--port", "null", "--port", "null"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
p.stdin.write("start\n")
p.stdin.flush()
time.sleep(0.3)
p.stdin.write("show port stats all json\n")
p.stdin.flush()
st = json.loads(p.stdout.readline())
check(all(x["rx_pps"] > 0 and x["tx_bps"] > 0 for x in st["ports"]), f"first show: rates since start {st}")
p.stdin.write("show port stats all\n")
p.stdin.flush()
hl = p.stdout.readline()
check(hl.split()[:2] == ["port", "name"], f"show port stats heading {hl!r}")
rows = [p.stdout.readline().split() for _ in range(2)]
check([x[0] for x in rows] == ["0", "1"], f"show port stats rows {rows}")
p.stdin.write("stop\nquit\n")
out, err = p.communicate(timeout=60)
check(p.returncode == 0, err)
check(dpdk_lines(err) == [], f"shell stderr {err!r}")
print("ok")
