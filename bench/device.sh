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
#                         vhost   vloop.sh packed-io: dpdk<->dpdk, ours<->ours
#                         measure measure_cost.sh memif: nullgen --fwd measure
#                                 against the vfwd mac loop through memifctl
#                       in that order (Q=1 first: every ratio needs it),
#                       each step skipped when the BUDGET seconds left are
#                       fewer than its estimate.  Each step's report goes to
#                       $OUT/NAME-qQ.txt (bench/out/ without $OUT), the
#                       device's lscpu to $OUT/lscpu.txt.
#
# env (run): QLIST ("1 2 4 6"), ROUNDS (3), DURATION (1 s), BUDGET (540 s),
#            STEPS ("memif vhost measure")
# Tried on the 2-core machine with QLIST=1 (the only Q it has cores for):
# see bench/RESULTS.md, 2026-12-07 (third session).
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
    export VF_BUILD=.bundle/build VF_POLL_LOCKED=1 ROUNDS="${ROUNDS:-3}" DURATION="${DURATION:-1}" \
        WARMUP=1 LINKWAIT=2 INFLIGHT=256
    budget=${BUDGET:-540}
    start=$(date +%s)
    ncpu=$(nproc)
    # rough seconds per step and Q at 3 rounds of 1 s (starts and stops included)
    for q in ${QLIST:-1 2 4 6}; do
        if [ "$q" -gt 1 ] && [ $((2 * q + 2)) -gt "$ncpu" ]; then
            echo "Q=$q: needs $((2 * q + 2)) CPUs, $ncpu here: skipped" | tee -a "$out/skipped.txt"
            continue
        fi
        for step in ${STEPS:-memif vhost measure}; do
            case $step in
            memif) est=70 ;;
            vhost) est=50 ;;
            measure) est=40 ;;
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
    echo "total $(($(date +%s) - start)) s"
}

case ${1:-} in
pack) shift; pack "$@" ;;
run) run ;;
*) echo "usage: bench/device.sh pack [BUILD] | run" >&2; exit 2 ;;
esac
