#!/bin/sh
# nullgen (two null ports, io, one forwarding core) against dpdk-testpmd
# (two net_null ports, io, one forwarding core), same cores, same run;
# with and without copy=1.  Prints Mpps of each and the ratio.
#   bench/null.sh [SECONDS]   (default 5; needs a build in ./build)
set -e
cd "$(dirname "$0")/.."
D=${1:-5}
NULLGEN=./build/cmd/nullgen/nullgen
mpps_ours() {	# $1: extra devargs
    $NULLGEN -l 0-1 --port "null$1" --port "null$1" --fwd io --duration "$D" --json 2>/dev/null |
        python3 -c 'import json,sys; s=json.loads(sys.stdin.readlines()[-1]); print("%.2f" % (s["fwd"]["tx"]/s["elapsed"]/1e6))'
}
mpps_dpdk() {	# $1: extra devargs
    # testpmd prints the forwarded total at exit; time it with its own stats
    out=$(timeout -s INT "$((D + 2))" dpdk-testpmd -l 0-1 --no-huge -m 512 --no-pci --file-prefix bnull$$ \
        --log-level='*:warning' --vdev "net_null0$1" --vdev "net_null1$1" -- \
        --total-num-mbufs=8192 --forward-mode=io --stats-period 1 2>/dev/null </dev/null || true)
    echo "$out" | python3 -c '
import re,sys
t=sys.stdin.read()
# per-period "Tx-pps" of both ports once forwarding runs (skip the first, partial, period)
v=[int(x) for x in re.findall(r"Tx-pps:\s+(\d+)", t)]
pairs=[p for p in (v[i]+v[i+1] for i in range(0,len(v)-1,2)) if p > 0][1:]
print("%.2f" % ((sum(pairs)/len(pairs))/1e6 if pairs else 0))'
}
printf "%-10s %10s %10s %7s\n" variant ours_Mpps dpdk_Mpps ratio
for v in "" ",copy=1"; do
    o=$(mpps_ours "$v"); d=$(mpps_dpdk "$v")
    r=$(python3 -c "print('%.2f' % ($o/$d) if $d else 'n/a')")
    printf "%-10s %10s %10s %7s\n" "${v:-default}" "$o" "$d" "$r"
done
