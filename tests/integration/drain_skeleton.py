"""The frame of the drain tests (memif and vhost-user): a one-shot vfwd
sender, the per-case tally of sent against received, and the loop over
the cases named on the command line.  A peer that leaves must lose nothing
it handed over, so each run checks sent == received exactly.

Each case runs RUNS times (5; 20 with --long or VF_LONG=1)."""
import os
import sys

import vftest
from vftest import binary, check

LONG = "--long" in sys.argv or os.environ.get("VF_LONG") == "1"
RUNS = 20 if LONG else 5
# case names on the command line pick cases; none: all
only = [a for a in sys.argv[1:] if not a.startswith("--")]
totals = {}


def oneshot(spec, dur="0.3"):
    """Our one-shot sender on forwarding core 0; its final opackets."""
    r = vftest.run([binary("vfwd"), "-l", "0-1", "--main-lcore", "1", "--port", spec,
                    "--fwd", "txonly", "--duration", dur, "--json"], timeout=60)
    check(r.returncode == 0, f"sender exit {r.returncode}: {r.stderr[-2000:]}")
    return vftest.port(vftest.final_stats(r.stdout), 0)["opackets"]


def record(case, sent, got):
    t = totals.setdefault(case, [0, 0, 0])
    t[0] += 1
    t[1] += sent
    t[2] += got
    check(sent > 0, f"{case}: nothing sent")
    check(got == sent, f"{case} run {t[0]}: sent {sent}, received {got} ({sent - got} lost)")
    print(f"{case} run {t[0]}: {sent} sent and received", flush=True)


def run_cases(cases):
    """Runs the cases (name -> function) picked on the command line, then
    prints each one's totals and "ok"."""
    for k, fn in cases.items():
        if not only or k in only:
            fn()
    for k, (n, s, g) in totals.items():
        print(f"{k}: {n} runs, sent {s}, received {g}")
    print("ok")
