"""--cmdline-file: commands before the run (one-shot) or before the prompt."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
from vftest import binary, check, final_stats, run, tmpdir  # noqa: E402

vfwd = binary("vfwd")
d = tmpdir()
good = os.path.join(d, "good.cmds")
open(good, "w").write("# configure, then the run starts\nset fwd macswap\nset burst 8\n\nshow config rxtx json\n")
r = run([vfwd, "--port", "null", "--cmdline-file", good, "--duration", "0.5", "--json"])
check(r.returncode == 0, r.stderr)
lines = r.stdout.splitlines()
check('"burst":8' in lines[0], f"script output first: {lines[0]}")
s = final_stats("\n".join(lines[1:]))
check(s["mode"] == "macswap", f"mode {s['mode']}")
check(max(int(k) for k in s["streams"][0]["rx_bursts"]) <= 8, "burst 8 applied")

bad = os.path.join(d, "bad.cmds")
open(bad, "w").write("set fwd io\nset fwd bogus\nset burst 4\n")
r = run([vfwd, "--port", "null", "--cmdline-file", bad, "--stop-on-error", "--duration", "0.3"])
check(r.returncode == 1 and f"{bad}:2" in r.stderr, f"stop-on-error: {r.returncode} {r.stderr}")
r = run([vfwd, "--port", "null", "--cmdline-file", bad, "--duration", "0.3", "--json"])
check(r.returncode == 0 and f"{bad}:2" in r.stderr, "without --stop-on-error the run goes on")
r = run([vfwd, "--port", "null", "--cmdline-file", os.path.join(d, "missing"), "--duration", "0.3"])
check("cannot open command file" in r.stderr, r.stderr)
r = run([vfwd, "--port", "null", "-i", "--duration", "1"])
check(r.returncode == 2, "-i with --duration is a usage error")
print("ok")
