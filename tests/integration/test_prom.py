"""--prom-file: the Prometheus text exposition, accepted by promtool; counters
match the JSON stats; the file is replaced atomically (never half-written).
Exit 77 (skip) without promtool (Debian: prometheus)."""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from vftest import binary, check, final_stats, run, start, tmpdir, wait_for  # noqa: E402

promtool = shutil.which("promtool")
if not promtool:
    print("SKIP: needs promtool (Debian package prometheus)")
    sys.exit(77)
vfwd = binary("vfwd")
nullgen = binary("nullgen")
d = tmpdir()


def metrics(path):
    """{(name, frozenset(labels)): value} and the families' TYPE lines."""
    vals, types = {}, {}
    for ln in open(path):
        ln = ln.rstrip("\n")
        m = re.match(r"# TYPE (\S+) (\S+)$", ln)
        if m:
            types[m.group(1)] = m.group(2)
            continue
        if not ln or ln.startswith("#"):
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', ln)
        check(m, f"bad sample line {ln!r}")
        labels = frozenset(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
        vals[(m.group(1), labels)] = float(m.group(4))
    return vals, types


def promcheck(path):
    r = subprocess.run([promtool, "check", "metrics"], stdin=open(path), capture_output=True, text=True)
    check(r.returncode == 0, f"promtool: {r.stdout} {r.stderr}\n{open(path).read()[:3000]}")


def get(vals, metric, **lab):
    want = {(k, str(v)) for k, v in lab.items()}
    hits = [v for (n, ls), v in vals.items() if n == metric and want <= ls]
    check(len(hits) == 1, f"{metric}{lab}: {len(hits)} samples")
    return hits[0]


# a one-shot run: ports, streams, xstats
pf = os.path.join(d, "vfwd.prom")
r = run([vfwd, "--port", "null", "--port", "null,size=128", "--duration", "0.5", "--stats-period", "0.1",
         "--prom-file", pf, "--json"])
check(r.returncode == 0, r.stderr)
promcheck(pf)
check(not [f for f in os.listdir(d) if ".tmp" in f], f"temporary files left: {os.listdir(d)}")
vals, types = metrics(pf)
s = final_stats(r.stdout)
for p in s["ports"]:
    lab = {"tool": "vfwd", "port": p["id"], "name": p["name"], "driver": "null"}
    check(get(vals, "vf_port_rx_packets_total", **lab) == p["ipackets"], "rx packets = JSON ipackets")
    check(get(vals, "vf_port_tx_bytes_total", **lab) == p["obytes"], "tx bytes = JSON obytes")
    check(get(vals, "vf_port_link_up", **lab) == 1, "link up")
    check(get(vals, "vf_port_xstat_total", xstat="rx_q0_packets", **lab) > 0, "driver xstats")
for st in s["streams"]:
    check(get(vals, "vf_stream_tx_packets_total", tool="vfwd", stream=st["id"]) == st["tx"], "stream tx")
for name, t in types.items():
    check(t != "counter" or name.endswith("_total"), f"counter {name} without _total")
    check(name.startswith("vf_"), f"{name}: no vf_ prefix")
check(types["vf_port_rx_packets_total"] == "counter" and types["vf_port_link_up"] == "gauge", f"{types}")

# the measuring mode: loss and latency per stream, against a memifctl
# reflector (measure refuses null ports: they make their own frames)
pf = os.path.join(d, "meas.prom")
msock = os.path.join(d, "m.sock")
refl = start([binary("memifctl"), "--role", "server", "--socket", msock, "--socket-abstract", "no",
              "--duration", "600", "-l", "0-1", "--main-lcore", "0"])
wait_for(lambda: os.path.exists(msock), what="memifctl listening")
r = run([nullgen, "--port", f"memif,role=client,socket={msock},socket-abstract=no", "-l", "0-1",
         "--main-lcore", "1", "--fwd", "measure", "--rate", "20000", "--count", "2000",
         "--prom-file", pf, "--json"])
refl.terminate()
refl.communicate(timeout=30)
check(r.returncode == 0, r.stderr)
promcheck(pf)
vals, types = metrics(pf)
m = final_stats(r.stdout)["measure"]["streams"][0]
check(get(vals, "vf_measure_sent_total", stream=0) == m["sent"] == 2000, f"sent {m}")
check(get(vals, "vf_measure_lost_total", stream=0) == m["lost"], "lost")
check(types["vf_measure_latency_seconds"] == "summary", f"{types}")
check(get(vals, "vf_measure_latency_seconds", stream=0, quantile="0.99") > 0, "p99 latency")
check(get(vals, "vf_measure_loss_ratio", stream=0) == m["loss_ratio"], "loss ratio")

# impair counters per stream
pf = os.path.join(d, "impair.prom")
r = run([vfwd, "--port", "null", "--port", "null", "--fwd", "impair", "--impair", "loss-every=10",
         "--duration", "0.3", "--prom-file", pf, "--json"])
check(r.returncode == 0, r.stderr)
promcheck(pf)
vals, _ = metrics(pf)
im = final_stats(r.stdout)["streams"][0]["impair"]
check(get(vals, "vf_stream_impair_dropped_loss_total", stream=0) == im["dropped_loss"], "impair counter")

# the shell: the file is written while the prompt waits, and at quit
pf = os.path.join(d, "shell.prom")
r = run([vfwd, "--port", "null", "--prom-file", pf], input="start\nstop\nquit\n")
check(r.returncode == 0, r.stderr)
promcheck(pf)
vals, _ = metrics(pf)
check(get(vals, "vf_fwd_running", tool="vfwd") == 0, "stopped at quit")

# a directory that cannot be written: a message, the run goes on
r = run([vfwd, "--port", "null", "--duration", "0.2", "--prom-file", "/nonexistent/x.prom"])
check(r.returncode == 0 and "cannot write --prom-file" in r.stderr, f"{r.returncode} {r.stderr}")
print("ok")
