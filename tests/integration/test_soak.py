"""Soak and fault loops (issue 13, 4), bounded in count and time.  CI runs
the short form; --long (or VF_LONG=1) the full counts.

1. memif server: Python clients connect, hand over a region, disconnect
   (short 100 / long 1000 cycles); every 10 / 100 cycles our fds, mapping
   lines (/proc/PID/maps), threads and mbufs in use are back at their
   baseline (taken after the first WARM cycles: one-time resources, such
   as glibc's malloc arena and cached stack for a per-connection worker
   thread, settle within two).
2. memif client: a Python server accepts our client, handshakes and hangs
   up, again and again (same counts and checks).
3. vhost server: Python front-ends set up a split ring pair with their own
   memfd, link up, close (same counts and checks).
3b. vhost client (client=1): a Python front-end in server mode accepts our
   port, sets up the rings, link up, hangs up; ours reconnects.
3c. virtio_user client (server=0): a Python back-end listens, negotiates
   to DRIVER_OK (link up, rx ring filled), hangs up; ours reconnects to
   the next one.
3d. virtio_user server (server=1): Python back-ends connect to our socket,
   negotiate, hang up.  Loops 3-3d also check the mbuf pool's in-use count.
4. SIGKILL of the peer mid-burst: a vfwd memif client sending txonly into
   our server is killed and restarted (short 10 / long 100); traffic
   resumes every time, fds back at baseline.
5. SIGTERM of ours under traffic (short 10 / long 100): a one-shot vfwd
   memif server receiving from a sending client exits 0 within 2 s, its
   last line is a valid final JSON object, its socket file and DPDK run
   folder are gone."""
import json
import os
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "memif"))
sys.path.insert(0, os.path.join(HERE, "..", "vhost"))
sys.path.insert(0, os.path.join(HERE, "..", "virtio"))
from memif_util import Ours, Proc, binary, check, fd_count, sock_name, wait_for  # noqa: E402
import memif_pypeer  # noqa: E402
import vftest  # noqa: E402
import vhost_pypeer  # noqa: E402
from test_virtio_hostile import Backend  # noqa: E402

LONG = "--long" in sys.argv or os.environ.get("VF_LONG") == "1"
CYCLES, EVERY, KILLS = (1000, 100, 100) if LONG else (100, 10, 10)
only = [a for a in sys.argv[1:] if not a.startswith("--")]
figures = []


def _sanitized(lines):
    """A sanitizer's runtime maps and unmaps anonymous memory for its own
    allocator on its own schedule (ASan's regions, quarantine): in such a
    process only mappings with a name (our memfds, the peer's regions,
    files) are counted.  A plain build counts every line."""
    return any("libasan" in ln or "libtsan" in ln for ln in lines)


def resources(ours):
    pid = ours.pid()
    with open(f"/proc/{pid}/maps") as f:
        lines = f.read().splitlines()
    if _sanitized(lines):
        lines = [ln for ln in lines if len(ln.split()) > 5]
    maps = len(lines)
    return {"fds": fd_count(pid), "maps": maps, "threads": len(os.listdir(f"/proc/{pid}/task"))}


def maps_lines(ours):
    with open(f"/proc/{ours.pid()}/maps") as f:
        return [ln.strip() for ln in f]


def at_baseline(ours, base, what, base_maps):
    # the control thread finishes a teardown a moment after the peer sees it
    try:
        wait_for(lambda: resources(ours) == base, timeout=30, step=0.05,
                 what=f"{what}: {resources(ours)} back to {base}")
    except SystemExit:
        now = maps_lines(ours)
        print("mappings gone:\n  " + "\n  ".join(ln for ln in base_maps if ln not in now) +
              "\nmappings new:\n  " + "\n  ".join(ln for ln in now if ln not in base_maps),
              flush=True)
        raise


def memif_pool(ours):
    return ours.dinfo()["pool_in_use"]


def fwd_pool(ours):
    """The forwarding pool: what virtio_user posts and vhost dequeues into."""
    return ours.query("show config rxtx json")["mbufs_in_use"]


WARM = 5


def cycles(label, ours, one, pool=memif_pool):
    for _ in range(WARM):
        one()
    base = resources(ours)
    base_maps = maps_lines(ours)
    inuse = pool(ours)
    for i in range(WARM, CYCLES):
        one()
        if (i + 1) % EVERY == 0:
            at_baseline(ours, base, f"{label} cycle {i + 1}", base_maps)
            wait_for(lambda: pool(ours) == inuse, timeout=30, step=0.05,
                     what=f"{label} cycle {i + 1}: mbufs in use {pool(ours)} back to {inuse}")
    figures.append(f"{label}: {CYCLES} cycles, fds/maps/threads at baseline {base}, "
                   f"{inuse} mbufs in use")


