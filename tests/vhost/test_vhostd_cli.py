"""vhostd's command line and socket handling, without a front-end: option
errors exit 2 with one line naming the problem; a socket another server
listens on is refused (exit 1, its file left alone); a stale socket file is
replaced; our socket file is removed at exit; a connection that has not
negotiated gives way to the next, a negotiated one keeps the socket."""
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vhtest as vt  # noqa: E402
import vhost_pypeer  # noqa: E402


def run(args, timeout=60):
    r = subprocess.run([vt.VHOSTD] + args, capture_output=True, text=True, timeout=timeout)
    print("+ vhostd %s -> %d" % (" ".join(args), r.returncode), flush=True)
    return r


def expect_usage(args, words):
    r = run(args)
    if r.returncode != 2:
        vt.fail("exit %d (want 2); stderr: %s" % (r.returncode, r.stderr))
    for w in words:
        if w not in r.stderr:
            vt.fail("%r not in stderr: %s" % (w, r.stderr))


expect_usage([], ["--iface"])
expect_usage(["--iface", "/tmp/x.sock", "--queues", "0"], ["--queues"])
expect_usage(["--iface", "/tmp/x.sock", "--queues", "17"], ["--queues"])
expect_usage(["--iface", "/tmp/a,b.sock"], ["--iface"])
expect_usage(["--port", "vhost,iface=/tmp/x.sock,dequeue-zero-copy=1"],
             ["dequeue-zero-copy", "iface", "queues", "client"])
expect_usage(["--port", "vhost,iface=/tmp/x.sock,queues=99"], ["queues"])

d = vt.tmpdir()
try:
    sock = os.path.join(d, "vh.sock")
    # a live server on the path: refused, and its socket stays
    live = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    live.bind(sock)
    live.listen(1)
    r = run(["--iface", sock, "--duration", "1"])
    if r.returncode != 1 or "in use" not in r.stderr:
        vt.fail("live socket: exit %d, stderr: %s" % (r.returncode, r.stderr))
    if not os.path.exists(sock):
        vt.fail("the other server's socket file was removed")
    live.close()
    # now stale (nobody listens): replaced, served, removed at exit
    r = run(["--iface", sock, "--duration", "1", "--json"])
    if r.returncode != 0:
        vt.fail("stale socket: exit %d, stderr: %s" % (r.returncode, r.stderr))
    if os.path.exists(sock):
        vt.fail("socket file left behind")
    # a regular file is not ours to remove
    open(sock, "w").close()
    r = run(["--iface", sock, "--duration", "1"])
    if r.returncode != 1 or "not a socket" not in r.stderr:
        vt.fail("regular file: exit %d, stderr: %s" % (r.returncode, r.stderr))
    os.unlink(sock)
    # one front-end at a time, without lock-out (issue 31): a second
    # connection takes over from a first that has not negotiated (here: it
    # sent nothing); once one has negotiated (link up), another is refused
    # and the first is untouched
    vh = vt.Vhostd(["--iface", sock])
    try:
        vt.wait_for(lambda: os.path.exists(sock), "the socket")
        a = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        a.connect(sock)
        b = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        b.connect(sock)
        a.settimeout(30)
        if a.recv(1) != b"":
            vt.fail("the idle first connection was not preempted")
        b.settimeout(30)
        b.sendall(struct.pack("<III", 1, 1, 0))        # GET_FEATURES
        if len(b.recv(64)) != 20:
            vt.fail("the second connection was not served")
        b.close()
        a.close()
        vt.wait_for(lambda: "preempted by a new connection" in vh.stderr(), "the log line")
        fe = vhost_pypeer.FrontEnd(sock)
        vt.wait_for(lambda: "link up" in vh.stderr(), "link up")
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect(sock)
        c.settimeout(30)
        if c.recv(1) != b"":
            vt.fail("a front-end after the negotiated one got data")
        c.close()
        vt.wait_for(lambda: "negotiated; refusing another" in vh.stderr(), "the refusal")
        # a garbage message closes the first connection, logged once
        a = fe.s
        a.sendall(b"\x01\x00\x00\x00\x01\x00\x00\x00\xff\xff\xff\xff")
        a.settimeout(30)
        if a.recv(1) != b"":
            vt.fail("connection not closed after a bad message")
        vt.wait_for(lambda: "closing the connection" in vh.stderr(), "the log line")
        fe.close()
        doc = vh.finish()
        vt.expect_eq("link", vh.port(doc)["link"], "down", [vh])
    finally:
        vh.stop()
finally:
    shutil.rmtree(d, ignore_errors=True)
print("PASS")
