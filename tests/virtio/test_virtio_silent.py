"""Backends that go silent must not stall the control thread, the other
ports or the shell (issue 13, 3).

One interactive vfwd (io forwarding) with five virtio_user ports, each
paired with a null port that feeds it:
  port 0  server=0, connected at probe to a backend that accepts and never
          answers (negotiation);
  port 2  server=0, a backend that negotiates and goes silent at
          SET_MEM_TABLE (the start sequence);
  port 4  server=1, a "backend" that connects and never answers;
  port 6  server=0, a healthy backend (a vfwd vhost port, io);
  port 8  server=0, a backend that plays the whole start sequence (link
          up) and goes silent at GET_VRING_BASE (the stop).
Throughout, a sampler runs `show port stats all json` over the shell's
pipe every 10 ms, and every other command is followed by the same query:
each round trip is timed; the issue's 100 ms is reported, and one over
500 ms (a wait on a backend: the old code held the shell 5 s) fails.
  - the healthy port is up and has forwarded 1000 packets within 2.5 s of
    the shell's first answer, while ports 0, 2 and 4 are still pending;
  - `stop`, `port stop 8` (its GET_VRING_BASE is never answered) and
    `port attach` of another server=0 port to the silent backend return
    within the same bound; port 8 is down at once (state "stopping"), and
    once its reply deadline has passed it is disconnected with the reason
    (last_error names GET_VRING_BASE);
  - forwarding starts again and the healthy port goes on forwarding.
Before, the silent port 0 held the probe for its 5 s reply timeout and
then failed the run; port 2's start sequence held the start of every later
port; `port stop 8` held the shell for 5 s."""
import os
import queue
import socket
import struct
import subprocess
import sys
import threading
import time
import json

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import vftest  # noqa: E402
from vftest import binary, check, fail  # noqa: E402

UP_WITHIN = 2.5         # s, healthy port up and forwarding (the old code: 5 s)

GET_FEATURES, SET_MEM_TABLE, GET_VRING_BASE = 1, 5, 11
GET_PROTOCOL_FEATURES = 15
NEED_REPLY = 0x8
FEATURES = (1 << 32) | (1 << 30)            # VERSION_1, PROTOCOL_FEATURES
PROTOCOL = (1 << 3) | (1 << 16)             # REPLY_ACK, STATUS


class Backend:
    """A vhost-user listener that plays the protocol (no data path) until
    request `silent_at` arrives (0: the first one), and from then on reads
    and never answers, keeping the connection open."""

    def __init__(self, path, silent_at):
        self.silent_at = silent_at
        self.requests = []
        self.conns = []
        self.ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.ls.bind(path)
        self.ls.listen(4)
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                c, _ = self.ls.accept()
            except OSError:
                return
            self.conns.append(c)
            threading.Thread(target=self.serve, args=(c,), daemon=True).start()

    def serve(self, c):
        silent = self.silent_at == 0
        try:
            while True:
                msg, anc, _, _ = c.recvmsg(12, socket.CMSG_SPACE(8 * 4))
                if len(msg) < 12:
                    return
                for lvl, typ, data in anc:
                    if lvl == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
                        for fd in struct.unpack(f"<{len(data) // 4}i", data):
                            os.close(fd)
                req, flags, size = struct.unpack("<III", msg)
                p = b""
                while len(p) < size:
                    p += c.recv(size - len(p))
                self.requests.append(req)
                silent = silent or req == self.silent_at
                if not silent:
                    self.answer(c, req, flags, p)
        except OSError:
            return

    def answer(self, c, req, flags, p):
        def reply(payload):
            c.sendall(struct.pack("<III", req, 0x5, len(payload)) + payload)
        if req == GET_FEATURES:
            reply(struct.pack("<Q", FEATURES))
        elif req == GET_PROTOCOL_FEATURES:
            reply(struct.pack("<Q", PROTOCOL))
        elif req == GET_VRING_BASE:
            reply(struct.pack("<II", struct.unpack("<I", p[:4])[0], 0))
        elif flags & NEED_REPLY:
            reply(struct.pack("<Q", 0))


class Shell:
    """vfwd -i over a pipe; every command is timed until the JSON answer of
    the stats query sent after it."""

    def __init__(self, args):
        self.p = subprocess.Popen([binary("vfwd"), "-i"] + args, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  bufsize=1)
        vftest._procs.append(self.p)
        self.q = queue.Queue()
        self.log = []
        self.lock = threading.Lock()
        self.times = []         # (command, seconds)
        threading.Thread(target=self.reader, daemon=True).start()

    def reader(self):
        for ln in self.p.stdout:
            self.log.append(ln.rstrip("\n"))
            if ln.startswith("{"):
                self.q.put(ln)
        self.q.put(None)

    def text(self):
        return "\n".join(self.log[-60:])

    def rt(self, command, first=False):
        """command, then `show port stats all json`: returns the parsed
        answer; the time to it is recorded (not for the first one)."""
        with self.lock:
            while not self.q.empty():
                self.q.get_nowait()
            t0 = time.monotonic()
            try:
                if command:
                    self.p.stdin.write(command + "\n")
                self.p.stdin.write("show port stats all json\n")
                self.p.stdin.flush()
            except (BrokenPipeError, ValueError):
                fail(f"vfwd is gone:\n{self.text()}")
            while True:
                try:
                    ln = self.q.get(timeout=60)
                except queue.Empty:
                    fail(f"no answer to {command!r}:\n{self.text()}")
                if ln is None:
                    fail(f"vfwd exited ({self.p.poll()}) during {command!r}:\n{self.text()}")
                obj = json.loads(ln)
                if "ports" in obj and len(obj["ports"]) > 1 and "ipackets" in obj["ports"][0]:
                    break
            dt = time.monotonic() - t0
            if not first:
                self.times.append((command or "show port stats all json", dt))
            return {p["id"]: p for p in obj["ports"]}

    def info(self, port):
        with self.lock:
            while not self.q.empty():
                self.q.get_nowait()
            self.p.stdin.write(f"show port info {port} json\n")
            self.p.stdin.flush()
            ln = self.q.get(timeout=60)
            check(ln is not None, f"vfwd exited:\n{self.text()}")
            return json.loads(ln)["ports"][0]["driver_info"]


