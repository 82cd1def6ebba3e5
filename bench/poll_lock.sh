# Sourced by the bench scripts that start busy-polling processes.
# vf_poll_lock "$@" re-executes the calling script under flock on
# VF_POLL_LOCK_FILE (default /tmp/vf-poll.lock), so that no two such runs
# share the two cores, unless VF_POLL_LOCKED says the caller holds the lock
# already.  A caller that took the lock with its own `flock` and did not set
# VF_POLL_LOCKED would wait for itself for ever: that case (a flock on the
# same file among our ancestors) stops at once with a message instead.
vf_poll_lock() {
    [ -n "${VF_POLL_LOCKED:-}" ] && return 0
    _lock=${VF_POLL_LOCK_FILE:-/tmp/vf-poll.lock}
    _p=$PPID
    while [ "${_p:-0}" -gt 1 ]; do
        if tr '\0' ' ' < "/proc/$_p/cmdline" 2>/dev/null |
                grep -Eq "^([^ ]*/)?flock( -[^ ]+)* $_lock "; then
            echo "$0: process $_p, which started this run, holds $_lock already; set VF_POLL_LOCKED=1 when you take the lock yourself" >&2
            exit 2
        fi
        _p=$(awk '/^PPid:/ { print $2 }' "/proc/$_p/status" 2>/dev/null || echo 0)
    done
    flock -n "$_lock" true 2>/dev/null ||
        echo "$0: waiting for $_lock (another busy-polling run holds it)" >&2
    VF_POLL_LOCKED=1 exec flock "$_lock" "$0" "$@"
}
