"""Port density (issue 28 item 2): 256 ports in one daemon.

argv[1] = vhost: vhostd serves 256 vhost-user sockets; one nullgen connects
256 virtio_user ports, one to each.  argv[1] = memif: memifctl serves 256
memif server ports (ids 0..255 on one socket); one nullgen connects 256
memif client ports (memifctl polling, vhostd in its default adaptive mode:
either way the idle streams on the core are parked, vf_fwd_park.h).
Either way the daemon forwards io between pairs
(0<->1, 2<->3, ...) and nullgen measures every pair's streams at a low rate:
every stream's frames all come back.  Then nullgen leaves: the daemon's fds come back
to what it had with 256 idle ports, its RSS to within a bound of it (the
peers' mappings are gone), and it exits 0 on SIGTERM with its socket
files removed.  Printed: start-up time and RSS with 256 ports, per port.

No timing thresholds: the rate a core holds is bench/density.py's."""
import os
import sys
import time

from vftest import binary, check, final_stats, run, start, tmpdir, wait_for

KIND = sys.argv[1] if len(sys.argv) > 1 else "vhost"
N = int(os.environ.get("VF_DENSITY_PORTS", "256"))
COUNT = 20          # frames a stream
RATE = 10           # pps a stream: 2.5 kpps in all, light for a loaded CI
# What a daemon may keep after its peers left, over its idle RSS: pool
# mbufs first touched by the forwarding (a few bursts a port), not the
# peers' memory, which would be hundreds of MiB.
RSS_SLACK_KB = 32 << 10


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for ln in f:
            if ln.startswith("VmRSS:"):
                return int(ln.split()[1])
    return 0


def fds(pid):
    """The daemon's fds by what they are (socket, anon_inode:[eventfd], ...)."""
    out = {}
    for f in os.listdir("/proc/%d/fd" % pid):
        try:
            t = os.readlink("/proc/%d/fd/%s" % (pid, f))
        except OSError:
            continue
        t = t.split(":[")[0] if t.startswith("socket") else t
        out[t] = out.get(t, 0) + 1
    return out


def daemon(d):
    """Starts the daemon with N ports; returns (process, socket files,
    the front-end's port specs)."""
    if KIND == "vhost":
        socks = [os.path.join(d, "v%d.sock" % i) for i in range(N)]
        args = [binary("vhostd")] + [a for s in socks for a in ("--iface", s)]
        specs = ["virtio_user,path=" + s for s in socks]
    else:
        sock = os.path.join(d, "m.sock")
        socks = [sock]
        args = [binary("memifctl")]
        for i in range(N):
            args += ["--port", "memif,role=server,id=%d,socket=%s,socket-abstract=no" % (i, sock)]
        specs = ["memif,role=client,id=%d,socket=%s,socket-abstract=no" % (i, sock)
                 for i in range(N)]
        # Polling: with 256 streams on its core the idle ones are parked
        # (vf_fwd_park.h), so this covers parking in the polling loop and
        # vhostd (adaptive, its default) in the sleeping one.
        args += ["--rx-mode", "poll"]
    args += ["-l", "0-1", "--main-lcore", "0", "--ctl", "none", "--fwd", "io",
             "--duration", "300"]
    p = start(args)
    return p, socks, specs


d = tmpdir()
t0 = time.monotonic()
p, socks, specs = daemon(d)
wait_for(lambda: all(os.path.exists(s) for s in socks) or p.poll() is not None,
         timeout=60, what="the daemon's %d ports" % N)
check(p.poll() is None, "the daemon exited: %s" % (p.stderr.read()[-2000:] if p.poll() is not None else ""))
took = time.monotonic() - t0
time.sleep(1.0)     # the cores started, the pool touched
fd0, rss0 = fds(p.pid), rss_kb(p.pid)
print("%s: %d ports up in %.2f s, RSS %d MiB (%d KiB a port, with the fixed part), %d fds" %
      (KIND, N, took, rss0 >> 10, rss0 // N, sum(fd0.values())), flush=True)

args = [binary("nullgen"), "-l", "0-1", "--main-lcore", "0", "--ctl", "none",
        "--fwd", "measure", "--rate", str(N * RATE), "--count", str(COUNT),
        "--drain-ms", "3000", "--rxd", "256", "--txd", "256", "--json"]
for s in specs:
    args += ["--port", s]
r = run(args, timeout=120)
check(r.returncode == 0, "nullgen exited %d: %s" % (r.returncode, r.stderr[-3000:]))
streams = final_stats(r.stdout)["measure"]["streams"]
check(len(streams) == N, "%d streams, want %d" % (len(streams), N))
first = [s for s in streams if s["tx_port"] in (0, 1)]
check(len(first) == 2 and all(s["sent"] == COUNT and s["received"] == COUNT for s in first),
      "the first pair's streams: %s\nnullgen: %s" % (first, r.stderr[-3000:]))
full = sum(1 for s in streams if s["received"] == COUNT)
# Every port connected before the traffic (memif: 256 clients on one
# listener must not evict each other in their handshakes), so every stream
# gets every frame at this light rate.
short = [s for s in streams if s["received"] != COUNT]
check(not short, "%d of %d streams short, e.g. %s\nnullgen: %s" %
      (len(short), N, short[:3], r.stderr[-2000:]))
print("%s: ports 0<->1 forwarded %d frames each way; %d of %d streams got every frame" %
      (KIND, COUNT, full, N), flush=True)

# nullgen is gone: every connection's fds and mappings go with it
try:
    wait_for(lambda: fds(p.pid) == fd0, timeout=20, what="the daemon's fds back to idle")
except SystemExit:
    now = fds(p.pid)
    extra = {k: now.get(k, 0) - fd0.get(k, 0) for k in set(now) | set(fd0)
             if now.get(k, 0) != fd0.get(k, 0)}
    check(False, "fds differ from idle: %s" % extra)
rss1 = rss_kb(p.pid)
print("%s: after the peers left: RSS %d MiB (idle %d MiB), fds as idle" %
      (KIND, rss1 >> 10, rss0 >> 10), flush=True)
check(rss1 - rss0 < RSS_SLACK_KB, "RSS grew from %d to %d KiB" % (rss0, rss1))
p.terminate()
out, err = p.communicate(timeout=60)
check(p.returncode == 0, "the daemon exited %s: %s" % (p.returncode, err[-2000:]))
check(not any(os.path.exists(s) for s in socks), "socket files left behind")
print("PASS", flush=True)
