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
check(fw.get("tx_retries") == 0, f"fwd_stats: tx_retries total of every stream: {fw}")
ss = ask("/vfwd/stream_stats,1")["/vfwd/stream_stats"]
check(ss is not None and ss["id"] == 1 and ss["rx_port"] == 1 and ss["rx"] > 0, f"{ss}")
for bad in ("2", "-1", "x", "1x", ""):
    check(ask("/vfwd/stream_stats," + bad)["/vfwd/stream_stats"] is None,
          f"stream_stats,{bad!r} answers null")
# the counters are read one by one while the core adds to them, so packets
# and bytes agree exactly only once forwarding has stopped
p.stdin.write("stop\n")
p.stdin.flush()
p.stdin.write("show config runtime json\n")   # its JSON line follows stop's table
p.stdin.flush()
while not p.stdout.readline().startswith("{"):
    pass
# stopped, the counters hold still: the streams on the telemetry socket
# carry the same keys and values as show fwd stats json, and their sums are
# /vfwd/fwd_stats
p.stdin.write("show fwd stats all json\n")
p.stdin.flush()
ours = json.loads(p.stdout.readline())["streams"]
fw = ask("/vfwd/fwd_stats")["/vfwd/fwd_stats"]
check(fw["running"] == 0, f"{fw}")
for s in ours:
    tel = ask(f"/vfwd/stream_stats,{s['id']}")["/vfwd/stream_stats"]
    for k, v in tel.items():
        check(s.get(k) == v, f"stream {s['id']}: telemetry {k}={v}, show fwd stats {s.get(k)}")
    for k in ("rx", "tx", "dropped", "tx_retries", "lcore", "tx_queue"):
        check(k in tel, f"stream_stats lacks {k}: {tel}")
for k in ("rx", "tx", "dropped", "tx_retries"):
    check(fw[k] == sum(s[k] for s in ours), f"fwd_stats {k}={fw[k]}, streams sum to {sum(s[k] for s in ours)}")
st = ask("/vfwd/port_stats,1")["/vfwd/port_stats"]
check(st["ipackets"] > 0 and st["ibytes"] == 100 * st["ipackets"],
      f"size=100 frames: {st['ibytes']} bytes in {st['ipackets']} packets")
p.stdin.write("quit\n")
p.stdin.flush()
p.communicate(timeout=30)
check(p.returncode == 0, "exit")
check(not os.path.exists(path), "telemetry socket removed at exit")
print("ok")
