"""Helpers for the memif integration tests: our tools and dpdk-testpmd as
interactive processes driven over a pipe, their answers parsed.  Everything
started here is killed at exit (vftest's atexit) and waits are by polling
for a condition, never fixed sleeps of the result."""
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
import vftest  # noqa: E402
from vftest import binary, check, fail, wait_for  # noqa: E402,F401


def sock_name(tag):
    """A unique abstract socket name for this test process."""
    return f"@vft-memif-{os.getpid()}-{tag}"


class Proc:
    """A process whose merged stdout/stderr is collected line by line."""

    def __init__(self, args, env=None, interactive=True):
        """interactive=False: stdin is /dev/null (a pipe would make our
        tools read shell commands from it)."""
        self.args = args
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE if interactive else subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, bufsize=1, env=env)
        vftest._procs.append(self.p)
        self.lines = []
        self.lock = threading.Condition()
        self.t = threading.Thread(target=self._reader, daemon=True)
        self.t.start()

    def _reader(self):
        for ln in self.p.stdout:
            with self.lock:
                self.lines.append(ln.rstrip("\n"))
                self.lock.notify_all()
        with self.lock:
            self.lock.notify_all()

    def mark(self):
        with self.lock:
            return len(self.lines)

    def since(self, n):
        with self.lock:
            return list(self.lines[n:])

    def text(self):
        with self.lock:
            return "\n".join(self.lines)

    def cmd(self, line):
        try:
            self.p.stdin.write(line + "\n")
            self.p.stdin.flush()
        except (BrokenPipeError, ValueError):
            fail(f"{self.args[0]} is gone; output:\n{self.text()[-3000:]}")

    def wait_line(self, pred, start, timeout=30, what="output"):
        end = time.time() + timeout
        while time.time() < end:
            lines = self.since(start)
            for ln in lines:
                if pred(ln):
                    return ln
            if self.p.poll() is not None:
                time.sleep(0.2)
                for ln in self.since(start):
                    if pred(ln):
                        return ln
                fail(f"{self.args[0]} exited ({self.p.returncode}) waiting for {what}; "
                     f"output:\n{self.text()[-3000:]}")
            # woken by the reader at each new line (timed: the exit check)
            with self.lock:
                if len(self.lines) <= start + len(lines):
                    self.lock.wait(0.05)
        fail(f"timed out waiting for {what}; output:\n{self.text()[-3000:]}")

    def kill(self, sig=signal.SIGKILL):
        if self.p.poll() is None:
            self.p.send_signal(sig)
        try:
            self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()

    def quit(self, line="quit", timeout=30):
        """Ask the shell to quit; SIGKILL if it does not within timeout."""
        try:
            self.p.stdin.write(line + "\n")
            self.p.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
        return self.p.returncode


class Ours(Proc):
    """memifctl or vfwd in interactive mode (-i), commands on stdin."""

    def __init__(self, tool, args):
        super().__init__([binary(tool), "-i", "-l", "0-1"] + args)

    def query(self, command, timeout=30):
        n = self.mark()
        self.cmd(command)
        return json.loads(self.wait_line(lambda ln: ln.startswith("{"), n, timeout, command))

    def info(self, port=0):
        return self.query(f"show port info {port} json")["ports"][0]

    def dinfo(self, port=0):
        return self.info(port)["driver_info"]

    def stats(self, port=0):
        return self.query(f"show port stats {port} json")["ports"][0]

    def wait_state(self, state, port=0, timeout=60):
        wait_for(lambda: self.dinfo(port)["state"] == state, timeout=timeout, step=0.2,
                 what=f"memif port {port} state {state}")

    def pid(self):
        return self.p.pid


class TestPmd(Proc):
    """dpdk-testpmd -i over a pipe, stdout line-buffered with stdbuf."""

    def __init__(self, vdev, pmd_args=(), lcores="0-1"):
        args = vftest.testpmd_args([vdev], ["-i", "--total-num-mbufs=4096"] + list(pmd_args),
                                   lcores=lcores)
        super().__init__(["stdbuf", "-oL"] + args)
        self.wait_line(lambda ln: "testpmd>" in ln or "Done" in ln, 0, 60, "testpmd start")

    def port_stats(self):
        """Cumulative RX/TX packets and bytes of port 0."""
        n = self.mark()
        self.cmd("show port stats 0")
        # Output of earlier commands (e.g. "stop" prints forward stats) may
        # still arrive: wait for the line only "show port stats" prints.
        txre = r"TX-packets:\s*(\d+)\s+TX-errors:\s*\d+\s+TX-bytes:\s*(\d+)"
        self.wait_line(lambda ln: re.search(txre, ln), n, 30, "testpmd port stats")
        txt = "\n".join(self.since(n))
        rxs = re.findall(r"RX-packets:\s*(\d+)\s+RX-missed:\s*\d+\s+RX-bytes:\s*(\d+)", txt)
        txs = re.findall(txre, txt)
        check(rxs and txs, f"cannot parse testpmd stats:\n{txt}")
        rx, tx = _M(rxs[-1]), _M(txs[-1])
        return {"rx": int(rx.group(1)), "rx_bytes": int(rx.group(2)),
                "tx": int(tx.group(1)), "tx_bytes": int(tx.group(2))}

    def link_up(self):
        n = self.mark()
        self.cmd("show port info 0")
        ln = self.wait_line(lambda ln: "Link status:" in ln, n, 30, "testpmd link status")
        return "up" in ln

    def wait_link(self, timeout=60):
        wait_for(self.link_up, timeout=timeout, step=0.3, what="testpmd memif link up")


class _M:
    """re.findall tuple with the .group() of a match."""

    def __init__(self, t):
        self.t = t

    def group(self, i):
        return self.t[i - 1]


def _sanitizer_logs():
    """log_path prefixes from TSAN_OPTIONS/ASAN_OPTIONS (tests/tsan/run.sh
    sets one); none in a normal run."""
    out = []
    for var in ("TSAN_OPTIONS", "ASAN_OPTIONS", "UBSAN_OPTIONS"):
        for opt in re.split(r"[ :]", os.environ.get(var, "")):
            if opt.startswith("log_path="):
                out.append(opt[len("log_path="):])
    return out


def fd_count(pid):
    """The process's open fds, without a sanitizer's report log: the
    runtime opens that at its first report, whenever it comes, and it is
    not the process's own (a normal run has none, so nothing is left out)."""
    logs = _sanitizer_logs()
    d = f"/proc/{pid}/fd"
    n = 0
    for fd in os.listdir(d):
        if logs:
            try:
                target = os.readlink(f"{d}/{fd}")
            except OSError:
                continue    # closed meanwhile
            if any(target.startswith(p) for p in logs):
                continue
        n += 1
    return n
