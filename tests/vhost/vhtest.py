"""Helpers for the vhost integration tests: run vhostd and an interactive
dpdk-testpmd (virtio_user front-end) as real processes, poll their
statistics, and always clean up.  Standard library only."""
import atexit
import shutil
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

BUILD = os.environ.get("VF_BUILD", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
VHOSTD = os.path.join(BUILD, "cmd", "vhostd", "vhostd")
TESTPMD = os.environ.get("DPDK_TESTPMD", "/usr/bin/dpdk-testpmd")
TIMEOUT = 60.0
_prefixes = []


def _remove_rundirs():
    # testpmd leaves its runtime directory behind even on a clean exit;
    # registered after the process reaper, so it runs once they are gone.
    base = "/var/run/dpdk" if os.getuid() == 0 else \
        os.path.join(os.environ.get("XDG_RUNTIME_DIR") or "/tmp", "dpdk")
    for pfx in _prefixes:
        shutil.rmtree(os.path.join(base, pfx), ignore_errors=True)


atexit.register(_remove_rundirs)


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


def wait_for(cond, what, timeout=TIMEOUT, step=0.1, must=True):
    """Polls cond() until it is true; fails the test on timeout, or
    returns None then when must is False (the caller explains)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(step)
    if must:
        fail("timed out waiting for " + what)
    print("timed out waiting for " + what, flush=True)
    return None


class Proc:
    """A child process whose stdout/stderr are collected by threads."""

    def __init__(self, argv, stdin=False, name="proc"):
        self.name = name
        self.argv = argv
        print("+ " + " ".join(argv), flush=True)
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  start_new_session=True)
        self.out = []
        self.err = []
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._pump, args=(self.p.stdout, self.out), daemon=True),
                        threading.Thread(target=self._pump, args=(self.p.stderr, self.err), daemon=True)]
        for t in self.threads:
            t.start()

    def _pump(self, f, buf):
        while True:
            b = f.read1(65536) if hasattr(f, "read1") else f.read(4096)
            if not b:
                return
            with self.lock:
                buf.append(b.decode(errors="replace"))

    def stdout(self):
        with self.lock:
            return "".join(self.out)

    def stderr(self):
        with self.lock:
            return "".join(self.err)

    def send(self, line):
        self.p.stdin.write((line + "\n").encode())
        self.p.stdin.flush()

    def alive(self):
        return self.p.poll() is None

    def stop(self, sig=signal.SIGINT, timeout=20):
        if self.p.poll() is None:
            try:
                os.killpg(self.p.pid, sig)
            except ProcessLookupError:
                pass
            try:
                self.p.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.p.pid, signal.SIGKILL)
                self.p.wait()
        for t in self.threads:
            t.join(5)
        return self.p.returncode

    def dump(self):
        print("---- %s stdout (tail)\n%s" % (self.name, self.stdout()[-4000:]))
        print("---- %s stderr (tail)\n%s" % (self.name, self.stderr()[-4000:]), flush=True)


class Testpmd(Proc):
    """dpdk-testpmd -i on a pipe with one virtio_user port."""

    def __init__(self, sock, vdev_extra="", nq=1, prefix=None):
        prefix = prefix or "vhtest-%d-%d" % (os.getpid(), int(time.monotonic() * 1000) % 100000)
        _prefixes.append(prefix)
        vdev = "virtio_user0,path=%s%s" % (sock, ("," + vdev_extra) if vdev_extra else "")
        # stdout is a pipe: unbuffered, or command output lags the prompt
        argv = ["stdbuf", "-o0", TESTPMD, "-l", "0-1", "--no-huge", "-m", "512", "--no-pci",
                "--file-prefix", prefix, "--vdev", vdev, "--",
                "-i", "--total-num-mbufs=4096", "--rxq=%d" % nq, "--txq=%d" % nq]
        super().__init__(argv, stdin=True, name="testpmd")
        self.nprompt = 0

    def cmd(self, line, timeout=TIMEOUT):
        """Runs one command and waits for the next prompt; returns its output."""
        s = self.stdout()
        before, want = len(s), s.count("testpmd> ")
        self.send(line)
        def done():
            if not self.alive():
                self.dump()
                fail("testpmd exited during '%s'" % line)
            s = self.stdout()
            return s.count("testpmd> ") > want and s[before:]
        return wait_for(done, "testpmd '%s'" % line, timeout)

    def ready(self):
        def prompt():
            if not self.alive():
                self.dump()
                fail("testpmd exited before its prompt")
            return "testpmd> " in self.stdout()
        wait_for(prompt, "the testpmd prompt")

    def port_stats(self):
        out = self.cmd("show port stats 0")
        st = {}
        for k in ("RX-packets", "RX-bytes", "TX-packets", "TX-bytes", "RX-errors", "RX-missed"):
            m = re.findall(r"%s:\s+(\d+)" % k, out)
            if not m:
                self.dump()
                fail("no %s in 'show port stats'" % k)
            st[k] = int(m[-1])
        return st

    def xstats(self):
        out = self.cmd("show port xstats 0")
        return {k: int(v) for k, v in re.findall(r"^\s*(\w+):\s+(\d+)\s*$", out, re.M)}

    def quit(self):
        if self.alive():
            try:
                self.send("stop")
                self.send("quit")
            except BrokenPipeError:
                pass
            try:
                self.p.wait(30)
            except subprocess.TimeoutExpired:
                pass
        return self.stop(signal.SIGTERM)


class Vhostd(Proc):
    def __init__(self, args):
        super().__init__([VHOSTD] + args + ["--json", "--stats-period", "1"], name="vhostd")

    def last_stats(self):
        lines = [l for l in self.stdout().splitlines() if l.startswith("{")]
        return json.loads(lines[-1]) if lines else None

    def port(self, doc=None, pid=0):
        doc = doc or self.last_stats()
        if not doc:
            return None
        for p in doc["ports"]:
            if p["id"] == pid:
                return p
        return None

    def finish(self):
        """SIGINT, exit status 0 and the final stats document."""
        rc = self.stop(signal.SIGINT)
        lines = [l for l in self.stdout().splitlines() if l.startswith("{")]
        if rc != 0 or not lines:
            self.dump()
            fail("vhostd exited with %s" % rc)
        doc = json.loads(lines[-1])
        if not doc.get("final"):
            self.dump()
            fail("vhostd's last stats line is not final")
        return doc


def tmpdir():
    return tempfile.mkdtemp(prefix="vhtest-")


def expect_eq(what, got, want, procs=()):
    if got != want:
        for p in procs:
            p.dump()
        fail("%s: got %r, want %r" % (what, got, want))
    print("ok: %s = %r" % (what, got), flush=True)
