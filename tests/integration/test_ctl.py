"""The control socket (--ctl) and its client vfctl, against vhostd and
memifctl: the replies are the shell's, failures give exit status 1, bad
input gets an error or a closed connection and never a stall, and another
local user gets in only when the socket's group lets it."""
import grp
import os
import pwd
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from vftest import binary, check, fail, run, start, tmpdir, wait_for  # noqa: E402

VFCTL = binary("vfctl")
D = tmpdir()
os.chmod(D, 0o755)          # the second user's client must reach the sockets
CORES = ["-l", "0-1"]


def vfctl(sock, *args, input=None, timeout=30):
    return run([VFCTL, "-s", sock, "-t", "20", *args], input=input, timeout=timeout)


def raw(sock):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(sock)
    return s


def read_reply(s):
    """Lines of one reply up to its end line, or up to EOF (then None ends it)."""
    buf, lines = b"", []
    while True:
        while b"\n" in buf:
            ln, buf = buf.split(b"\n", 1)
            lines.append(ln.decode(errors="replace"))
            if ln.startswith(b"="):
                return lines, buf
        try:
            chunk = s.recv(65536)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            lines.append(None)
            return lines, buf
        buf += chunk


def eof_soon(s):
    s.settimeout(5)
    try:
        while s.recv(65536):
            pass
        return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def shell_replies(argv, cmds):
    """stdout and the error lines of the same commands through the piped shell."""
    # -a: forwarding runs, as in the daemon
    r = run(argv + ["--ctl", "none", "-a"], input="\n".join(cmds) + "\nquit\n", timeout=60)
    check(r.returncode == 0, f"shell run failed: {r.stderr}")
    return r.stdout, [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]


# Deterministic commands (no MACs, no rates from traffic), one that fails.
CMDS = ["help", "help show port", "show config rxtx", "show config fwd json",
        "show port stats all json", "set burst 16", "show config rxtx json",
        "set fwd no-such-mode", "# a comment", "", "show config fwd"]


def bad_input(sock):
    r = vfctl(sock, "no", "such", "command")
    check(r.returncode == 1 and "unknown command" in r.stderr, f"unknown command: {r}")
    r = run([VFCTL, "-s", os.path.join(D, "nothing.ctl"), "help"])
    check(r.returncode == 2, f"no socket: status {r.returncode}")
    # a line over 4 KiB: an error reply, then the connection closes
    s = raw(sock)
    s.sendall(b"show " + b"x" * 5000)
    lines, _ = read_reply(s)
    check(lines[-1] == "=error" and any("too long" in (x or "") for x in lines), f"long line: {lines}")
    check(eof_soon(s), "connection not closed after a too long line")
    s.close()
    # binary data
    s = raw(sock)
    s.sendall(b"show \x00\x01\xfe\xff port\n")
    lines, _ = read_reply(s)
    check(lines[-1] in ("=error", None), f"binary: {lines}")
    check(eof_soon(s), "connection not closed after binary data")
    s.close()
    # several commands in one write: one reply each, in order
    s = raw(sock)
    s.sendall(b"show config rxtx json\nno-such\nhelp quit\n")
    ends = []
    buf = b""
    for _ in range(3):
        lines, buf = read_reply_from(s, buf)
        ends.append(lines[-1])
    check(ends == ["=ok", "=error", "=ok"], f"pipelined: {ends}")
    s.close()
    # a last line without its newline, then a half close: run, answered, closed
    s = raw(sock)
    s.sendall(b"help quit")
    s.shutdown(socket.SHUT_WR)
    lines, _ = read_reply(s)
    check(lines[-1] == "=ok" and lines[0].startswith(".quit"), f"unterminated last line: {lines}")
    check(eof_soon(s), "connection not closed after the client's half close")
    s.close()
    # a client that floods and never reads does not stall another one
    hog = raw(sock)
    hog.setblocking(False)
    sent = 0
    try:
        for _ in range(20000):
            sent += hog.send(b"help\n" * 64)
    except BlockingIOError:
        pass
    check(sent > 0, "the flooding client sent nothing")
    t = time.monotonic()
    r = vfctl(sock, "show", "config", "fwd", timeout=20)
    dt = time.monotonic() - t
    print(f"flooding client ({sent} bytes sent, never read): another client answered in "
          f"{dt * 1000:.0f} ms", flush=True)
    check(r.returncode == 0 and dt < 5, f"another client stalled: {dt:.1f} s {r.stderr}")
    # more clients than allowed: the extra one is told, the rest go on
    idle = [raw(sock) for _ in range(15)]
    extra = raw(sock)
    lines, _ = read_reply(extra)
    check(any("too many" in (x or "") for x in lines), f"client 17: {lines}")
    for c in idle + [extra, hog]:
        c.close()
    time.sleep(0.3)
    r = vfctl(sock, "help", "quit")
    check(r.returncode == 0 and r.stdout.startswith("quit"), f"after the bad clients: {r}")


