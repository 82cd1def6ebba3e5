"""Bad options and devargs exit with status 2 and one message naming what was
wrong; --help lists every option."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from vftest import binary, check, run  # noqa: E402

vfwd = binary("vfwd")
nullgen = binary("nullgen")

cases = [
    (["--port", "null,sizee=3"], ["unknown key 'sizee'", "size, copy, no-rx"]),
    (["--port", "null,size=3"], ["'size'", "14..9000"]),
    (["--port", "null,copy=maybe"], ["'copy'", "0, 1, yes or no"]),
    (["--port", "nosuch,x=1"], ["unknown driver 'nosuch'", "null", "dpdk"]),
    (["--port", "null", "--fwd", "foo"], ["unknown forwarding mode 'foo'", "icmpecho", "5tswap"]),
    (["--port", "null", "--forward-mode", "bar"], ["unknown forwarding mode 'bar'"]),
    (["--port", "null", "--burst", "0"], ["--burst", "1..512"]),
    (["--port", "null", "--burst", "513"], ["--burst"]),
    (["--port", "null", "--txpkts", "20"], ["--txpkts", "42..9000"]),
    (["--port", "null", "--txpkts", "9001"], ["--txpkts", "42..9000"]),
    (["--port", "null", "--duration", "-1"], ["--duration"]),
    (["--port", "null", "--duration", "abc"], ["--duration"]),
    (["--port", "null", "--stats-period", "0"], ["--stats-period"]),
    (["--port", "null", "--eth-peer", "0,zz:00:00:00:00:00"], ["--eth-peer", "PORT,XX"]),
    (["--port", "null", "--rxq", "99"], ["--rxq"]),
    (["--port", "null", "-l", "a-b"], ["-l"]),
    (["--port", "null", "--nosuch"], ["unknown option '--nosuch'"]),
    (["--port", "null", "--json=1"], ["takes no argument"]),
    (["--port"], ["needs an argument"]),
    (["stray"], ["unexpected argument 'stray'"]),
    ([], ["no port"]),
]
for args, needles in cases:
    r = run([vfwd] + args, timeout=20)
    check(r.returncode == 2, f"vfwd {args}: exit {r.returncode}, want 2 (stderr {r.stderr!r})")
    check(r.stdout == "", f"vfwd {args}: stdout not empty: {r.stdout!r}")
    for n in needles:
        check(n in r.stderr, f"vfwd {args}: stderr {r.stderr!r} lacks {n!r}")

# nullgen has default ports, so no "no port" error; a bad option is still 2
r = run([nullgen, "--rate", "0"], timeout=20)
check(r.returncode == 2 and "--rate" in r.stderr, f"nullgen --rate 0: {r.returncode} {r.stderr!r}")

# --help: every option of the table (as completion lists them) is documented
h = run([vfwd, "--help"])
check(h.returncode == 0, "vfwd --help failed")
opts = run([vfwd, "__complete", "--"]).stdout.split()
check(len(opts) > 20, f"completion lists too few options: {opts}")
for o in opts:
    check(o in h.stdout, f"--help lacks {o}")
for m in ["io", "mac", "macswap", "rxonly", "txonly", "flowgen", "icmpecho", "5tswap"]:
    check(m in h.stdout, f"--help lacks mode {m}")
v = run([vfwd, "--version"])
check(v.returncode == 0 and v.stdout.startswith("vfwd "), f"--version: {v.stdout!r}")
print("ok")
