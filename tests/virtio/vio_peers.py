"""Real peers for the virtio_user integration tests: an interactive
dpdk-testpmd driven through a pipe, and a vfwd whose JSON stats are read as
they come.  Counts only, never rates; every wait polls with a generous
timeout."""
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import vftest  # noqa: E402
from vftest import check, fail, wait_for  # noqa: E402,F401


class _Reader:
    """Collects a stream on a thread (raw chunks: testpmd's prompt has no
    newline), so pipes never fill up."""

    def __init__(self, stream):
        self.buf = []
        self.lock = threading.Lock()
        self.t = threading.Thread(target=self._run, args=(stream.fileno(),), daemon=True)
        self.t.start()

    def _run(self, fd):
        while True:
            try:
                b = os.read(fd, 65536)
            except OSError:
                return
            if not b:
                return
            with self.lock:
                self.buf.append(b.decode("utf-8", "replace"))

    def text(self, start=0):
        with self.lock:
            return "".join(self.buf)[start:]

    def count(self):
        with self.lock:
            return sum(len(x) for x in self.buf)


class Testpmd:
    """dpdk-testpmd -i with net_vhost0 (the backend under test)."""

    def __init__(self, vdev, pmd_args=()):
        # Line-buffered: testpmd's printf output would sit in a full pipe
        # buffer otherwise.
        args = ["stdbuf", "-oL"] + vftest.testpmd_args(
            [vdev], ["-i", "--total-num-mbufs=8192"] + list(pmd_args))
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, bufsize=1)
        vftest._procs.append(self.p)
        self.out = _Reader(self.p.stdout)
        wait_for(lambda: "testpmd>" in self.out.text() or self.p.poll() is not None,
                 timeout=60, what="testpmd prompt")
        check(self.p.poll() is None, "testpmd exited:\n" + self.out.text()[-3000:])

    def cmd(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def port_stats(self):
        """Cumulative port 0 counters: (rx_pkts, rx_bytes, tx_pkts, tx_bytes)."""
        mark = self.out.count()
        self.cmd("show port stats 0")
        pat = re.compile(r"RX-packets:\s*(\d+)\s+RX-missed:\s*\d+\s+RX-bytes:\s*(\d+).*?"
                         r"TX-packets:\s*(\d+)\s+TX-errors:\s*\d+\s+TX-bytes:\s*(\d+)", re.S)
        res = []

        def got():
            m = pat.search(self.out.text(mark))
            if m:
                res.append(tuple(int(x) for x in m.groups()))
            return bool(m)
        wait_for(got, timeout=30, what="testpmd port stats")
        return res[0]

    def wait_rx(self, pkts, timeout=60):
        last = []

        def ok():
            s = self.port_stats()
            last[:] = [s]
            return s[0] >= pkts
        wait_for(ok, timeout=timeout, step=0.3, what=f"testpmd to receive {pkts} packets")
        return last[0]

    def quit(self):
        if self.p.poll() is None:
            self.cmd("stop")
            self.cmd("quit")
            try:
                self.p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        return self.out.text()


class Vfwd:
    """vfwd (or nullgen: tool) with --json --stats-period, stats read while it runs."""

    def __init__(self, ports, extra=(), tool="vfwd"):
        args = [vftest.binary(tool), "-l", "0-1", "--json", "--stats-period", "0.3", "-v"]
        for p in ports:
            args += ["--port", p]
        args += list(extra)
        self.p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        vftest._procs.append(self.p)
        self.out = _Reader(self.p.stdout)
        self.err = _Reader(self.p.stderr)

    def stats(self):
        for ln in reversed(self.out.text().splitlines()):
            if ln.strip():
                try:
                    return json.loads(ln)
                except ValueError:
                    fail(f"vfwd stdout line is not JSON: {ln!r}")
        return None

    def port(self, pid=0):
        s = self.stats()
        return vftest.port(s, pid) if s else None

    def wait_link(self, up=True, timeout=60):
        def ok():
            check(self.p.poll() is None, "vfwd exited:\n" + self.err.text()[-3000:])
            p = self.port()
            return p is not None and (p["link"] == "up") == up
        wait_for(ok, timeout=timeout, what=f"vfwd link {'up' if up else 'down'}")

    def wait_port(self, cond, what, timeout=60):
        def ok():
            check(self.p.poll() is None, "vfwd exited:\n" + self.err.text()[-3000:])
            p = self.port()
            return p is not None and cond(p)
        end = time.time() + timeout
        while time.time() < end:
            if ok():
                return
            time.sleep(0.1)
        fail(f"timed out waiting for {what}; last port stats {self.port()}; "
             f"stderr:\n{self.err.text()[-3000:]}")

    def stop(self):
        """SIGTERM; returns the final stats (exit status must be 0)."""
        self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            fail("vfwd did not exit on SIGTERM")
        self.out.t.join(5)
        self.err.t.join(5)
        check(self.p.returncode == 0,
              f"vfwd exit status {self.p.returncode}:\n" + self.err.text()[-3000:])
        return vftest.final_stats(self.out.text())

    def features(self):
        m = re.findall(r"link up \(features (0x[0-9a-f]+)", self.err.text())
        check(m, "no 'link up' line from virtio_user:\n" + self.err.text()[-2000:])
        return int(m[-1], 16)


def sock_path(name):
    d = vftest.tmpdir()
    return os.path.join(d, name)
