#!/bin/sh
# 64-byte mac-forward loop over memif, one forwarding core per side, in one
# run:  DPDK net_memif <-> DPDK net_memif (two testpmd), memifctl <-> DPDK
# (memifctl server, testpmd client), memifctl <-> memifctl, and with our
# client in zero-copy mode against a DPDK server and against memifctl.  One burst of
# 32 packets is injected by the client (tx_first) and bounces between the
# two mac forwarders; the rate is the client port's rx packets per second,
# averaged over the stats periods after the first.  Prints Mpps and the
# ratio of each pair to DPDK's pair.
#   bench/memif.sh [SECONDS [RUNS]]   (default 6 s, 3 runs; needs ./build)
set -e
cd "$(dirname "$0")/.."
D=${1:-6}
R=${2:-3}
MEMIFCTL=./build/cmd/memifctl/memifctl
SOCK="vfbench-$$"
TP="dpdk-testpmd --no-huge -m 512 --no-pci --log-level=*:warning"
# side A (server): main lcore 0, forwarding lcore 1; side B (client): the reverse
A="-l 0-1 --main-lcore 0"
B="-l 0-1 --main-lcore 1"

avg_testpmd() {	# stdin: testpmd output; average Rx-pps of the periods after the first
    python3 -c '
import re,sys
v=[int(x) for x in re.findall(r"Rx-pps:\s+(\d+)", sys.stdin.read())]
v=[x for x in v if x > 0][1:]
print("%.3f" % (sum(v)/len(v)/1e6 if v else 0))'
}
avg_ours() {	# stdin: JSON lines; average rx_pps of the periods after the first
    python3 -c '
import json,sys
v=[]
for ln in sys.stdin:
    try: s=json.loads(ln)
    except ValueError: continue
    if not s.get("final") and s["ports"][0]["rx_pps"] > 0: v.append(s["ports"][0]["rx_pps"])
v=v[1:]
print("%.3f" % (sum(v)/len(v)/1e6 if v else 0))'
}

server_dpdk() {
    timeout -s INT "$((D + 12))" $TP $A --file-prefix "bms$$" \
        --vdev "net_memif0,role=server,socket=$SOCK" -- --total-num-mbufs=8192 \
        --forward-mode=mac --stats-period 1 >/dev/null 2>&1 </dev/null &
    SPID=$!
}
server_ours() {
    timeout -s INT "$((D + 12))" $MEMIFCTL $A --role server --socket "$SOCK" \
        --duration "$((D + 10))" >/dev/null 2>&1 </dev/null &
    SPID=$!
}
client_dpdk() {
    timeout -s INT "$((D + 4))" $TP $B --file-prefix "bmc$$" \
        --vdev "net_memif0,role=client,socket=$SOCK" -- --total-num-mbufs=8192 \
        --forward-mode=mac --tx-first --stats-period 1 2>/dev/null </dev/null | avg_testpmd
}
client_ours() {	# $ZC: --zero-copy or empty
    $MEMIFCTL $B --role client --socket "$SOCK" --reconnect-ms 0 --tx-first --burst 32 $ZC \
        --duration "$D" --stats-period 1 --json 2>/dev/null </dev/null | avg_ours
}
client_ours_zc() { ZC=--zero-copy client_ours; }

run_pair() {	# $1 server, $2 client
    $1
    sleep 2	# the server listens (DPDK's client connects only once)
    r=$($2)
    kill -INT "$SPID" 2>/dev/null || true	# the server's timeout wrapper passes it on
    wait
    echo "$r"
}

# R runs of each pair, interleaved so that load drifts hit all alike; the
# median and the range are printed (the range is the resolution).
pairs="server_dpdk:client_dpdk server_ours:client_dpdk server_ours:client_ours server_dpdk:client_ours_zc server_ours:client_ours_zc"
: >/tmp/vfbench.$$
for r in $(seq "$R"); do
    for p in $pairs; do
        echo "$p $(run_pair "${p%%:*}" "${p##*:}")" >>/tmp/vfbench.$$
    done
done
med() { python3 - "$1" /tmp/vfbench.$$ <<'PY'
import statistics, sys
v = [float(l.split()[1]) for l in open(sys.argv[2]) if l.split()[0] == sys.argv[1]]
print("%.3f %.3f-%.3f" % (statistics.median(v), min(v), max(v)))
PY
}
set -- $(med server_dpdk:client_dpdk); dd=$1; ddr=$2
set -- $(med server_ours:client_dpdk); od=$1; odr=$2
set -- $(med server_ours:client_ours); oo=$1; oor=$2
set -- $(med server_dpdk:client_ours_zc); zd=$1; zdr=$2
set -- $(med server_ours:client_ours_zc); zo=$1; zor=$2
rm -f /tmp/vfbench.$$
ratio() { python3 -c "print('%.2f' % ($1/$2) if $2 else 'n/a')"; }
printf "%-36s %8s %7s  %s\n" "pair (server <-> client)" Mpps ratio "range over $R runs"
printf "%-36s %8s %7s  %s\n" "DPDK net_memif <-> DPDK net_memif" "$dd" 1.00 "$ddr"
printf "%-36s %8s %7s  %s\n" "memifctl <-> DPDK net_memif" "$od" "$(ratio "$od" "$dd")" "$odr"
printf "%-36s %8s %7s  %s\n" "memifctl <-> memifctl" "$oo" "$(ratio "$oo" "$dd")" "$oor"
printf "%-36s %8s %7s  %s\n" "DPDK <-> memifctl zero-copy" "$zd" "$(ratio "$zd" "$dd")" "$zdr"
printf "%-36s %8s %7s  %s\n" "memifctl <-> memifctl zero-copy" "$zo" "$(ratio "$zo" "$dd")" "$zor"
