#!/bin/sh
# Instructions per packet of our virtio_user burst functions, split and
# packed, in-order or not: build/tests/virtio/perf_virtio_rxtx drives the
# bursts against a device played in the same thread (it always keeps up),
# under callgrind; the inclusive Ir of vio_{tx,rx}_burst[_packed] divided by
# the packets moved is the driver's cost per packet (mbuf alloc for rx
# refill and bulk free of completed tx included; the device's work and the
# test's own mbuf handling not).  Deterministic: use it to decide hot-path
# changes on a shared machine where Mpps figures are noise.
#
#   bench/virtio_packed_ir.sh [BUILD_DIR]      env: ROUNDS (bursts of 32, default 20000)
set -eu
BUILD=${1:-${VF_BUILD:-build}}
PERF="$BUILD/tests/virtio/perf_virtio_rxtx"
ROUNDS=${ROUNDS:-20000}
[ -x "$PERF" ] || { echo "$PERF not built" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind missing" >&2; exit 1; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
printf '%-8s %-9s %12s %12s\n' ring in_order "tx Ir/pkt" "rx Ir/pkt"
for kind in split packed; do
	for io in 0 1; do
		out=$(valgrind --tool=callgrind --callgrind-out-file="$d/cg" "$PERF" "$ROUNDS" "$kind" "$io" 2>/dev/null)
		sfx=; [ "$kind" = packed ] && sfx=_packed
		ann=$(callgrind_annotate --inclusive=yes "$d/cg")
		tx=$(echo "$ann" | awk -v f="vio_tx_burst$sfx" '$0 ~ ":"f" " {gsub(",","",$1); print $1; exit}')
		rx=$(echo "$ann" | awk -v f="vio_rx_burst$sfx" '$0 ~ ":"f" " {gsub(",","",$1); print $1; exit}')
		ntx=$(echo "$out" | awk '{print $4}')
		nrx=$(echo "$out" | awk '{print $6}')
		printf '%-8s %-9s %12.1f %12.1f\n' "$kind" "$io" "$(echo "$tx / $ntx" | bc -l)" "$(echo "$rx / $nrx" | bc -l)"
	done
done