d = vftest.tmpdir()
paths = {k: os.path.join(d, f"{k}.sock") for k in ("s0", "s2", "s4", "h6", "s8")}
Backend(paths["s0"], 0)
Backend(paths["s2"], SET_MEM_TABLE)
silent8 = Backend(paths["s8"], GET_VRING_BASE)
healthy = subprocess.Popen([binary("vfwd"), "-l", "0-1", "--main-lcore", "1", "--port",
                            f"vhost,iface={paths['h6']}", "--fwd", "io", "--duration", "120"],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
vftest._procs.append(healthy)
vftest.wait_for(lambda: os.path.exists(paths["h6"]), timeout=60, what="the healthy backend")

vu = lambda p, extra="": f"virtio_user,path={paths[p]}{extra}"  # noqa: E731
sh = Shell(["-l", "0-1", "--fwd", "io", "-a",
            "--port", vu("s0"), "--port", "null",
            "--port", vu("s2"), "--port", "null",
            "--port", vu("s4", ",server=1"), "--port", "null",
            "--port", vu("h6"), "--port", "null",
            "--port", vu("s8"), "--port", "null"])
st = sh.rt(None, first=True)     # the shell is up
t_up = time.monotonic()

stop_sampling = threading.Event()


def sampler():
    while not stop_sampling.is_set():
        sh.rt(None)
        time.sleep(0.01)


sampling = threading.Thread(target=sampler, daemon=True)
sampling.start()

# port 4: a "backend" connects and never answers
s4 = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
vftest.wait_for(lambda: os.path.exists(paths["s4"]), timeout=10, what="port 4's socket")
s4.connect(paths["s4"])

# the healthy port: up and forwarding within UP_WITHIN of the shell's first answer
base = None
while True:
    st = sh.rt(None)
    if st[6]["link"] == "up":
        if base is None:
            base = st[6]["opackets"]
        if st[6]["opackets"] >= base + 1000:
            break
    check(time.monotonic() - t_up < 10, f"healthy port: {st[6]}\n{sh.text()}")
took = time.monotonic() - t_up
check(took <= UP_WITHIN, f"the healthy port forwarded only {took:.3f} s after the shell was up")
i0, i2, i4 = sh.info(0), sh.info(2), sh.info(4)
check(st[0]["link"] == "down" and i0["state"] == "negotiating", f"port 0: {i0}")
check(st[2]["link"] == "down" and i2["state"] == "starting", f"port 2: {i2}")
check(st[4]["link"] == "down" and i4["state"] == "negotiating", f"port 4: {i4}")

# port 8 came up (its backend answered the whole start sequence)
vftest.wait_for(lambda: sh.rt(None)[8]["link"] == "up", timeout=10, what="port 8 up")

# the stop: forwarding, then port 8 whose backend never answers GET_VRING_BASE
sh.rt("stop")
n_req = len(silent8.requests)
st = sh.rt("port stop 8")
check(st[8]["link"] == "down", f"port 8 still up after its stop: {st[8]}")
i8 = sh.info(8)
check(i8["state"] == "stopping", f"port 8 after stop: {i8}")
vftest.wait_for(lambda: GET_VRING_BASE in silent8.requests[n_req:], timeout=10,
                what="GET_VRING_BASE sent to port 8's backend")
# a new server=0 port to a silent backend, attached from the shell
st = sh.rt(f"port attach {vu('s0')}")
check(10 in st and st[10]["link"] == "down", f"attached port: {st.get(10)}")
sh.rt("start")
base = sh.rt(None)[6]["opackets"]
vftest.wait_for(lambda: sh.rt(None)[6]["opackets"] > base + 1000, timeout=10,
                what="the healthy port forwarding again")
# port 8's reply deadline passes: hung up on, with the reason
vftest.wait_for(lambda: not sh.info(8)["connected"], timeout=30, what="port 8 hung up on")
i8 = sh.info(8)
check("GET_VRING_BASE" in i8["last_error"] and "disconnected" in i8["last_error"], f"{i8}")
check(sh.rt(None)[6]["link"] == "up", "healthy port still up")

stop_sampling.set()
sampling.join()
worst = max(sh.times, key=lambda x: x[1])
print(f"healthy port forwarding {took:.3f} s after the shell was up; slowest round trip: "
      f"{worst[0]}", flush=True)
vftest.check_round_trips([t for _, t in sh.times])
s4.close()
sh.p.stdin.write("quit\n")
sh.p.stdin.flush()
check(sh.p.wait(timeout=30) == 0, f"vfwd exit {sh.p.returncode}:\n{sh.text()}")
healthy.kill()
print("ok")
