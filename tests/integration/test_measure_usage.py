"""What a new user of nullgen --fwd measure and --search meets, end to end
with the real binaries (nullgen against memifctl over a memif file socket):

1. search-only options without --search: exit 2, one line naming the option;
2. rates with units (--rate 20k, --min-rate 10K, --max-rate 60kpps, the
   shell's 'set rate 1.5Mpps'); a bad one: exit 2, one line with the forms;
3. nothing came back (memifctl sinking in rxonly): a fixed run and a search
   exit 1 with one line saying so;
4. the search's text result: the title, NDR, PDR and the latency table,
   no "tool", "final", "ndr:" or "pdr:" lines; the JSON keeps its keys;
5. --search over null ports only: exit 2, one line; a fixed measure run
   there warns and runs;
6. --warmup: figures and port counters start from zero after it;
7. --help mentions measuring.
Short runs; no timing thresholds."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import vftest  # noqa: E402
from vftest import Sh, binary, check, final_stats, json_lines, start, tmpdir, wait_for  # noqa: E402

D = tmpdir()
A_CORE = ["-l", "0-1", "--main-lcore", "0"]   # memifctl forwards on core 1
B_CORE = ["-l", "0-1", "--main-lcore", "1"]   # nullgen forwards on core 0
NULLGEN = binary("nullgen")


def memif(sock):
    return f"memif,role=client,socket={sock},socket-abstract=no"


def nullgen(args, timeout=90):
    return vftest.run([NULLGEN] + B_CORE + args, timeout=timeout)


def peer(sock, args=()):
    p = start([binary("memifctl"), "--role", "server", "--socket", sock, "--socket-abstract", "no",
               "--duration", "600"] + A_CORE + list(args))
    wait_for(lambda: os.path.exists(sock), what=f"{sock} listening")
    return p


def stop(p):
    p.terminate()
    p.communicate(timeout=30)


def usage_error(r, *words):
    """Exit 2 and one line on stderr holding every word."""
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 2, f"exit {r.returncode}, want 2: {r.stderr}")
    check(len(lines) == 1 and all(w in lines[0] for w in words), f"want one line with {words}: {r.stderr!r}")


SEARCH = ["--search", "--trial", "0.2", "--min-rate", "10K", "--max-rate", "60kpps", "--precision", "0.1"]

# 1. search-only options without --search (no port needed: refused before the EAL)
for opt, val in [("--trial", "0.2"), ("--pdr-loss", "0.01"), ("--min-rate", "10k"), ("--max-rate", "1M"),
                 ("--precision", "0.01")]:
    r = nullgen(["--port", memif(os.path.join(D, "none.sock")), "--fwd", "measure", opt, val])
    usage_error(r, opt, "needs --search")

# 2. bad rates: one line with what is accepted
for opt in ["--rate", "--min-rate", "--max-rate"]:
    for bad in ["2x", "1.5m", "-5", "k", "2T", "0"]:
        args = ["--fwd", "measure", opt, bad] + (["--search"] if opt != "--rate" else [])
        r = nullgen(["--port", memif(os.path.join(D, "none.sock"))] + args)
        usage_error(r, f"bad {opt} '{bad}'", "200k", "1.5M", "1G")

# 5. null ports only: --search refused; a fixed measure run warns and runs
# (it times measuring itself: a null port hands back recycled buffers, so
# the figures are no device's)
for ports in [[], ["--port", "null"], ["--port", "null,copy=1", "--port", "null"],
              ["--port", "dpdk:net_null0"]]:
    r = nullgen(ports + ["--fwd", "measure", "--search"])
    usage_error(r, "--search needs a device", "memif", "vhost", "virtio_user", "dpdk:")
r = nullgen(["--port", "null", "--fwd", "measure", "--duration", "0.5", "--json"])
check(r.returncode == 0, f"measure over null: exit {r.returncode}: {r.stderr}")
check("measure over null ports only" in r.stderr, f"measure over null: no warning: {r.stderr}")
check(final_stats(r.stdout)["measure"]["streams"][0]["sent"] > 0, "measure over null sent nothing")

# --warmup and --check are for measure
r = nullgen(["--fwd", "txonly", "--warmup", "1", "--duration", "1"])
usage_error(r, "--warmup", "--fwd measure")
r = nullgen(["--fwd", "txonly", "--check", "stamp", "--duration", "1"])
usage_error(r, "--check", "--fwd measure")
r = nullgen(["--port", memif(os.path.join(D, "none.sock")), "--fwd", "measure", "--warmup", "0"])
usage_error(r, "bad --warmup '0'")

# 7. --help
h = nullgen(["--help"])
check(h.returncode == 0, h.stderr)
head = "\n".join(h.stdout.splitlines()[:4])
for w in ["--fwd measure", "loss", "reordering", "latency", "--search", "NDR/PDR"]:
    check(w in head, f"--help summary lacks {w!r}:\n{head}")
check("--warmup" in h.stdout, "--help lacks --warmup")

# a reflecting device
sock = os.path.join(D, "refl.sock")
srv = peer(sock)

# 2. units, end to end: 20k paces the fixed run (exact count back)
r = nullgen(["--port", memif(sock), "--fwd", "measure", "--rate", "20k", "--count", "1000", "--json"])
check(r.returncode == 0, f"--rate 20k: exit {r.returncode}: {r.stderr}")
s = final_stats(r.stdout)["measure"]["streams"][0]
check(s["sent"] == 1000 and s["received"] == 1000, f"{s}")

# 6. --warmup: the run's figures and the ports' counters start after it
r = nullgen(["--port", memif(sock), "--fwd", "measure", "--rate", "20000", "--count", "1000",
             "--warmup", "0.3", "--json"])
check(r.returncode == 0, f"--warmup: exit {r.returncode}: {r.stderr}")
st = final_stats(r.stdout)
s = st["measure"]["streams"][0]
check(s["sent"] == 1000 and s["received"] == 1000 and s["lost"] == 0, f"warm-up figures kept: {s}")
check(st["measure"]["stale"] == 0, f"warm-up frames counted in the run: {st['measure']}")
check(st["ports"][0]["opackets"] == 1000, f"port counters not cleared: {st['ports'][0]}")

# 4. the search's text result; 2. its rates with units; 6. --warmup with it
r = nullgen(["--port", memif(sock), "--fwd", "measure", "--warmup", "0.2"] + SEARCH, timeout=170)
check(r.returncode == 0, f"search exit {r.returncode}: {r.stderr}")
lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
check(lines and lines[0].startswith("nullgen throughput search:"), f"title:\n{r.stdout}")
check(lines[1].split()[0] == "tester" and "Mpps unthrottled" in lines[1], f"tester line:\n{r.stdout}")
check([ln.split()[0] for ln in lines[2:4]] == ["NDR", "PDR"], f"NDR/PDR lines:\n{r.stdout}")
check(lines[4].strip().startswith("latency (us)") and all(ln.lstrip().startswith("at ") for ln in lines[5:]),
      f"latency table:\n{r.stdout}")
check(len(lines) == 9, f"title, tester, NDR, PDR, table head and 4 rows:\n{r.stdout}")
for stray in ["tool", "final", "ndr:", "pdr:", "search:", "goals:"]:
    check(not any(ln.split()[0] == stray for ln in lines), f"stray '{stray}' line:\n{r.stdout}")
# the trial table goes to stderr, with its head once
check(sum(ln.startswith("trial phase") for ln in r.stderr.splitlines()) == 1, f"trial table:\n{r.stderr}")
r = nullgen(["--port", memif(sock), "--fwd", "measure", "--json"] + SEARCH, timeout=170)
check(r.returncode == 0, f"search --json exit {r.returncode}: {r.stderr}")
res = json_lines(r.stdout)[-1]
check(res["tool"] == "nullgen" and res["final"] is True, f"{list(res)}")
sr = res["search"]
check(sr["min_rate"] == 10000 and sr["max_rate"] == 60000 and sr["max_rate_given"], f"units: {sr}")
for g in sr["goals"]:
    check({"name", "loss_ratio", "exceed_ratio", "final_trial_s", "duration_sum_s", "width", "regular",
           "tester_limited", "irregular"} <= set(g), f"goal keys: {g}")
check(len(sr["latency"]) == 4, f"{sr['latency']}")
stop(srv)

# 2. the shell's set rate takes the same forms
sh = Sh([NULLGEN] + B_CORE)
for text, want in [("1.5Mpps", 1500000), ("200k", 200000), ("0", 0), ("2G", None), ("1m", None)]:
    sh.cmd(f"set rate {text}")
    got = sh.json("show config rxtx")["rate"]
    check(got == (want if want is not None else 0), f"set rate {text}: rate {got}")
    if want is not None:
        sh.cmd("set rate 0")
sh.quit()

# 3. nothing came back: a sink, not a reflector
sock2 = os.path.join(D, "sink.sock")
sink = peer(sock2, ["--fwd", "rxonly"])
r = nullgen(["--port", memif(sock2), "--fwd", "measure", "--rate", "20000", "--duration", "1"])
check(r.returncode == 1, f"nothing back: exit {r.returncode}: {r.stderr}")
msg = [ln for ln in r.stderr.splitlines() if "none came back" in ln]
check(len(msg) == 1 and "frames sent" in msg[0] and "forwarding to us" in msg[0], r.stderr)
r = nullgen(["--port", memif(sock2), "--fwd", "measure", "--json"] + SEARCH, timeout=170)
check(r.returncode == 1, f"search, nothing back: exit {r.returncode}: {r.stderr}")
msg = [ln for ln in r.stderr.splitlines() if "none came back" in ln]
check(len(msg) == 1 and "search" in msg[0], r.stderr)
check(not any(o.get("final") for o in json_lines(r.stdout)), "a result with NDR 0 printed")
stop(sink)
print("ok")
