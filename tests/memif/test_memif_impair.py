"""End to end through the impair mode: nullgen generates exactly N frames
into a memif, vfwd impairs them (loss-every, a delay line) between two
memif server ports, and a sink vfwd counts what arrives: exactly
N - floor(N/10), and vfwd's counters say where the rest went."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from memif_util import Ours, check, sock_name, wait_for  # noqa: E402

N = 10000
name = sock_name("imp")

wan = Ours("vfwd", ["--port", f"memif,role=server,id=1,socket={name}",
                    "--port", f"memif,role=server,id=2,socket={name}",
                    "--fwd", "impair", "--impair", "loss-every=10,delay=1ms,jitter=500us,seed=3"])
wan.wait_state("listening", 0)
wan.wait_state("listening", 1)
sink = Ours("vfwd", ["--port", f"memif,role=client,id=2,socket={name}", "--fwd", "rxonly"])
gen = Ours("nullgen", ["--port", f"memif,role=client,id=1,socket={name}", "--fwd", "txonly",
                       "--count", str(N), "--txpkts", "100"])
for p in (sink, gen):
    p.wait_state("connected")
wan.wait_state("connected", 0)
wan.wait_state("connected", 1)
c = wan.query("show config fwd json")
check(c["mode"] == "impair" and c["impair"] == "loss-every=10,seed=3,delay=1ms,jitter=500us", f"{c}")

wan.cmd("start")
sink.cmd("start")
gen.cmd("start")
want = N - N // 10
wait_for(lambda: gen.stats()["opackets"] == N, timeout=90, step=0.3, what=f"{N} generated")
wait_for(lambda: sink.stats()["ipackets"] >= want, timeout=90, step=0.3, what=f"{want} at the sink")
f = wan.query("show fwd stats all json")
st = {s["rx_port"]: s for s in f["streams"]}
im = st[0]["impair"]
check(im["rx"] == N and im["dropped_loss"] == N // 10, f"impair counters {im}")
check(im["delayed"] == want and im["tx"] == want, f"all released: {im}")
check(im["dropped_overflow"] == 0 and im["flushed"] == 0 and im["tx_dropped"] == 0, f"{im}")
check(st[1]["impair"]["rx"] == 0, f"nothing came back: {st[1]}")
wan.cmd("stop")
s = sink.stats()
check(s["ipackets"] == want and s["ibytes"] == 100 * want, f"sink {s}")
check(wan.stats(1)["opackets"] == want and wan.stats(0)["ipackets"] == N, "wan port counters")
for p in (gen, sink, wan):
    check(p.quit() == 0, f"{p.args[0]} exit {p.p.returncode}")
print("ok")
