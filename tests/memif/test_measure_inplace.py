"""nullgen --fwd measure builds its frames in memif's ring buffers and reads
received ones in place (vf_slot_ops); what cannot be done in place goes
through the mbuf bursts.  A Python memif client reflects nullgen's frames
(nullgen is the server) and mixes in everything the in-place path must
hand over to them:

- S2C: every 5th buffer it posts is 40 bytes, below a frame: nullgen must
  not write a frame into it in place, but chain the frame over slots (the
  mbuf burst), and never write more than a buffer's posted length;
- C2S: every 7th frame comes back as a two-slot chain (NEXT), which must be
  received whole, not parsed in place as a cut frame;
- C2S: every 100th frame comes back with a descriptor whose offset lies
  outside the region: dropped and counted (bad descriptor), nothing read
  outside the shared memory (the ASan build runs this too).

Exact: every frame sent is received but the bad ones, which are exactly
the lost; nothing foreign, corrupt or stale; the chained buffers and small
posts really happened; the port's rx and tx counters match."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
import vftest  # noqa: E402
from memif_util import check  # noqa: E402
from measure_reflector import run  # noqa: E402

N, RATE = 3000, 5000

args = [vftest.binary("nullgen"), "-l", "0-1", "--main-lcore", "1", "--json",
        "--fwd", "measure", "--rate", str(RATE), "--count", str(N)]
rc, out, refl = run("inplace", args)
lines = [ln for ln in out.splitlines() if ln.startswith('{"tool"')]
check(lines, f"no JSON from nullgen: {out[-2000:]}")
o = vftest.json_lines(lines[-1])[-1]
m, st = o["measure"], refl.stats
print(f"reflector: {st}; measure: {m['total']['sent']} sent, {m['total']['received']} received, "
      f"{m['total']['lost']} lost")
check(st["frames"] == N, f"the reflector saw {st['frames']} of {N} frames")
check(st["overrun"] == 0, f"nullgen wrote past a posted buffer {st['overrun']} times")
check(st["small_posts"] >= 100 and st["chains_out"] >= 50,
      f"small posts {st['small_posts']}, chained frames from nullgen {st['chains_out']}")
check(st["chains_in"] >= 300 and st["bad"] == N // 100, f"{st}")
check(m["foreign"] == 0 and m["corrupt"] == 0 and m["stale"] == 0, f"{m}")
tot = m["total"]
check(tot["sent"] == N and tot["received"] == N - st["bad"] and tot["lost"] == st["bad"],
      f"sent {tot['sent']} received {tot['received']} lost {tot['lost']}, bad {st['bad']}")
check(tot["duplicates"] == 0 and tot["reordered"] == 0, f"{tot}")
p = o["ports"][0]
check(p["opackets"] == N and p["ipackets"] == N - st["bad"], f"port counters {p}")
refl.close()
print("ok")