def read_reply_from(s, buf):
    lines = []
    while True:
        while b"\n" in buf:
            ln, buf = buf.split(b"\n", 1)
            lines.append(ln.decode())
            if ln.startswith(b"="):
                return lines, buf
        chunk = s.recv(65536)
        if not chunk:
            fail(f"closed mid-reply: {lines}")
        buf += chunk


def other_user(sock_dir):
    """Refused unless the socket's group lets the user in (root only)."""
    if os.geteuid() != 0:
        print("SKIP (other user): needs root")
        return
    user, group = "vft-peer", "vft-peers"
    try:
        grp.getgrnam(group)
    except KeyError:
        subprocess.run(["groupadd", "--system", group], check=True)
    try:
        pwd.getpwnam(user)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                        "--user-group", "--groups", group, user], check=True)
    if user not in grp.getgrnam(group).gr_mem:
        subprocess.run(["usermod", "-a", "-G", group, user], check=True)
    as_peer = ["setpriv", "--reuid", user, "--regid", str(pwd.getpwnam(user).pw_gid),
               "--init-groups", "--"]
    # mode 0666: the file lets anyone connect; SO_PEERCRED refuses
    sock = os.path.join(sock_dir, "open.ctl")
    p = start([binary("vhostd"), "--iface", os.path.join(sock_dir, "o.sock"), "--ctl", sock,
               "--ctl-mode", "0666"] + CORES)
    wait_for(lambda: os.path.exists(sock), what="control socket (0666)")
    r = run(as_peer + [VFCTL, "-s", sock, "help"])
    check(r.returncode != 0 and "not allowed" in r.stderr, f"other user not refused: {r}")
    check(vfctl(sock, "help").returncode == 0, "root refused")
    p.terminate()
    p.wait(timeout=30)
    # default mode 0600: not even connect
    sock = os.path.join(sock_dir, "closed.ctl")
    p = start([binary("vhostd"), "--iface", os.path.join(sock_dir, "c.sock"), "--ctl", sock] + CORES)
    wait_for(lambda: os.path.exists(sock), what="control socket (0600)")
    check(os.stat(sock).st_mode & 0o777 == 0o600, f"mode {oct(os.stat(sock).st_mode)}")
    r = run(as_peer + [VFCTL, "-s", sock, "help"])
    check(r.returncode == 2, f"other user on a 0600 socket: {r}")
    p.terminate()
    p.wait(timeout=30)
    # the group's members get in
    sock = os.path.join(sock_dir, "group.ctl")
    p = start([binary("vhostd"), "--iface", os.path.join(sock_dir, "g.sock"), "--ctl", sock,
               "--ctl-mode", "0660", "--ctl-group", group] + CORES)
    wait_for(lambda: os.path.exists(sock), what="control socket (group)")
    r = run(as_peer + [VFCTL, "-s", sock, "help", "quit"])
    check(r.returncode == 0, f"group member refused: {r}")
    p.terminate()
    p.wait(timeout=30)


