"""systemd's readiness protocol: vhostd and memifctl, started with
NOTIFY_SOCKET set to a datagram socket of the test's own, send READY=1 and
STATUS= once their ports are set up, and STOPPING=1 when told to stop.
Argument: "systemd" when the build has libsystemd (else the tools notify
nobody and the test is skipped)."""
import os
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from vftest import binary, check, start, tmpdir  # noqa: E402

if len(sys.argv) < 2 or sys.argv[1] != "systemd":
    print("SKIP: built without libsystemd: no sd_notify")
    sys.exit(77)

D = tmpdir()


def messages(sock, until, timeout=20):
    """Datagrams' fields (KEY=VALUE lines) until one has the key `until`."""
    seen = {}
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        sock.settimeout(max(0.1, end - time.monotonic()))
        try:
            data = sock.recv(4096).decode()
        except socket.timeout:
            break
        for ln in data.splitlines():
            k, _, v = ln.partition("=")
            seen[k] = v
        if until in seen:
            return seen
    return seen


def case(name, argv, status_has):
    t = time.monotonic()
    path = os.path.join(D, name + ".notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    p = start(argv + ["-l", "0-1"], env=dict(os.environ, NOTIFY_SOCKET=path))
    got = messages(sock, "READY")
    check(got.get("READY") == "1", f"{name}: no READY=1: {got} {p.poll()}")
    check(status_has in got.get("STATUS", ""), f"{name}: STATUS= {got.get('STATUS')!r} lacks {status_has!r}")
    check(got.get("MAINPID") == str(p.pid), f"{name}: MAINPID {got.get('MAINPID')} != {p.pid}")
    p.send_signal(signal.SIGTERM)
    got = messages(sock, "STOPPING")
    check(got.get("STOPPING") == "1", f"{name}: no STOPPING=1: {got}")
    check(p.wait(timeout=30) == 0, f"{name}: exit status {p.returncode}")
    sock.close()
    print(f"{name}: READY, STATUS, STOPPING in {time.monotonic() - t:.1f} s", flush=True)


case("vhostd", [binary("vhostd"), "--iface", os.path.join(D, "a.sock"), "--iface",
                os.path.join(D, "b.sock"), "--ctl", os.path.join(D, "v.ctl")], "2 ports set up")
case("memifctl", [binary("memifctl"), "--role", "server", "--socket", os.path.join(D, "m.sock"),
                  "--socket-abstract", "no", "--ctl", "none"], "1 port set up")
print("ok")
