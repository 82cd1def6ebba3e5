"""Ports added and removed while a daemon forwards (issue 28 item 2): the
other ports do not pause.

vhostd forwards io between its two --iface ports; nullgen measures a paced
stream through them (two virtio_user ports) the whole time.  Meanwhile,
three times, vfctl attaches two more vhost ports to the running vhostd (the
first one alone forwards to itself until the second pairs with it), a
second nullgen measures through them, and vfctl detaches them again, one
with its front-end still connected.  Checked:
  - every attach and detach answers 0 while forwarding runs, and each new
    pair forwards every frame the second nullgen sends;
  - the steady stream lost nothing and received every frame it sent, and
    vhostd's streams of the first pair kept their counters (they were
    never rebuilt): what they forwarded only grew;
  - after the last detach vhostd has its two ports again, their socket
    files alone, and exits 0;
  - a tool in a mode that sends its own frames (nullgen's measure) refuses
    an attach while it runs, and says why.
The worst latency of the steady stream is printed, not checked (two cores
shared by four pollers)."""
import json
import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from vftest import binary, check, final_stats, run, start, tmpdir, wait_for  # noqa: E402

VHOSTD, NULLGEN, VFCTL = binary("vhostd"), binary("nullgen"), binary("vfctl")
D = tmpdir()
S = [os.path.join(D, "v%d.sock" % i) for i in range(4)]
CTL = os.path.join(D, "vhostd.ctl")
NGCTL = os.path.join(D, "ng.ctl")
CYCLES = 3


def vfctl(sock, *args):
    return run([VFCTL, "-s", sock, "-t", "20", *args], timeout=40)


def fwd_streams():
    r = vfctl(CTL, "show", "fwd", "stats", "all", "json")
    check(r.returncode == 0, f"show fwd stats: {r.stderr}")
    return json.loads(r.stdout)["streams"]


def pair_rx(streams):
    """Packets the streams of ports 0 and 1 received."""
    return sum(s["rx"] for s in streams if s["rx_port"] in (0, 1))


def attach(sock):
    r = vfctl(CTL, "port", "attach", "vhost,iface=" + sock)
    check(r.returncode == 0, f"attach {sock} while forwarding: rc {r.returncode} {r.stderr}")
    m = re.search(r"Port (\d+) attached", r.stdout)
    check(m, f"attach {sock}: no port id in {r.stdout!r}")
    pid = int(m.group(1))
    wait_for(lambda: os.path.exists(sock), what=f"socket {sock}")
    return pid


def detach(pid):
    r = vfctl(CTL, "port", "detach", str(pid))
    check(r.returncode == 0, f"detach {pid} while forwarding: rc {r.returncode} {r.stderr}")


vh = start([VHOSTD, "-l", "0-1", "--ctl", CTL, "--iface", S[0], "--iface", S[1]])
wait_for(lambda: os.path.exists(S[0]) and os.path.exists(S[1]) and os.path.exists(CTL),
         what="vhostd's sockets")
# Rings of 4096: 0.4 s of the steady stream each way.  What a pause of
# vhostd's would lose is the point; a 25 ms stall of the steady nullgen
# itself (two cores, four pollers, ThreadSanitizer) overfilled 256 and
# vhostd dropped 8 frames a way, with no attach or detach to blame.
ng = start([NULLGEN, "-l", "0-1", "--port", "virtio_user,queue_size=4096,path=" + S[0],
            "--port", "virtio_user,queue_size=4096,path=" + S[1], "--fwd", "measure", "--rate", "20k",
            "--drain-ms", "1000", "--json", "--ctl", NGCTL])
wait_for(lambda: os.path.exists(NGCTL), what="nullgen's control socket")
wait_for(lambda: pair_rx(fwd_streams()) > 1000, what="the steady stream through vhostd")

r = vfctl(NGCTL, "port", "attach", "null")
check(r.returncode == 1 and "sends its own frames" in r.stderr,
      f"nullgen measure: attach while running not refused: rc {r.returncode} {r.stderr}")
print("ok: measure refuses an attach while it runs:", r.stderr.strip())

before = pair_rx(fwd_streams())
t0 = time.monotonic()
for c in range(CYCLES):
    a = attach(S[2])
    b = attach(S[3])
    r = run([NULLGEN, "-l", "0-1", "--port", "virtio_user,path=" + S[2],
             "--port", "virtio_user,path=" + S[3], "--fwd", "measure", "--rate", "5k",
             "--duration", "1", "--drain-ms", "500", "--json", "--ctl", "none"], timeout=60)
    check(r.returncode == 0, f"cycle {c}: nullgen through the new pair: {r.stderr[-2000:]}")
    t = final_stats(r.stdout)["measure"]["total"]
    check(t["sent"] > 0 and t["received"] == t["sent"] and t["lost"] == 0,
          f"cycle {c}: the new pair {a}<->{b}: {t}")
    now = pair_rx(fwd_streams())
    check(now >= before, f"cycle {c}: the first pair's streams went back: {before} -> {now}")
    before = now
    # The second front-end is gone; connect one again to port b's socket
    # and detach b under it, then a (alone again, to itself) idle.
    fe = start([NULLGEN, "-l", "0-1", "--port", "virtio_user,path=" + S[3], "--fwd", "rxonly",
                "--ctl", "none"])
    time.sleep(0.5)
    detach(b)
    detach(a)
    fe.send_signal(signal.SIGINT)
    fe.communicate(timeout=30)
    print(f"ok: cycle {c}: ports {a} and {b} attached, forwarded {t['sent']} of {t['sent']}, "
          f"detached; first pair's streams at {now} frames", flush=True)
print(f"{CYCLES} cycles in {time.monotonic() - t0:.1f} s", flush=True)

ng.send_signal(signal.SIGINT)
out, err = ng.communicate(timeout=60)
check(ng.returncode == 0, f"steady nullgen: rc {ng.returncode}: {err[-2000:]}")
t = final_stats(out)["measure"]["total"]
print("steady stream: sent %d received %d lost %d, worst latency %.2f ms" % (
    t["sent"], t["received"], t["lost"], t["latency_us"]["max"] / 1000), flush=True)
pair = [{k: s[k] for k in ("rx_port", "tx_port", "rx", "tx", "dropped", "tx_retries")}
        for s in fwd_streams() if s["rx_port"] in (0, 1)]
check(t["sent"] > 20000 and t["lost"] == 0 and t["received"] == t["sent"],
      f"the steady stream lost frames while ports came and went: {t}; vhostd's streams: {pair}")

streams = fwd_streams()
check(sorted({s["rx_port"] for s in streams}) == [0, 1], f"vhostd's streams at the end: {streams}")
check(not os.path.exists(S[2]) and not os.path.exists(S[3]), "a detached port's socket file stayed")
vh.send_signal(signal.SIGTERM)
out, err = vh.communicate(timeout=60)
check(vh.returncode == 0, f"vhostd exit {vh.returncode}: {err[-2000:]}")
print("ok: ports attached and detached under a running vhostd, the others lost nothing")
