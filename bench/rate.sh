#!/bin/sh
# Accuracy of nullgen's --rate pacing (token bucket) and start-up latency.
#   bench/rate.sh [SECONDS]   (default 5)
set -e
cd "$(dirname "$0")/.."
D=${1:-5}
NULLGEN=./build/cmd/nullgen/nullgen
printf "%12s %14s %9s\n" target_pps achieved_pps error_%
for r in 10000 100000 1000000 5000000; do
    $NULLGEN -l 0-1 --port null,no-rx=1 --fwd txonly --rate $r --duration "$D" --json 2>/dev/null |
        python3 -c "
import json,sys
s=json.loads(sys.stdin.readlines()[-1])
a=s['ports'][0]['opackets']/s['elapsed']
print('%12d %14.0f %9.3f' % ($r, a, (a-$r)*100.0/$r))"
done
# time from exec to the first forwarded packet: the elapsed forwarding time
# subtracted from the wall time of a one-shot run
python3 - "$NULLGEN" <<'PY'
import json, subprocess, sys, time
t = time.time()
out = subprocess.run([sys.argv[1], "--duration", "1", "--json"], capture_output=True, text=True).stdout
wall = time.time() - t
s = json.loads(out.splitlines()[-1])
print("start-up + teardown: %.3f s (wall %.3f s, forwarding %.3f s)" % (wall - s["elapsed"], wall, s["elapsed"]))
PY
