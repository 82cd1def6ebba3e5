#!/bin/sh
# ThreadSanitizer over the reconnect tests (issue 13, 4): builds
# build-tsan (-Db_sanitize=thread) and runs memif reconnect, the vhost
# back-end restart, virtio_user server=1 with a testpmd restart and the
# short soak (every connect/disconnect loop, SIGKILL and SIGTERM loops),
# and the control-thread stall tests (vhost_ctl_stall, memif_silent: the
# shell reading what the control thread writes), and the control socket
# (integration_ctl: its runner thread beside the prompt and the loops),
# ports attached and detached under running cores (integration_hot_ports),
# the events (event: producers on several threads against the drain;
# integration_events: drivers, cores and monitors), and the measure mode
# (integration_measure: the periodic stats and the drain read what the
# cores record).
# Fails on any ThreadSanitizer report from any process they start.
#
# The whole list is a long check: the TSan build alone takes about 8
# minutes on the 2-core CI machine and the runs 5 more.
#
# --short, CI's form (scripts/run-tests): builds only the tools and the
# event unit test, and runs the reconnect and silent-peer tests, the
# control socket, the events' unit test and the measure mode (about 5
# minutes on CI).
#
#   tests/tsan/run.sh [--short] [MESON-TEST-NAME...]
set -e
cd "$(dirname "$0")/../.."
short=false
if [ "${1:-}" = "--short" ]; then short=true; shift; fi
[ -d build-tsan ] || meson setup build-tsan -Db_sanitize=thread -Db_lundef=false -Dbuildtype=debug
if $short; then
    ninja -C build-tsan cmd/vfwd/vfwd cmd/vhostd/vhostd cmd/memifctl/memifctl \
        cmd/nullgen/nullgen cmd/vfctl/vfctl tests/unit/test_event
    [ $# -gt 0 ] || set -- memif_reconnect vhost_backend_restart_split memif_silent \
        virtio_silent_backend vhost_ctl_stall integration_ctl integration_hot_ports event \
        integration_measure
else
    ninja -C build-tsan
fi
logs=$(mktemp -d /tmp/vf-tsan.XXXXXX)
# Every process writes its reports to $logs/tsan.PID; exitcode=0 so a
# report does not turn into a test failure of its own (the files decide).
TSAN_OPTIONS="suppressions=$PWD/tests/tsan/dpdk.supp log_path=$logs/tsan halt_on_error=0 exitcode=0 second_deadlock_stack=1 history_size=4"
export TSAN_OPTIONS
[ $# -gt 0 ] || set -- memif_reconnect vhost_backend_restart_split vhost_backend_restart_packed \
    virtio_testpmd_server virtio_testpmd_packed_server integration_soak vhost_ctl_stall memif_silent \
    integration_ctl event integration_events integration_hot_ports integration_measure
rc=0
meson test -C build-tsan --no-rebuild --print-errorlogs --num-processes 1 \
    --timeout-multiplier 4 "$@" || rc=$?
n=$(cat "$logs"/tsan.* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer' || true)
# The runtime's own fatal errors (a thread finished with ignores enabled,
# CHECK failed, a deadly signal) end the process through Die(), with
# exitcode=0 an exit status of 0: counted here, or they would pass unseen.
f=$(cat "$logs"/tsan.* 2>/dev/null | grep -c -e '^ThreadSanitizer: .*finished with ignores enabled' \
    -e 'ThreadSanitizer: CHECK failed' -e 'ThreadSanitizer:DEADLYSIGNAL' -e '^==[0-9]*==ERROR: ThreadSanitizer' || true)
if [ "$n" -gt 0 ] || [ "$f" -gt 0 ]; then
    echo "tsan: $n reports, $f runtime errors:"
    cat "$logs"/tsan.*
    rc=1
else
    echo "tsan: 0 reports"
fi
rm -rf "$logs"
exit $rc
