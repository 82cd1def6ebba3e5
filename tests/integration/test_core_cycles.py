"""--record-core-cycles and `set record-core-cycles`: each stream's polls are
timed, and the stream statistics say how much of the polling time moved
packets and how many busy cycles each packet cost (testpmd's
record-core-cycles).  Checked end to end on real forwarding: a forwarder
whose every poll finds packets is busy nearly all the time, a generator
paced at 2000 packets/s mostly waits, the figures agree with each other and
with the packet counts, and they are absent when not asked for; across a
real memif link (memifctl reflecting a paced vfwd generator) both sides
report them and both mostly wait."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from vftest import binary, check, final_stats, start, tmpdir, wait_for  # noqa: E402

vfwd = binary("vfwd")


def final(args):
    r = subprocess.run([vfwd, *args, "--duration", "1", "--json"], capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 0, f"{args}: exit {r.returncode}: {r.stderr}")
    objs = [json.loads(ln) for ln in r.stdout.splitlines() if ln.startswith("{")]
    check(objs and objs[-1].get("final"), f"{args}: no final object: {r.stdout[-500:]}")
    return objs[-1]


def cycles(st, what):
    for k in ("poll_cycles", "busy_cycles", "busy_pct", "cycles_per_pkt"):
        check(k in st, f"{what}: stream lacks {k}: {st}")
    check(0 < st["busy_cycles"] <= st["poll_cycles"], f"{what}: busy {st}")
    check(abs(st["busy_pct"] - 100.0 * st["busy_cycles"] / st["poll_cycles"]) < 1e-6, f"{what}: pct {st}")
    pkts = st["rx"] or st["tx"]
    check(pkts > 0 and abs(st["cycles_per_pkt"] - st["busy_cycles"] / pkts) < 1e-6 * st["cycles_per_pkt"] + 1e-9,
          f"{what}: per packet {st}")
    return st["busy_pct"]


# Off by default: no field, no cost.
off = final(["--port", "null", "--port", "null"])
check(all("poll_cycles" not in s for s in off["streams"]), f"cycles without the option: {off['streams']}")

# io between two null ports: every poll moves a full burst.
fwd = final(["--port", "null", "--port", "null", "--record-core-cycles"])
busy_fwd = min(cycles(s, "io") for s in fwd["streams"])

# A paced generator: a few polls in a thousand send anything.
gen = final(["--port", "null", "--fwd", "txonly", "--rate", "2000", "--record-core-cycles"])
busy_gen = cycles(gen["streams"][0], "txonly")
check(gen["streams"][0]["tx"] > 0 and gen["streams"][0]["rx"] == 0, f"txonly counts {gen['streams'][0]}")
check(busy_gen < busy_fwd, f"a generator at 2000 pps is not busier than io forwarding: {busy_gen} vs {busy_fwd}")
check(busy_gen < 50.0, f"a generator at 2000 pps busy {busy_gen} % of the time")

# Both ends of a real memif link: memifctl reflects (mac) what a vfwd
# client generates at 2000 packets/s; each side times its polls, and at that
# rate each spends most of its polling time finding nothing.
sock = os.path.join(tmpdir(), "m.sock")
srv = start([binary("memifctl"), "-l", "0-1", "--main-lcore", "0", "--role", "server", "--socket", sock,
             "--socket-abstract", "no", "--fwd", "mac", "--duration", "4", "--json", "--record-core-cycles"])
wait_for(lambda: os.path.exists(sock), what=f"{sock} listening")
cl = final(["-l", "0-1", "--main-lcore", "1", "--port", f"memif,role=client,socket={sock},socket-abstract=no",
            "--fwd", "txonly", "--rate", "2000", "--record-core-cycles"])
out, err = srv.communicate(timeout=60)
check(srv.returncode == 0, f"memifctl exit {srv.returncode}: {err}")
sv = final_stats(out)["streams"][0]
# (txonly does not read its rx ring, so once the client's 1024 buffers are
# filled memifctl's replies are dropped: only that some went back counts)
check(sv["rx"] > 0 and sv["tx"] > 0, f"memifctl reflected nothing: {sv}")
check(cycles(sv, "memifctl server") < 50.0, f"memifctl reflecting 2000 pps busy: {sv}")
check(cycles(cl["streams"][0], "vfwd memif client") < 50.0, f"client at 2000 pps busy: {cl['streams'][0]}")

# The shell: set while stopped, shown in the config and the stream stats
# (text and JSON), cleared with the other stream counters.
p = subprocess.Popen([vfwd, "--port", "null", "--port", "null"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)


def ask(line):
    """Sends a command ending in json; returns its JSON line (text output of
    earlier commands, e.g. stop's table, is skipped and returned too)."""
    p.stdin.write(line + "\n")
    p.stdin.flush()
    skipped = []
    while True:
        ln = p.stdout.readline()
        check(ln != "", f"vfwd exited at {line!r}: {''.join(skipped)}")
        if ln.startswith("{"):
            return json.loads(ln), "".join(skipped)
        skipped.append(ln)


cfg, _ = ask("show config fwd json")
check(cfg["record_core_cycles"] is False, f"default {cfg}")
cfg, _ = ask("set record-core-cycles on\nshow config fwd json")
check(cfg["record_core_cycles"] is True, f"after set on: {cfg}")
p.stdin.write("start\n")
p.stdin.flush()
ask("show config runtime json")
time.sleep(0.5)
st, _ = ask("show fwd stats all json")
check(all(s["poll_cycles"] > 0 for s in st["streams"]), f"running: {st['streams']}")
ask("stop\nshow config runtime json")
st, _ = ask("show fwd stats all json")
before = st["streams"][0]["poll_cycles"]
cycles(st["streams"][0], "shell")
p.stdin.write("show fwd stats all\n")
p.stdin.flush()
_, text = ask("show config runtime json")
check("stream 0 cycles:" in text and "% of polling time busy" in text and "busy cycles per packet" in text,
      f"text stats lack the cycles line: {text}")
st, _ = ask("clear fwd stats all\nshow fwd stats all json")
check(all("poll_cycles" not in s for s in st["streams"]), f"after clear: {st['streams']} (before {before})")
p.stdin.write("set record-core-cycles maybe\nquit\n")
p.stdin.flush()
_, err = p.communicate(timeout=30)
check(p.returncode == 0, f"exit {p.returncode}")
check("bad argument 'maybe' for 'set record-core-cycles'" in err, f"bad value not refused: {err}")
print("ok")