def link_is(ours, up):
    return (ours.stats()["link"] == "up") == up


def soak_memif_server():
    name = sock_name("soak1")
    ours = Ours("vfwd", ["--port", f"memif,role=server,id=0,socket={name}", "--fwd", "rxonly",
                         "-a"])
    ours.wait_state("listening")

    def one():
        c = memif_pypeer.Client(name)
        c.close()
        ours.wait_state("listening")
    cycles("memif server", ours, one)
    check(ours.dinfo()["connects"] == CYCLES, f"{ours.dinfo()}")
    check(ours.quit() == 0, "exit")


def soak_memif_client():
    name = sock_name("soak2")
    srv = memif_pypeer.Server(name)
    ours = Ours("vfwd", ["--port", f"memif,role=client,id=0,socket={name},reconnect-ms=20",
                         "--fwd", "rxonly", "-a"])

    def one():
        srv.accept()
        ours.wait_state("connected")
        n = ours.dinfo()["disconnects"]
        srv.close()
        # it reconnects (the listener's backlog takes it) and waits for
        # HELLO in "handshake": count the disconnect first
        wait_for(lambda: ours.dinfo()["disconnects"] == n + 1, timeout=30, step=0.02,
                 what="client disconnected")
        # ... after reconnect-ms: end every cycle there (its socket open),
        # not sometimes before it
        wait_for(lambda: ours.dinfo()["state"] == "handshake", timeout=30, step=0.02,
                 what="client reconnected")
    cycles("memif client", ours, one)
    check(ours.quit() == 0, "exit")


def soak_vhost_server():
    sock = os.path.join(vftest.tmpdir(), "soak.sock")
    ours = Ours("vfwd", ["--port", f"vhost,iface={sock}", "--fwd", "rxonly", "-a"])
    wait_for(lambda: os.path.exists(sock), timeout=30, what="the vhost socket")

    def link():
        return ours.stats()["link"] == "up"

    def one():
        fe = vhost_pypeer.FrontEnd(sock)
        wait_for(link, timeout=30, step=0.02, what="link up")
        fe.close()
        wait_for(lambda: not link(), timeout=30, step=0.02, what="link down")
    cycles("vhost server", ours, one, pool=fwd_pool)
    check(ours.quit() == 0, "exit")


def soak_vhost_client():
    sock = os.path.join(vftest.tmpdir(), "soak-vc.sock")
    ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ls.bind(sock)
    ls.listen(4)
    ls.settimeout(30)
    ours = Ours("vfwd", ["--port", f"vhost,iface={sock},client=1,reconnect-ms=20",
                         "--fwd", "rxonly", "-a"])

    def one():
        c, _ = ls.accept()
        c.settimeout(None)
        n = ours.dinfo()["connections"]
        fe = vhost_pypeer.FrontEnd(sock, sock=c)
        wait_for(lambda: link_is(ours, True), timeout=30, step=0.02, what="link up")
        fe.close()
        wait_for(lambda: link_is(ours, False), timeout=30, step=0.02, what="link down")
        # Our client connects again within reconnect-ms, into the
        # listener's backlog: end every cycle in that state (its socket
        # and its timer open), not sometimes before it.
        wait_for(lambda: ours.dinfo()["connections"] == n + 1, timeout=30, step=0.02,
                 what="reconnected")
    cycles("vhost client", ours, one, pool=fwd_pool)
    check(ours.quit() == 0, "exit")
    ls.close()


def soak_virtio_client():
    sock = os.path.join(vftest.tmpdir(), "soak-vu.sock")
    box = [Backend(sock, "soak")]
    ours = Ours("vfwd", ["--port", f"virtio_user,path={sock},reconnect-ms=10",
                         "--fwd", "rxonly", "-a"])

    def one():
        # the first back-end listens before the port is created (server=0
        # fails without one); ours connects again to each next one
        be = box.pop() if box else Backend(sock, "soak")
        wait_for(be.running.is_set, timeout=30, step=0.02, what="DRIVER_OK")
        wait_for(lambda: link_is(ours, True), timeout=30, step=0.02, what="link up")
        be.hang_up()
        wait_for(lambda: link_is(ours, False), timeout=30, step=0.02, what="link down")
        os.unlink(sock)
    cycles("virtio_user client", ours, one, pool=fwd_pool)
    check(ours.quit() == 0, "exit")


