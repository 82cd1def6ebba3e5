"""The prompt on a real terminal: prompt, tab completion, history (which
never keeps a line with a secret=)."""
import os
import pty
import select
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
from vftest import binary, check, fail, tmpdir  # noqa: E402

vfwd = binary("vfwd")
state = tmpdir()


def spawn():
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["XDG_STATE_HOME"] = state
        os.environ["TERM"] = "xterm"
        os.execv(vfwd, [vfwd, "-i", "--port", "null", "--port", "null"])
    return pid, fd


_pending = {}


def read_until(fd, needle, timeout=20):
    """Output up to the end of needle; what follows stays for the next call
    (a prompt often arrives in the same read as the command's output)."""
    buf = _pending.get(fd, b"")
    end = time.time() + timeout
    while True:
        i = buf.find(needle.encode())
        if i >= 0:
            _pending[fd] = buf[i + len(needle):]
            return buf[:i + len(needle)].decode(errors="replace")
        if time.time() >= end:
            break
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
    fail(f"did not see {needle!r}; got {buf.decode(errors='replace')!r}")


# a history file from before secrets were kept out: its secret line goes
os.makedirs(os.path.join(state, "vfwd"))
with open(os.path.join(state, "vfwd", "vfwd_history"), "w") as f:
    f.write("_HiStOrY_V2_\nport\\040attach\\040memif,secret=oldsecret9\nset\\040burst\\04032\n")
pid, fd = spawn()
read_until(fd, "vfwd> ")
os.write(fd, b"show po\t")
read_until(fd, "rt ")            # completed to "show port " (redrawn in place)
os.write(fd, b"st\t")
read_until(fd, "ats ")
os.write(fd, b" all json\r")
read_until(fd, '"ports"')
out = read_until(fd, "}]}")
check('"ipackets"' in out, f"command ran: {out!r}")
read_until(fd, "vfwd> ")
# a line with a secret runs but is not kept (the history file outlives us)
os.write(fd, b"port attach memif,role=client,socket=@vft-pty-%d,secret=hunter2pty"
         b"\r" % os.getpid())
read_until(fd, "vfwd> ")
os.write(fd, b"show port info 2 json\r")
out = read_until(fd, "vfwd> ")
check("secret=***" in out and "hunter2pty" not in out, f"attached, secret shown: {out!r}")
os.write(fd, b"set burst 16\r")
read_until(fd, "vfwd> ")
os.write(fd, b"\x1b[A")          # up arrow: the last line again
read_until(fd, "set burst 16")
os.write(fd, b"\x15quit\r")      # ^U clears the recalled line
os.waitpid(pid, 0)
# libedit's file format escapes blanks as \040
hist = " ".join(open(os.path.join(state, "vfwd", "vfwd_history")).read().replace("\\040", " ").split())
check("set burst 16" in hist and "show port stats all json" in hist, f"history file: {hist!r}")
check("hunter2pty" not in hist and "port attach" not in hist, f"secret in history: {hist!r}")
check("oldsecret9" not in hist and "set burst 32" in hist, f"old history: {hist!r}")

# history survives a restart
pid, fd = spawn()
read_until(fd, "vfwd> ")
os.write(fd, b"\x1b[A")
read_until(fd, "quit")
os.write(fd, b"\r")
os.waitpid(pid, 0)
print("ok")
