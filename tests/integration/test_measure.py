"""The measure mode and the throughput search against real peers.

1. nullgen <-> memifctl (mac reflector) over memif (one queue, then two): --count N comes back
   exactly, no loss, duplicate or reordering; latency figures and the
   histogram agree with the counts; --hist-file is HdrHistogram text;
   --max-loss met (exit 0), --max-latency missed (exit 1, says by how much);
   the drain ends once every frame is back (a --drain-ms of a minute is
   not waited out), and is waited out in full when frames are missing.
2. memifctl generating its own frames and not reflecting ours: its frames
   are counted as foreign, ours as lost; --max-loss missed exits 1.
3. Send on A, receive on B: nullgen's two memif ports through vfwd io
   between two memif server ports; each stream's frames come back on the
   other port, exactly; with --one-way only port 0 sends.
4. nullgen <-> vhostd over virtio_user: exact counts.
5. --search (MLRsearch) against memifctl: the tester's limit first, NDJSON
   rows per trial with the tester-limited flag, NDR and PDR goals with
   bounds, regularity and conditional throughput, latency at min/10/50/90 %
   of PDR.
The two busy-polling processes forward on different cores."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import vftest  # noqa: E402
from vftest import binary, check, final_stats, json_lines, start, tmpdir, wait_for  # noqa: E402

D = tmpdir()
A_CORE = ["-l", "0-1", "--main-lcore", "0"]   # forwards on core 1
B_CORE = ["-l", "0-1", "--main-lcore", "1"]   # forwards on core 0


def memif(role, sock, extra=""):
    return f"memif,role={role},socket={sock},socket-abstract=no{extra}"


def nullgen(args, timeout=90):
    return vftest.run([binary("nullgen")] + B_CORE + args + ["--json"], timeout=timeout)


def reflector(sock, args=()):
    p = start([binary("memifctl"), "--role", "server", "--socket", sock, "--socket-abstract", "no",
               "--duration", "600"] + A_CORE + list(args))
    wait_for(lambda: os.path.exists(sock), what=f"{sock} listening")
    return p


def meas(stats):
    check("measure" in stats, f"no measure object in {list(stats)}")
    return stats["measure"]


def stop(p):
    p.terminate()
    p.communicate(timeout=30)


# 1. reflected over memif
sock = os.path.join(D, "m1.sock")
srv = reflector(sock)
hist = os.path.join(D, "lat.hdr")
N = 5000
r = nullgen(["--port", memif("client", sock), "--fwd", "measure", "--rate", "20000", "--count", str(N),
             "--max-loss", "0", "--hist-file", hist])
check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
m = meas(final_stats(r.stdout))
s = m["streams"][0]
check(s["sent"] == N and s["received"] == N and s["lost"] == 0, f"counts {s}")
check(s["duplicates"] == 0 and s["reordered"] == 0 and s["loss_ratio"] == 0, f"{s}")
check(s["tx_port"] == 0 and s["rx_port"] == 0, f"ports {s}")
lat = s["latency_us"]
check(0 < lat["min"] <= lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["p99_9"] <= lat["max"], f"{lat}")
check(lat["min"] <= lat["avg"] <= lat["max"] and lat["jitter"] >= 0, f"{lat}")
check(sum(c for _, c in s["hist_ns"]) == N, "histogram total != received")
check(m["foreign"] == 0 and m["corrupt"] == 0 and m["stale"] == 0, f"{m}")
check(m["total"]["sent"] == N, f"total {m['total']}")
rows = [ln.split() for ln in open(hist) if ln.strip() and not ln.startswith("#")]
check(rows[0] == ["Value", "Percentile", "TotalCount", "1/(1-Percentile)"], f"header {rows[0]}")
check(int(rows[-1][2]) == N and float(rows[-1][1]) == 1.0, f"last line {rows[-1]}")
check(abs(float(rows[-1][0]) - lat["max"]) < 0.01, f"max {rows[-1][0]} vs {lat['max']}")
# the periodic lines carry the same object
r = nullgen(["--port", memif("client", sock), "--fwd", "measure", "--rate", "20000", "--duration", "1",
             "--stats-period", "0.3", "--max-latency", "50:0.001"])
check(r.returncode == 1, f"missed --max-latency must exit 1, got {r.returncode}: {r.stderr}")
check("p50 latency" in r.stderr and "exceeds --max-latency 50:0.001 by" in r.stderr, r.stderr)
objs = json_lines(r.stdout)
check(len(objs) >= 3 and all("measure" in o for o in objs), "periodic lines without measure")
check(objs[-2]["measure"]["streams"][0]["received"] > 0, "periodic line saw nothing")
# text output: one table row per stream
r = vftest.run([binary("nullgen")] + B_CORE + ["--port", memif("client", sock), "--fwd", "measure",
                                               "--rate", "20000", "--count", "1000"], timeout=60)
check(r.returncode == 0, r.stderr)
hdr = [ln for ln in r.stdout.splitlines() if ln.split()[:2] == ["stream", "path"]]
row = [ln.split() for ln in r.stdout.splitlines() if ln.split()[:2] == ["0", "0->0"]]
check(hdr and row and [x.replace(",", "") for x in row[0][2:5]] == ["1000", "1000", "0"], f"text table:\n{r.stdout}")
# the drain ends 10 ms after everything sent is back: a --drain-ms of a
# minute is not waited out (the run is given 30 s)
t0 = time.monotonic()
try:
    r = nullgen(["--port", memif("client", sock), "--fwd", "measure", "--rate", "20000",
                 "--count", "1000", "--drain-ms", "60000"], timeout=30)
except subprocess.TimeoutExpired:
    check(False, "--drain-ms 60000 was waited out with every frame back")
s = meas(final_stats(r.stdout))["streams"][0]
check(r.returncode == 0 and s["received"] == 1000 and s["lost"] == 0, f"{r.stderr} {s}")
print(f"--count 1000 with --drain-ms 60000, all back: {time.monotonic() - t0:.2f} s")
stop(srv)

# 1b. two queues: a stream per queue, each exact
srv = reflector(sock, ["--queues", "2", "--rxq", "2", "--txq", "2"])
r = nullgen(["--port", memif("client", sock), "--rxq", "2", "--txq", "2", "--fwd", "measure",
             "--rate", "40000", "--count", str(N)])
check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
m = meas(final_stats(r.stdout))
check(sorted(s["tx_queue"] for s in m["streams"]) == [0, 1], f"{m['streams']}")
for st in m["streams"]:
    check(st["sent"] == N and st["received"] == N and st["lost"] == 0, f"queue stream {st}")
check(m["total"]["received"] == 2 * N, f"total {m['total']}")
stop(srv)

# 2. a peer that sends its own frames and never reflects ours
sock2 = os.path.join(D, "m2.sock")
gen = reflector(sock2, ["--fwd", "txonly", "--rate", "20000"])
# nothing comes back: the drain is waited out in full
t0 = time.monotonic()
r = nullgen(["--port", memif("client", sock2), "--fwd", "measure", "--rate", "20000", "--duration", "1",
             "--max-loss", "0.5", "--drain-ms", "2000"])
check(r.returncode == 1 and "exceeds --max-loss 0.5" in r.stderr, f"exit {r.returncode}: {r.stderr}")
check(time.monotonic() - t0 >= 3.0, f"a run of 1 s with a drain of 2 s, frames missing, "
      f"ended after {time.monotonic() - t0:.2f} s")
m = meas(final_stats(r.stdout))
s = m["streams"][0]
check(s["sent"] > 0 and s["received"] == 0 and s["lost"] == s["sent"] and s["loss_ratio"] == 1, f"{s}")
check(m["foreign"] > 1000 and m["corrupt"] == 0, f"foreign frames {m}")
check(s["latency_us"] == {}, f"no latency without samples: {s}")
stop(gen)

# 3. send on A, receive on B through vfwd io
s1, s2 = os.path.join(D, "a.sock"), os.path.join(D, "b.sock")
fwd = start([binary("vfwd"), "--port", memif("server", s1), "--port", memif("server", s2),
             "--fwd", "io", "--duration", "600"] + A_CORE)
wait_for(lambda: os.path.exists(s1) and os.path.exists(s2), what="vfwd sockets")
r = nullgen(["--port", memif("client", s1), "--port", memif("client", s2), "--fwd", "measure",
             "--rate", "40000", "--count", str(N)])
check(r.returncode == 0, r.stderr)
m = meas(final_stats(r.stdout))
check(len(m["streams"]) == 2, f"{m['streams']}")
for st in m["streams"]:
    check(st["sent"] == N and st["received"] == N and st["lost"] == 0, f"stream {st}")
    check(st["rx_port"] == 1 - st["tx_port"], f"came back on the other port: {st}")
# --one-way: only port 0 sends, port 1 only receives
r = nullgen(["--port", memif("client", s1), "--port", memif("client", s2), "--fwd", "measure",
             "--one-way", "--rate", "40000", "--count", str(N)])
check(r.returncode == 0, r.stderr)
fin = final_stats(r.stdout)
m = meas(fin)
snd = [st for st in m["streams"] if st["sent"]]
check(len(snd) == 1 and snd[0]["tx_port"] == 0 and snd[0]["rx_port"] == 1 and
      snd[0]["received"] == N and snd[0]["lost"] == 0, f"one-way streams {m['streams']}")
check(fin["ports"][0]["opackets"] == N and fin["ports"][1]["opackets"] == 0 and
      fin["ports"][1]["ipackets"] == N, f"one-way ports {fin['ports']}")
stop(fwd)

# 4. virtio_user <-> vhostd
vs = os.path.join(D, "vh.sock")
vh = start([binary("vhostd"), "--iface", vs, "--duration", "600"] + A_CORE)
wait_for(lambda: os.path.exists(vs), what="vhostd socket")
r = nullgen(["--port", f"virtio_user,path={vs}", "--fwd", "measure", "--rate", "20000", "--count", str(N)])
check(r.returncode == 0, r.stderr)
s = meas(final_stats(r.stdout))["streams"][0]
check(s["sent"] == N and s["received"] == N and s["lost"] == 0 and s["duplicates"] == 0, f"{s}")
stop(vh)

# 5. the search (MLRsearch), short trials
sock5 = os.path.join(D, "m5.sock")
srv = reflector(sock5)
r = nullgen(["--port", memif("client", sock5), "--fwd", "measure", "--search", "--trial", "0.2",
             "--precision", "0.05"], timeout=170)
check(r.returncode == 0, f"search exit {r.returncode}: {r.stderr}")
objs = json_lines(r.stdout)
trials = [o for o in objs if "trial" in o]
res = objs[-1]
check(res.get("final") is True and "search" in res, f"result {res}")
se = res["search"]
# the limit trial counts as a trial at the max load: when the reflector
# passes at nullgen's own limit (a slow ASan host), one more trial there
# makes it the lower bound of both goals and the search ends, irregular
check(se["method"] == "mlrsearch" and se["trials"] == len(trials) and len(trials) >= 6,
      f"{len(trials)} trials, result says {se['trials']}")
if len(trials) == 6:
    check(all("max-load-is-lower-bound" in g["irregular"] and g["tester_limited"]
              for g in se["goals"]), f"one search trial, yet not at the max load: {se['goals']}")
check(trials[0]["phase"] == "limit" and trials[0]["rate_pps"] == 0, f"first trial {trials[0]}")
phases = [t["phase"] for t in trials]
check(set(phases[-4:]) == {"lat min", "lat 10%", "lat 50%", "lat 90%"}, f"phases {phases}")
check(set(phases[1:-4]) <= {"NDR", "PDR"} and len(phases) > 5, f"phases {phases}")
for t in trials:
    # frames the load owed while the ring stayed full are the device's loss
    check(t["lost"] == t["sent"] - t["received"] + t["refused"] and t["sent"] > 0, f"trial {t}")
    check(not t["refused"] or t["blocked_ms"] > 0, f"refused without a full ring: {t}")
    want = t["rate_pps"] * t["effective_s"]   # the rule: 1 % and two bursts short (away from its edge)
    if t["rate_pps"] and t["sent"] + t["refused"] < want * 0.98 - 64:
        check(t["tester_limited"], f"short trial not flagged tester-limited: {t}")
    if not t["rate_pps"] or t["sent"] >= want * 0.995:
        check(not t["tester_limited"], f"full trial flagged tester-limited: {t}")
check(se["tester_limit_pps"] == trials[0]["tx_pps"] and se["max_rate"] == se["tester_limit_pps"],
      f"tester limit {se['tester_limit_pps']}, max {se['max_rate']}")
goals = {g["name"]: g for g in se["goals"]}
check(set(goals) == {"NDR", "PDR"}, f"goals {list(goals)}")
for g in goals.values():
    check(g["width"] == 0.05 and g["final_trial_s"] == 0.2 and abs(g["duration_sum_s"] - 0.6) < 1e-9,
          f"goal {g}")
    check(g["regular"] == (g["irregular"] == ""), f"goal {g}")
    if g["regular"]:
        # the search stops at a width of exactly 5 % as often as below it:
        # allow the last bits of rounding (CI saw 96785.566 > 96785.566)
        check(g["upper_pps"] - g["lower_pps"] <= 0.05 * g["upper_pps"] * (1 + 1e-9), f"goal {g}")
        check(g["conditional_throughput_pps"] <= g["lower_pps"], f"goal {g}")
    if "lower_pps" in g and g["lower_pps"] >= 0.98 * se["tester_limit_pps"]:
        check(g["tester_limited"] and not g["regular"], f"at the tester's limit, not flagged: {g}")
ndr, pdr = goals["NDR"], goals["PDR"]
check("lower_pps" in pdr, f"PDR found nothing: {pdr}")
check(ndr.get("lower_pps", 0) <= pdr["lower_pps"], f"ndr {ndr} pdr {pdr}")
loads = {x["load"]: x for x in se["latency"]}
check(set(loads) == {"min", "10%", "50%", "90%"}, f"latency loads {list(loads)}")
check(loads["50%"]["rate_pps"] == int(pdr["lower_pps"] * 0.5), f"{loads['50%']}")
for x in loads.values():
    check(x["latency_us"]["min"] > 0 and x["latency_us"]["max"] >= x["latency_us"]["p50"], f"{x}")
print(f"search: NDR {ndr.get('lower_pps')} PDR {pdr['lower_pps']} pps, tester "
      f"{se['tester_limit_pps']:.0f} pps, {se['trials']} trials in {se['elapsed']:.1f} s")
stop(srv)
print("ok")