t0 = time.monotonic()
# vhostd
vh_argv = [binary("vhostd"), "--iface", os.path.join(D, "vh0.sock")] + CORES
vsock = os.path.join(D, "vhostd.ctl")
vh = start(vh_argv + ["--ctl", vsock])
wait_for(lambda: os.path.exists(vsock), what="vhostd's control socket")
check(os.stat(vsock).st_mode & 0o777 == 0o600, "control socket not 0600")
# a second daemon on the same --ctl is an error; on an unusable default it warns
r = run([binary("vhostd"), "--iface", os.path.join(D, "vh9.sock"), "--ctl", vsock, "--duration", "1"] + CORES)
check(r.returncode == 1 and "listens there" in r.stderr, f"second --ctl on a live socket: {r}")
bad_input(vsock)
vh.terminate()
check(vh.wait(timeout=30) == 0, "vhostd did not stop cleanly")
check(not os.path.exists(vsock), "control socket left behind")
# the shell comparison needs the same port paths: run it after the daemon stops
vh = start(vh_argv + ["--ctl", vsock])
wait_for(lambda: os.path.exists(vsock), what="vhostd's control socket")
r = vfctl(vsock, "show", "port", "info", "0")
check(r.returncode == 0 and "vhost0" in r.stdout, f"show port info: {r}")
# the comparison runs the shell with the same --iface: stop the daemon first,
# keep its replies
cmds_out = vfctl(vsock, "-f", "/dev/stdin", input="\n".join(CMDS) + "\n")
r = vfctl(vsock, "quit")
check(r.returncode == 0, f"quit: {r}")
check(vh.wait(timeout=30) == 0, "vhostd did not exit after quit")
out, errs = shell_replies(vh_argv, CMDS)
check(cmds_out.stdout == out, f"vhostd: vfctl and the shell differ:\n--- vfctl\n{cmds_out.stdout}\n"
      f"--- shell\n{out}")
check([ln for ln in cmds_out.stderr.splitlines() if ln.startswith("error:")] == errs,
      f"vhostd: error lines differ: {cmds_out.stderr} vs {errs}")
check(cmds_out.returncode == 1, f"vhostd: a failed command gives status 1: {cmds_out.returncode}")

# memifctl (its own command: show memif)
m_argv = [binary("memifctl"), "--role", "server", "--socket", os.path.join(D, "m.sock"),
          "--socket-abstract", "no"] + CORES
msock = os.path.join(D, "memifctl.ctl")
m = start(m_argv + ["--ctl", msock])
wait_for(lambda: os.path.exists(msock), what="memifctl's control socket")
m_out = vfctl(msock, input="\n".join(CMDS + ["help show memif", "show memif all"]) + "\n")
r = vfctl(msock, "show", "memif", "all", "json")
check(r.returncode == 0 and '"memif"' in r.stdout, f"show memif: {r}")
m.terminate()
check(m.wait(timeout=30) == 0, "memifctl did not stop cleanly")
out, errs = shell_replies(m_argv, CMDS + ["help show memif", "show memif all"])
check(m_out.stdout == out, f"memifctl: vfctl and the shell differ:\n--- vfctl\n{m_out.stdout}\n"
      f"--- shell\n{out}")

# The piped shell and the control socket at once: the runner's commands
# beside the shell's own, on the same session (ThreadSanitizer runs this too).
sh = subprocess.Popen(m_argv + ["--ctl", msock], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE, text=True)
wait_for(lambda: os.path.exists(msock), what="the shell's control socket")
busy = os.path.join(D, "busy")
with open(busy, "w") as f:
    f.write("show port stats all json\nstart\nshow fwd stats all json\nstop\nshow config fwd json\n" * 5)
t1 = time.monotonic()
for _ in range(5):
    sh.stdin.write("show port stats all json\nset burst 8\nshow config rxtx json\n")
    sh.stdin.flush()
    r = vfctl(msock, "-f", busy)
    check(r.returncode in (0, 1) and "{" in r.stdout, f"vfctl beside the shell: {r}")
out, err = sh.communicate("quit\n", timeout=30)
print(f"vfctl beside the shell: {time.monotonic() - t1:.1f} s", flush=True)
check(sh.returncode == 0 and out.count("{") >= 10, f"the shell beside vfctl: {sh.returncode} {err}")

# every tool takes --ctl: vfwd too (off by default there)
fsock = os.path.join(D, "vfwd.ctl")
f = start([binary("vfwd"), "--port", "null", "--ctl", fsock] + CORES)
wait_for(lambda: os.path.exists(fsock), what="vfwd's control socket")
r = vfctl(fsock, "show", "port", "stats", "0", "json")
check(r.returncode == 0 and '"null0"' in r.stdout, f"vfwd --ctl: {r}")
f.terminate()
check(f.wait(timeout=30) == 0, "vfwd did not stop cleanly")

other_user(D)
print(f"ok ({time.monotonic() - t0:.1f} s)")
