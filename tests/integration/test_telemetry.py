"""Our ports on DPDK's telemetry socket: a monitoring agent asks for
/vfwd/port_stats while vfwd forwards; the counters agree with ours."""
import json
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from vftest import binary, check  # noqa: E402

vfwd = binary("vfwd")
p = subprocess.Popen([vfwd, "--port", "null", "--port", "null,size=100"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)


def cmd(line):
    p.stdin.write(line + "\n")
    p.stdin.flush()
    return json.loads(p.stdout.readline())


rt = cmd("show config runtime json")
check(rt["memory"] in ("memfd", "hugepages") and rt["file_prefix"].startswith("vf-vfwd-"), f"{rt}")
path = rt["telemetry_socket"]
check(os.path.exists(path), f"no telemetry socket at {path}")
p.stdin.write("start\n")
p.stdin.flush()
time.sleep(0.5)


def ask(q):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(path)
    json.loads(s.recv(16384).decode())          # greeting
    s.send(q.encode())
    r = json.loads(s.recv(65536).decode())
    s.close()
    return r


check(ask("/vfwd/ports") == {"/vfwd/ports": [0, 1]}, f"ports {ask('/vfwd/ports')}")
st = ask("/vfwd/port_stats,1")["/vfwd/port_stats"]
check(st["driver"] == "null" and st["link"] == "up" and st["ipackets"] > 0, f"{st}")
for k in ["ipackets", "opackets", "ibytes", "obytes", "imissed", "ierrors", "oerrors", "rx_nombuf"]:
    check(k in st, f"telemetry lacks {k}")
check(ask("/vfwd/port_stats,7")["/vfwd/port_stats"] is None, "unknown port answers null")
fw = ask("/vfwd/fwd_stats")["/vfwd/fwd_stats"]
check(fw["running"] == 1 and fw["rx"] > 0 and fw["streams"] == 2, f"{fw}")
# the counters are read one by one while the core adds to them, so packets
# and bytes agree exactly only once forwarding has stopped
p.stdin.write("stop\n")
p.stdin.flush()
p.stdin.write("show config runtime json\n")   # its JSON line follows stop's table
p.stdin.flush()
while not p.stdout.readline().startswith("{"):
    pass
st = ask("/vfwd/port_stats,1")["/vfwd/port_stats"]
check(st["ipackets"] > 0 and st["ibytes"] == 100 * st["ipackets"],
      f"size=100 frames: {st['ibytes']} bytes in {st['ipackets']} packets")
p.stdin.write("quit\n")
p.stdin.flush()
p.communicate(timeout=30)
check(p.returncode == 0, "exit")
check(not os.path.exists(path), "telemetry socket removed at exit")
print("ok")
