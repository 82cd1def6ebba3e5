"""--tx-retry: frames a full tx ring refused are offered again before they
are dropped.

vfwd forwards (io) between two memif server ports: nullgen sends 100 kpps
into the first, a vfwd receiver (rxonly) takes them from the second.  The
receiver is stopped (SIGSTOP) for 0.3 s mid-run, so the ring toward it
fills in 10 ms.

1. Without --tx-retry (the default) the forwarder drops what the full ring
   refuses: dropped > 0, no retries, and the receiver gets exactly what
   the forwarder sent.
2. With --tx-retry 1000 --tx-retry-us 1000 (a second at most per burst)
   the forwarder waits for the receiver instead: nothing dropped, retries
   counted, and every frame it received reaches the receiver.
3. A receiver that is gone (quit: the port's link is down) is not waited
   for: with the same second-long bound, the frames toward it are dropped
   at once, without retries, and the forwarder keeps up.
4. The shell's `set tx-retry` and `show config rxtx` carry the settings,
   and bad values are refused; the option's bounds too.
"""
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
import vftest  # noqa: E402
from memif_util import Ours, check, sock_name, wait_for  # noqa: E402

N = 60000          # frames sent, 0.6 s at 100 kpps (the run lasts 2 s)
STALL = 0.3        # seconds the receiver stops: 30000 frames, the ring holds 1024


def fwd_stream(tool):
    """The forwarder's stream from port 0 (nullgen's side) to port 1."""
    st = tool.query("show fwd stats all json")["streams"]
    return next(s for s in st if s["rx_port"] == 0)


def rx_packets(tool):
    return tool.query("show port stats 0 json")["ports"][0]["ipackets"]


def run(retry):
    a, b = sock_name(f"a{len(retry)}"), sock_name(f"b{len(retry)}")
    dut = Ours("vfwd", ["--main-lcore", "0", "--fwd", "io", "-a",
                        "--port", f"memif,role=server,id=0,socket={a}",
                        "--port", f"memif,role=server,id=0,socket={b}"] + retry)
    rcv = Ours("vfwd", ["--main-lcore", "0", "--fwd", "rxonly", "-a",
                        "--port", f"memif,role=client,id=0,socket={b}"])
    rcv.wait_state("connected")
    dut.wait_state("connected", port=1)
    gen = vftest.start([vftest.binary("nullgen"), "-l", "0-1", "--main-lcore", "1", "--fwd", "txonly",
                        "--port", f"memif,role=client,id=0,socket={a}",
                        "--rate", "100k", "--count", str(N), "--duration", "2", "--json"])
    wait_for(lambda: fwd_stream(dut)["rx"] > 5000, timeout=30, what="traffic through the forwarder")
    rcv.p.send_signal(signal.SIGSTOP)
    time.sleep(STALL)
    rcv.p.send_signal(signal.SIGCONT)
    out, err = gen.communicate(timeout=60)
    check(gen.returncode == 0, f"nullgen exit {gen.returncode}: {err[-2000:]}")
    # everything the forwarder received has left it (sent or dropped)
    wait_for(lambda: (lambda s: s["rx"] == s["tx"] + s["dropped"] and s["rx"] > 0)(fwd_stream(dut)),
             timeout=30, what="the forwarder done")
    s = fwd_stream(dut)
    wait_for(lambda: rx_packets(rcv) >= s["tx"], timeout=30, what="the receiver done")
    got = rx_packets(rcv)
    dut.quit()
    rcv.quit()
    return s, got


# 1. no retry: a full ring drops
s, got = run([])
print(f"no retry: forwarder {s}, receiver {got}", flush=True)
check(s["dropped"] > 0 and s["tx_retries"] == 0, f"no retry, yet nothing dropped: {s}")
check(got == s["tx"], f"receiver got {got}, forwarder sent {s['tx']}")

# 2. retry for up to a second: the forwarder waits out the stall
s, got = run(["--tx-retry", "1000", "--tx-retry-us", "1000"])
print(f"retry: forwarder {s}, receiver {got}", flush=True)
check(s["dropped"] == 0 and s["tx_retries"] > 0, f"with --tx-retry: {s}")
check(got == s["rx"] == s["tx"], f"receiver got {got}, forwarder received {s['rx']}, sent {s['tx']}")

# 3. the receiver gone: no waiting on a port whose link is down
a, b = sock_name("ga"), sock_name("gb")
dut = Ours("vfwd", ["--main-lcore", "0", "--fwd", "io", "-a", "--tx-retry", "1000", "--tx-retry-us", "1000",
                    "--port", f"memif,role=server,id=0,socket={a}",
                    "--port", f"memif,role=server,id=0,socket={b}"])
rcv = Ours("vfwd", ["--main-lcore", "0", "--fwd", "rxonly", "-a",
                    "--port", f"memif,role=client,id=0,socket={b}"])
rcv.wait_state("connected")
dut.wait_state("connected", port=1)
rcv.quit()
wait_for(lambda: dut.query("show port info 1 json")["ports"][0]["link"] == "down", timeout=30,
         what="the forwarder's port 1 down")
gen = vftest.start([vftest.binary("nullgen"), "-l", "0-1", "--main-lcore", "1", "--fwd", "txonly",
                    "--port", f"memif,role=client,id=0,socket={a}",
                    "--rate", "100k", "--count", "20000", "--duration", "2", "--json"])
out, err = gen.communicate(timeout=60)
check(gen.returncode == 0, f"nullgen exit {gen.returncode}: {err[-2000:]}")
# at a second per burst this would take hours; dropped at once, moments
wait_for(lambda: (lambda s: s["rx"] == 20000 and s["dropped"] == 20000)(fwd_stream(dut)),
         timeout=10, what="the frames toward the gone receiver dropped")
s = fwd_stream(dut)
print(f"receiver gone: forwarder {s}", flush=True)
check(s["tx"] == 0 and s["tx_retries"] == 0, f"retried toward a port whose link is down: {s}")
dut.quit()

# 4. the shell and the option's bounds
sh = Ours("vfwd", ["--port", "null", "--tx-retry", "7"])
c = sh.query("show config rxtx json")
check(c["tx_retry"] == 7 and c["tx_retry_us"] == 1, f"config {c}")
sh.cmd("set tx-retry 64 5")
c = sh.query("show config rxtx json")
check(c["tx_retry"] == 64 and c["tx_retry_us"] == 5, f"config after set: {c}")
n = sh.mark()
sh.cmd("set tx-retry 2000")
sh.wait_line(lambda ln: "tx-retry: expected" in ln, n, what="the refusal of 2000")
sh.cmd("start")
n = sh.mark()
sh.cmd("set tx-retry 1")
sh.wait_line(lambda ln: "stop it first" in ln, n, what="the refusal while running")
sh.cmd("stop")
sh.quit()
for bad in (["--tx-retry", "1025"], ["--tx-retry-us", "1001"], ["--tx-retry", "x"]):
    r = vftest.run([vftest.binary("vfwd"), "--port", "null", "--duration", "0.1"] + bad)
    check(r.returncode != 0 and "expected an integer" in r.stderr, f"{bad}: {r.returncode} {r.stderr}")
print("ok")
