"""--fwd replay --pcap (issue 27 item 4), on null ports, read back from
our own --capture:

1. a capture made by our --capture (pcapng: 50 flowgen frames at 100 pps)
   replayed --loop 2 --speed 2: the same 100 frames, byte for byte, in
   order, and the run ends by itself after the second pass;
2. never early: the replay's span is at least the recorded one over
   --speed (a lower bound only, minus 0.1 s for the first frame's own
   delay; a loaded machine makes it late, never early);
3. the same capture as classic pcap (editcap, when installed) replays the
   same frames;
4. --rate paces instead of the recorded timing, --loop 3: 150 frames;
5. truncated, foreign and missing files, and --pcap without replay, exit 2
   with one line saying why."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import vftest  # noqa: E402
from vftest import binary, check, read_pcapng, tmpdir  # noqa: E402

D = tmpdir()
NG = [binary("nullgen"), "-l", "0-1", "--main-lcore", "0"]
PORT = ["--port", "null,no-rx=1"]




def run(args, timeout=60):
    return vftest.run(NG + PORT + args, timeout=timeout)


a = os.path.join(D, "a.pcapng")
r = run(["--fwd", "flowgen", "--rate", "100", "--count", "50", "--duration", "1", "--capture", f"0:tx:{a}"])
check(r.returncode == 0, f"capture: exit {r.returncode}: {r.stderr}")
orig = read_pcapng(a)
check(len(orig) == 50, f"captured {len(orig)} frames, expected 50")
span = (orig[-1][0] - orig[0][0]) / 1e9


def replayed(src, extra, n):
    out = os.path.join(D, "b.pcapng")
    if os.path.exists(out):
        os.unlink(out)
    r = run(["--fwd", "replay", "--pcap", src, "--capture", f"0:tx:{out}", "--duration", "30"] + extra)
    check(r.returncode == 0, f"replay {extra}: exit {r.returncode}: {r.stderr}")
    got = read_pcapng(out)
    check(len(got) == n, f"replay {extra}: {len(got)} frames, expected {n}")
    for i, (_, data) in enumerate(got):
        check(data == orig[i % 50][1], f"replay {extra}: frame {i} differs from frame {i % 50} of the capture")
    return got


# 1 and 2: recorded timing, twice as fast, two passes; the run ends itself
got = replayed(a, ["--speed", "2", "--loop", "2"], 100)
took = (got[-1][0] - got[0][0]) / 1e9
print(f"capture span {span:.3f} s; two passes at --speed 2 took {took:.3f} s")
check(took >= 2 * span / 2 - 0.1, f"replay early: {took:.3f} s for two passes of {span:.3f} s at speed 2")
for i in range(1, 50):
    want = (orig[i][0] - orig[0][0]) / 2e9
    check((got[i][0] - got[0][0]) / 1e9 >= want - 0.1, f"frame {i} early")

# 3: classic pcap, as editcap writes it
editcap = shutil.which("editcap")
if editcap:
    p = os.path.join(D, "a.pcap")
    subprocess.run([editcap, "-F", "pcap", a, p], check=True, capture_output=True, timeout=30)
    replayed(p, ["--speed", "10"], 50)
else:
    print("editcap not installed: classic pcap part skipped")

# 4: --rate instead of the recorded timing
replayed(a, ["--rate", "1000", "--loop", "3"], 150)

# 5: refused with a reason, before any traffic
bad = os.path.join(D, "cut.pcapng")
open(bad, "wb").write(open(a, "rb").read()[:300])
junk = os.path.join(D, "junk")
open(junk, "wb").write(b"hello, world\n" * 10)
for args, why in [(["--pcap", bad], "runs past the end"), (["--pcap", junk], "not a pcap or pcapng"),
                  (["--pcap", os.path.join(D, "none")], "cannot open"), ([], "go together")]:
    r = run(["--fwd", "replay", "--duration", "1"] + args)
    check(r.returncode == 2 and why in r.stderr, f"{args}: exit {r.returncode}, stderr {r.stderr!r}")
r = run(["--fwd", "txonly", "--pcap", a, "--duration", "1"])
check(r.returncode == 2 and "go together" in r.stderr, f"--pcap with txonly: {r.returncode} {r.stderr!r}")
print("ok")
