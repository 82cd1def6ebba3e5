#!/usr/bin/env python3
"""The devargs contract, over every driver: a port spec that is wrong
(unknown driver or key, a bad value, a required key missing, keys that
exclude or need each other) is refused before anything starts, with exit
status 2 and one line on stderr that names what was wrong and what is
accepted; the same through the tools' own options (vhostd --iface,
memifctl --socket) and through the shell's `port attach` (refused, the run
goes on)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vftest  # noqa: E402
from vftest import check  # noqa: E402

SOCK = "/tmp/vf-contract-none.sock"   # never created: nothing may start

CASES = [
    # (tool, args, what the line must say)
    ("vfwd", ["--port", "bogus"], "unknown driver 'bogus'"),
    ("vfwd", ["--port", "null,bogus=1"], "accepted keys are"),
    ("vfwd", ["--port", "null,size=3"], "expected an integer in 14..9000"),
    ("vfwd", ["--port", "null,copy=1,no-rx=1"], "copy=1 and no-rx=1 exclude each other"),
    ("vfwd", ["--port", "dpdk:"], "expected dpdk:DEVICE[,args]"),
    ("vfwd", ["--port", "virtio_user"], "virtio_user needs path=SOCKET"),
    ("vfwd", ["--port", f"virtio_user,path={SOCK},queue_size=100"], "queue_size=100 is not a power of 2"),
    ("vfwd", ["--port", f"virtio_user,path={SOCK},host_tso4=1"], "host_tso4=1 needs csum=1"),
    ("vfwd", ["--port", f"virtio_user,path={SOCK},guest_csum=1,guest_tso4=1,mrg_rxbuf=0"],
     "guest_tso4=1 needs mrg_rxbuf=1"),
    ("vfwd", ["--port", f"virtio_user,path={SOCK},server=1,socket-mode=999"], "socket-mode"),
    ("vfwd", ["--port", f"virtio_user,path={SOCK},allow-uid=vf-no-such-user"], "vf-no-such-user"),
    ("vfwd", ["--port", "vhost"], "iface=PATH is required"),
    ("vfwd", ["--port", f"vhost,iface={SOCK},csum=0,host_tso4=1"], "host_tso4=1 needs csum=1"),
    ("vfwd", ["--port", f"vhost,iface={SOCK},allow-gid=vf-no-such-group"], "vf-no-such-group"),
    ("vfwd", ["--port", f"vhost,iface={SOCK},queues=99"], "queues"),
    ("vfwd", ["--port", "memif,socket=@"], "socket: empty name"),
    ("vfwd", ["--port", "memif,role=bogus"], "expected one of server|client"),
    ("vfwd", ["--port", "memif,secret=s3cr3t,bogus=1"], "accepted keys are"),
    ("vhostd", ["--iface", SOCK, "--queues", "99"], "--queues"),
    ("vhostd", ["--iface", SOCK, "--allow-uid", "vf-no-such-user"], "vf-no-such-user"),
    ("memifctl", ["--socket", "@"], "socket: empty name"),
    ("memifctl", ["--role", "server", "--socket-mode", "999"], "--socket-mode"),
]


def main():
    for tool, args, want in CASES:
        r = vftest.run([vftest.binary(tool), "-l", "0-1"] + args + ["--duration", "1"], timeout=60)
        what = f"{tool} {' '.join(args)}"
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        check(r.returncode == 2, f"{what}: exit {r.returncode}, want 2: {r.stderr!r}")
        check(len(lines) == 1, f"{what}: {len(lines)} lines on stderr, want 1: {r.stderr!r}")
        check(want in r.stderr, f"{what}: stderr lacks {want!r}: {r.stderr!r}")
        check(lines[0].startswith(f"{tool}: "), f"{what}: the line does not name the tool: {lines[0]!r}")
        check("s3cr3t" not in r.stderr, f"{what}: a secret in the message: {r.stderr!r}")
        check(r.stdout == "", f"{what}: stdout not empty: {r.stdout!r}")
        print(f"ok: {what}: {lines[0]}")
    # the shell's port attach: the same refusal, one error line, the run goes on
    r = vftest.run([vftest.binary("vfwd"), "-l", "0-1", "--port", "null"],
                   input="port attach null,copy=1,no-rx=1\nport attach vhost\nshow port info all\nquit\n",
                   timeout=60)
    check(r.returncode == 0, f"shell: exit {r.returncode}: {r.stderr!r}")
    errs = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    check(len(errs) == 2, f"shell: {len(errs)} error lines, want 2: {r.stderr!r}")
    check("exclude each other" in errs[0] and "iface=PATH is required" in errs[1],
          f"shell: wrong reasons: {errs}")
    print("ok: shell port attach refused twice, one line each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
