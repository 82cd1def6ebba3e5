#!/bin/sh
# The scaling figures that two cores cannot give (issue 26: measuring with
# N queues on N cores; issue 28: memif and vhost-user with 1, 2, 4 and more
# queues), as one prepared run for the 16-core machine that the device tool
# lends some tasks (no DPDK there, no compiler assumed, 15 minutes in all).
#
#   bench/device.sh pack [BUILD]   here, before: the tools, dpdk-testpmd and
#                       DPDK's libraries into .bundle (../shared/tools/
#                       device-bundle.sh; git ignores it), plus .bundle/build,
#                       a build tree as the bench scripts expect it, with
#                       the limit probe built for any x86-64-v2 machine
#   bench/device.sh run  there, from the repository root (the device tool's
#                       command `bench/device.sh run`, carry [".bundle"]):
#                       for each Q of QLIST, with Q queue pairs on Q cores
#                       a side (bench/loopbench.py's QUEUES layout),
#                         memif   memif.sh: dpdk<->dpdk, ours<->ours and
#                                 ours<->dpdk (memifctl server, testpmd client)
#                         measure measure_cost.sh memif: nullgen --fwd measure
#                                 against the vfwd mac loop through memifctl
#                         vhost   vloop.sh packed-io: dpdk<->dpdk, ours<->ours
#                       in that order (Q=1 first: every ratio needs it);
#                       then, once, if STEPS names it,
#                         search  search.sh: ROUNDS default searches in a row
#                                 against memifctl and testpmd net_memif on
#                                 cores of their own (the repeatability row)
#                       Each step is skipped when the BUDGET seconds left
#                       are fewer than its estimate.  Each step's report
#                       goes to $OUT/NAME-qQ.txt (search: $OUT/search.txt;
#                       bench/out/ without $OUT), the device's lscpu to
#                       $OUT/lscpu.txt.
#
# env (run): QLIST ("1 2 4"), ROUNDS (5), DURATION (1 s), BUDGET (560 s),
#            STEPS ("memif measure vhost")
# The device's 15 minutes hold two such commands and their start: the
# default set (about 600 s of estimates: the last step may be skipped),
# then `STEPS=search bench/device.sh run` (two devices, 5 searches each).
# Tried on the 2-core machine with QLIST=1 (the only Q it has cores for)
# and STEPS=search ROUNDS=1: see bench/RESULTS.md, 2026-12-07 (third
# session).
set -eu
cd "$(dirname "$0")/.."

pack() {
    b=${1:-build}
    sh ../shared/tools/device-bundle.sh "$b" .bundle >/dev/null
    for t in vfwd vhostd memifctl nullgen; do
        mkdir -p ".bundle/build/cmd/$t"
        cp ".bundle/bin/$t" ".bundle/build/cmd/$t/$t"
    done
    mkdir -p .bundle/build/bench
    # newer than its source, so loopbench.py uses it instead of compiling
    cc -O2 -march=x86-64-v2 -pthread -o .bundle/build/bench/limit_probe bench/limit_probe.c
    echo "packed: $(du -sh .bundle | cut -f1) in .bundle; on the device: bench/device.sh run (carry .bundle)"
}

run() {
    [ -f .bundle/env.sh ] || { echo "no .bundle: bench/device.sh pack first (and carry .bundle)" >&2; exit 1; }
    # the bundle's DPDK only where there is none: its env.sh links the
    # bundle's drivers into DPDK's driver folder, which on a machine with
    # DPDK installed would replace the system's own
    command -v dpdk-testpmd >/dev/null || . ./.bundle/env.sh
    out=${OUT:-bench/out}
    mkdir -p "$out"
    lscpu > "$out/lscpu.txt" 2>&1 || true
    export VF_BUILD=.bundle/build VF_POLL_LOCKED=1 ROUNDS="${ROUNDS:-5}" DURATION="${DURATION:-1}" \
        WARMUP=1 LINKWAIT=2 INFLIGHT=256
    budget=${BUDGET:-560}
    steps=${STEPS:-memif measure vhost}
    start=$(date +%s)
    ncpu=$(nproc)
    # rough seconds per step and Q, per round of 1 s (starts and stops
    # included; measured here with one queue)
    for q in ${QLIST:-1 2 4}; do
        if [ "$q" -gt 1 ] && [ $((2 * q + 2)) -gt "$ncpu" ]; then
            echo "Q=$q: needs $((2 * q + 2)) CPUs, $ncpu here: skipped" | tee -a "$out/skipped.txt"
            continue
        fi
        for step in $steps; do
            case $step in
            memif) est=$((19 * ROUNDS)) ;;
            vhost) est=$((14 * ROUNDS)) ;;
            measure) est=$((7 * ROUNDS)) ;;
            search) continue ;;
            *) echo "unknown step $step" >&2; exit 1 ;;
            esac
            left=$((budget - ($(date +%s) - start)))
            if [ "$left" -lt "$est" ]; then
                echo "Q=$q $step: ${left} s left, about $est needed: skipped" | tee -a "$out/skipped.txt"
                continue
            fi
            f="$out/$step-q$q.txt"
            t0=$(date +%s)
            case $step in
            memif) QUEUES=$q PAIRS="dpdk<->dpdk,ours<->ours,ours<->dpdk" \
                       timeout "$left" bench/memif.sh > "$f" 2>&1 || echo "exit $?" >> "$f" ;;
            vhost) QUEUES=$q PAIRS="dpdk<->dpdk,ours<->ours" \
                       timeout "$left" bench/vloop.sh packed-io > "$f" 2>&1 || echo "exit $?" >> "$f" ;;
            measure) QUEUES=$q PARTS=memif \
                       timeout "$left" bench/measure_cost.sh > "$f" 2>&1 || echo "exit $?" >> "$f" ;;
            esac
            echo "Q=$q $step: $(($(date +%s) - t0)) s"
            grep -E "^(memif|packed-io) |^  memif" "$f" || tail -3 "$f"
        done
    done
    case " $steps " in
    *" search "*)
        left=$((budget - ($(date +%s) - start)))
        if [ "$left" -lt $((80 * ROUNDS)) ]; then
            echo "search: ${left} s left, about $((80 * ROUNDS)) needed: skipped" | tee -a "$out/skipped.txt"
        else
            t0=$(date +%s)
            DUTS="memifctl testpmd-memif" timeout "$left" bench/search.sh > "$out/search.txt" 2>&1 ||
                echo "exit $?" >> "$out/search.txt"
            echo "search: $(($(date +%s) - t0)) s"
            tail -12 "$out/search.txt"
        fi ;;
    esac
    echo "total $(($(date +%s) - start)) s"
}

case ${1:-} in
pack) shift; pack "$@" ;;
run) run ;;
*) echo "usage: bench/device.sh pack [BUILD] | run" >&2; exit 2 ;;
esac
