"""nullgen --check: what the receiver checks of each frame.  A Python memif
client reflects 1000 frames of 128 bytes and changes some on the way back:

- every 10th (i % 10 == 1) a byte of the payload after the stamp (100);
- every 25th (i % 25 == 2) a byte of the stamp's sequence number (40);

(no frame both).  --check full (the default) finds all 140 corrupt;
--check stamp reads the headers and the stamp only, so it finds the 40 and
takes the other 100 as received.  Every 7th frame comes back as a two-slot
chain, so both the in-place check and the mbuf burst's are exercised.
Exact counts, and a bad --check value is refused with status 2."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
import vftest  # noqa: E402
from memif_util import check  # noqa: E402
from measure_reflector import run  # noqa: E402

N, RATE, LEN = 1000, 5000, 128
PAYLOAD, STAMP = 100, 42 + 10
hits = {"payload": 0, "stamp": 0}


def mangle(i, frame):
    f = bytearray(frame)
    if i % 10 == 1:
        f[PAYLOAD] ^= 0x5a
        hits["payload"] += 1
    elif i % 25 == 2:
        f[STAMP] ^= 0x01
        hits["stamp"] += 1
    return bytes(f)


NULLGEN = vftest.binary("nullgen")
base = [NULLGEN, "-l", "0-1", "--main-lcore", "1", "--json", "--fwd", "measure",
        "--rate", str(RATE), "--count", str(N), "--txpkts", str(LEN)]

for mode, want in (("full", 140), ("stamp", 40)):
    hits["payload"] = hits["stamp"] = 0
    rc, out, refl = run(f"check{mode}", base + ["--check", mode], small=False, bad=False,
                        mangle=mangle)
    lines = [ln for ln in out.splitlines() if ln.startswith('{"tool"')]
    check(lines, f"no JSON from nullgen --check {mode}: {out[-2000:]}")
    m = vftest.json_lines(lines[-1])[-1]["measure"]
    tot = m["total"]
    print(f"--check {mode}: changed {hits}, chains {refl.stats['chains_in']}; corrupt {m['corrupt']}, "
          f"received {tot['received']}, lost {tot['lost']}")
    check(hits == {"payload": 100, "stamp": 40} and refl.stats["chains_in"] >= 100,
          f"the reflector changed {hits}, chained {refl.stats['chains_in']}")
    check(m["corrupt"] == want and m["foreign"] == 0 and m["stale"] == 0,
          f"--check {mode}: corrupt {m['corrupt']} foreign {m['foreign']} stale {m['stale']}")
    check(tot["sent"] == N and tot["received"] == N - want and tot["lost"] == want,
          f"--check {mode}: {tot}")
    check(rc == 0, f"--check {mode}: nullgen exited {rc}")
    refl.close()

r = subprocess.run([NULLGEN, "--port", "null", "--fwd", "measure", "--check", "payload"],
                   capture_output=True, text=True, timeout=30)
check(r.returncode == 2 and "--check: full or stamp" in r.stderr,
      f"a bad --check: {r.returncode} {r.stderr[-500:]}")
print("ok")
