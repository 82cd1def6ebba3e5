"""A memif server that accepts our client and never speaks does not hold
the shell or other ports (issue 13, 3).

vfwd -i: memif client port 0 to a silent server (a Python SEQPACKET
listener that accepts and sends nothing, not even HELLO), null 1, memif
server port 2, null 3; 0<->1 and 2<->3 forward.  Port 0 stays in its
handshake; meanwhile a memifctl client connects to port 2 and traffic
flows; `port start 0` (after `stop`, `port stop 0`) answers at once (start used to
wait up to 5 s for the handshake, holding the shell) and port 0 is in its
handshake again, on a new connection.  Every shell round trip is timed:
the issue's 100 ms is reported; one over 500 ms (a wait on the server)
fails."""
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from memif_util import Ours, check, sock_name, wait_for  # noqa: E402
import vftest  # noqa: E402

silent = sock_name("silent")
healthy = sock_name("healthy")
ls = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
ls.bind("\0" + silent[1:])
ls.listen(4)
ls.settimeout(30)

ours = Ours("vfwd", ["--port", f"memif,role=client,socket={silent}", "--port", "null",
                     "--port", f"memif,role=server,socket={healthy}", "--port", "null", "-a"])
held = [ls.accept()[0]]
times = []


def q(fn):
    t0 = time.monotonic()
    r = fn()
    times.append(time.monotonic() - t0)
    return r


q(lambda: ours.dinfo(0))
times.clear()           # the first answer waits for start-up
ours.wait_state("handshake", port=0)
peer = Ours("memifctl", ["--role", "client", "--socket", healthy, "--fwd", "txonly", "-a"])
wait_for(lambda: q(lambda: ours.stats(3))["opackets"] > 10000, timeout=30,
         what="port 2 -> 3 forwarding while port 0 waits in its handshake")
check(q(lambda: ours.dinfo(0))["state"] == "handshake", "port 0 still in its handshake")
# stop and port stop join the forwarding cores: not what is timed here
ours.query("stop\nport stop 0\nshow port info 0 json")
t0 = time.monotonic()
q(lambda: ours.query("port start 0\nshow port info 0 json"))
start_took = time.monotonic() - t0
ours.query("start\nshow port info 0 json")
held.append(ls.accept()[0])     # a new connection from the restarted port
wait_for(lambda: q(lambda: ours.dinfo(0))["state"] == "handshake", timeout=30,
         what="port 0 in its handshake again")
sent = q(lambda: ours.stats(3))["opackets"]
wait_for(lambda: q(lambda: ours.stats(3))["opackets"] > sent + 10000, timeout=30,
         what="port 2 -> 3 forwarding again")
check(ours.p.poll() is None, "vfwd alive")
print(f"port start 0 answered in {start_took * 1000:.1f} ms", flush=True)
vftest.check_round_trips(times)
peer.quit()
check(ours.quit() == 0, "vfwd exit")
print("ok")