def soak_virtio_server():
    sock = os.path.join(vftest.tmpdir(), "soak-vus.sock")
    ours = Ours("vfwd", ["--port", f"virtio_user,path={sock},server=1", "--fwd", "rxonly", "-a"])
    wait_for(lambda: os.path.exists(sock), timeout=30, what="the virtio_user socket")

    def one():
        be = Backend(sock, "soak", connect=True)
        wait_for(be.running.is_set, timeout=30, step=0.02, what="DRIVER_OK")
        wait_for(lambda: link_is(ours, True), timeout=30, step=0.02, what="link up")
        be.hang_up()
        wait_for(lambda: link_is(ours, False), timeout=30, step=0.02, what="link down")
    cycles("virtio_user server", ours, one, pool=fwd_pool)
    check(ours.quit() == 0, "exit")


def soak_sigkill_peer():
    name = sock_name("soak4")
    ours = Ours("vfwd", ["--port", f"memif,role=server,id=0,socket={name}", "--fwd", "rxonly", "-a"])
    ours.wait_state("listening")
    fds0 = None
    for i in range(KILLS):
        base = ours.stats()["ipackets"]
        peer = Proc([binary("vfwd"), "-l", "0-1", "--main-lcore", "1", "--port",
                     f"memif,role=client,id=0,socket={name}", "--fwd", "txonly"],
                    interactive=False)
        wait_for(lambda: ours.stats()["ipackets"] > base + 10000, timeout=60,
                 what=f"traffic in cycle {i}")
        peer.kill(signal.SIGKILL)
        ours.wait_state("listening")
        if fds0 is None:
            fds0 = fd_count(ours.pid())
        wait_for(lambda: fd_count(ours.pid()) == fds0, timeout=30, what="fds back")
    figures.append(f"SIGKILL of the memif peer mid-burst: {KILLS} kills, traffic resumed each time")
    check(ours.quit() == 0, "exit")


def wait_received(srv, i, timeout=60):
    """Until a --stats-period line of srv shows packets received: traffic
    flows (the peer starts its EAL first; under a sanitizer, slowly)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        line = srv.stdout.readline()	# one a second at least
        if not line:
            break
        try:
            st = json.loads(line)
        except ValueError:
            continue
        if st.get("ports") and st["ports"][0]["ipackets"] > 0:
            return
    check(False, f"SIGTERM {i}: no traffic before the signal")


def soak_sigterm_ours():
    d = vftest.tmpdir()
    for i in range(KILLS):
        path = os.path.join(d, f"t{i}.sock")
        srv = subprocess.Popen([binary("vfwd"), "-l", "0-1", "--port",
                                f"memif,role=server,id=0,socket={path},socket-abstract=no",
                                "--fwd", "rxonly", "--json", "--stats-period", "1"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        vftest._procs.append(srv)
        wait_for(lambda: os.path.exists(path), timeout=30, what="server socket")
        peer = Proc([binary("vfwd"), "-l", "0-1", "--main-lcore", "1", "--port",
                     f"memif,role=client,id=0,socket={path},socket-abstract=no",
                     "--fwd", "txonly"], interactive=False)
        wait_received(srv, i)
        t0 = time.monotonic()
        srv.send_signal(signal.SIGTERM)
        try:
            out, err = srv.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            srv.kill()
            out, err = srv.communicate()
            check(False, f"SIGTERM {i}: still running after 10 s")
        took = time.monotonic() - t0
        peer.kill(signal.SIGKILL)
        check(srv.returncode == 0, f"SIGTERM {i}: exit {srv.returncode}: {err[-1500:]}")
        check(took < 2.0, f"SIGTERM {i}: exit took {took:.2f} s")
        last = json.loads(out.strip().splitlines()[-1])
        check(last.get("final") is True and "ports" in last, f"final JSON {last}")
        check(last["ports"][0]["ipackets"] > 0, f"received under traffic {last}")
        check(not os.path.exists(path), f"SIGTERM {i}: socket file left behind")
        left = [e for e in os.listdir(os.path.dirname(vftest.dpdk_rundir("x")))
                if e.startswith(f"vf-vfwd-{srv.pid}-")] \
            if os.path.isdir(os.path.dirname(vftest.dpdk_rundir("x"))) else []
        check(not left, f"SIGTERM {i}: DPDK run folder left: {left}")
    figures.append(f"SIGTERM of ours under traffic: {KILLS} runs, exit 0 within 2 s, "
                   "final JSON valid, nothing left behind")


for k, fn in [("memif_server", soak_memif_server), ("memif_client", soak_memif_client),
              ("vhost_server", soak_vhost_server), ("vhost_client", soak_vhost_client),
              ("virtio_client", soak_virtio_client), ("virtio_server", soak_virtio_server),
              ("sigkill_peer", soak_sigkill_peer),
              ("sigterm_ours", soak_sigterm_ours)]:
    if not only or k in only:
        fn()
for f in figures:
    print(f)
print("ok")
