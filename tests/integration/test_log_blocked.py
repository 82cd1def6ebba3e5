"""A daemon whose stderr nobody reads keeps serving (log.c).

vhostd runs with its stderr on a one-page pipe that this test does not read
until the end, the way a daemon's stderr on an unread pipe or a stalled
journald stream would be.  Front-ends connect, negotiate and leave 40
times; each time vhostd logs a few lines, far more than the pipe holds.
Before log.c stopped waiting on stderr, the control thread blocked in
write(2) once the pipe was full (the 30-minute soak, stop 38): the next
front-end got no reply to GET_FEATURES and the control socket none to its
command.  Now every cycle must see its link come up and go down, and the
control socket must answer.  Then the pipe is read, one more front-end
comes and goes, and the first line it logs is preceded by the count of the
lines that did not fit; no line is half written or interleaved.

The same for DPDK's own log lines: vfwd with a dpdk:net_vhost port at -v,
whose vhost library logs each front-end's messages from its own thread,
serves 20 front-ends in a row with stderr unread."""
import fcntl
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "vhost"))
from vftest import binary, check, run, tmpdir, wait_for, _procs  # noqa: E402
import vhost_pypeer  # noqa: E402

F_SETPIPE_SZ = 1031
D = tmpdir()
iface = os.path.join(D, "v.sock")
ctl = os.path.join(D, "v.ctl")


def start_unread(args):
    """The tool with its stderr on a one-page pipe nobody reads yet:
    (process, the pipe's read end)."""
    r, w = os.pipe()
    fcntl.fcntl(w, F_SETPIPE_SZ, 4096)
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=w)
    _procs.append(p)
    os.close(w)
    return p, r


def read_held(r):
    """What the pipe holds now, without waiting for more."""
    fcntl.fcntl(r, fcntl.F_SETFL, os.O_NONBLOCK)
    held = os.read(r, 1 << 20)
    fcntl.fcntl(r, fcntl.F_SETFL, 0)
    return held


def read_rest(r):
    """Everything up to the writer's exit."""
    rest = b""
    while True:
        c = os.read(r, 65536)
        if not c:
            return rest
        rest += c


p, r = start_unread([binary("vhostd"), "--iface", iface, "--ctl", ctl, "-l", "0-1"])


def vfctl(*args):
    return run([binary("vfctl"), "-s", ctl, "-t", "5", *args], timeout=15)


def link():
    q = vfctl("show", "port", "info", "0", "json")
    check(q.returncode == 0, f"the control socket did not answer: {q.stderr}")
    return json.loads(q.stdout)["ports"][0]["link"] == "up"


wait_for(lambda: os.path.exists(ctl) and os.path.exists(iface), timeout=30, what="vhostd's sockets")
t0 = time.monotonic()
for i in range(40):
    fe = vhost_pypeer.FrontEnd(iface, packed=bool(i % 2))
    wait_for(link, timeout=10, step=0.05, what=f"link up, cycle {i}")
    fe.send_frames(8)
    fe.close()
    wait_for(lambda: not link(), timeout=10, step=0.05, what=f"link down, cycle {i}")
print(f"40 connect/leave cycles with stderr unread: {time.monotonic() - t0:.1f} s", flush=True)
# a last command, then exit; the pipe is read only now
check(vfctl("show", "port", "stats", "all", "json").returncode == 0, "control socket after the cycles")
held = read_held(r)
# one more cycle: its first line that fits brings the count of those that went
fe = vhost_pypeer.FrontEnd(iface)
wait_for(link, timeout=10, step=0.05, what="link up after the pipe was read")
fe.close()
wait_for(lambda: not link(), timeout=10, step=0.05, what="link down after the pipe was read")
p.terminate()
rest = read_rest(r)
check(p.wait(timeout=20) == 0, f"vhostd exit status {p.returncode}")
text = (held + rest).decode(errors="replace")
lines = text.splitlines()
print(f"the pipe held {len(held)} bytes; {len(lines)} lines in all", flush=True)
notes = [ln for ln in lines if "log line(s) dropped" in ln]
check(notes, f"no dropped-lines note: {text[-2000:]}")
n = sum(int(ln.split("warning: ")[1].split()[0]) for ln in notes)
print(f"dropped and counted: {n} lines in {len(notes)} note(s)", flush=True)
check(n > 0, "a note with no count")
tags = ("error: ", "warning: ", "info: ", "debug: ", "EAL: ", "TELEMETRY: ")
bad = [ln for ln in lines if not ln.startswith(tags)]
check(not bad, f"lines cut or interleaved: {bad[:5]}")

# 2. DPDK's own log lines take the same way (rte_openlog_stream): at -v
# DPDK's vhost library logs every message of a net_vhost port's
# front-end, from the one thread that serves all such ports.  Written to
# stderr by stdio, it blocked once the pipe was full, and that thread
# with it: the next front-end's link never came up.
iface2, ctl = os.path.join(D, "n.sock"), os.path.join(D, "n.ctl")
p, r = start_unread([binary("vfwd"), "--port", f"dpdk:net_vhost0,iface={iface2}", "--fwd", "io",
                     "--ctl", ctl, "-v", "-l", "0-1"])
wait_for(lambda: os.path.exists(ctl) and os.path.exists(iface2), timeout=30, what="vfwd's sockets")
for i in range(20):
    fe = vhost_pypeer.FrontEnd(iface2)
    wait_for(link, timeout=10, step=0.05, what=f"net_vhost link up, cycle {i}")
    fe.close()
    wait_for(lambda: not link(), timeout=10, step=0.05, what=f"net_vhost link down, cycle {i}")
print("20 net_vhost connect/leave cycles at -v with stderr unread", flush=True)
held = read_held(r)
fe = vhost_pypeer.FrontEnd(iface2)
wait_for(link, timeout=10, step=0.05, what="net_vhost link up after the pipe was read")
fe.close()
p.terminate()
rest = read_rest(r)
check(p.wait(timeout=20) == 0, f"vfwd exit status {p.returncode}")
lines = (held + rest).decode(errors="replace").splitlines()
notes = [ln for ln in lines if "log line(s) dropped" in ln]
check(notes, f"no dropped-lines note: {lines[-20:]}")
check(any(ln.startswith("VHOST_CONFIG: ") for ln in lines), f"no line of DPDK's vhost library: {lines[-20:]}")
bad = [ln for ln in lines if not ln.startswith(tags + ("VHOST_CONFIG: ", "VHOST_DATA: "))]
check(not bad, f"lines cut or interleaved: {bad[:5]}")
print(f"vfwd: {len(lines)} lines, dropped and counted: "
      f"{sum(int(ln.split('warning: ')[1].split()[0]) for ln in notes)}", flush=True)
print("ok")
