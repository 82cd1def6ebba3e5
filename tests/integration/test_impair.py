"""The impair mode on real ports (null): exact counts for loss-every,
conservation of packets with the delay line (released and flushed),
duplication, the shell (set impair, show config fwd, clear fwd stats) and
bad specs (exit 2, one line naming the key)."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from vftest import Sh, binary, check, final_stats, port, run  # noqa: E402

vfwd = binary("vfwd")
KEYS = ["rx", "tx", "dropped_loss", "dropped_overflow", "duplicated", "dup_failed",
        "reordered", "delayed", "flushed", "tx_dropped"]


def impair_run(spec, duration="0.5", extra=()):
    r = run([vfwd, "--port", "null", "--port", "null", "--fwd", "impair", "--impair", spec,
             "--duration", duration, "--json", *extra])
    check(r.returncode == 0, f"--impair {spec}: exit {r.returncode}: {r.stderr}")
    s = final_stats(r.stdout)
    check(s["mode"] == "impair" and len(s["streams"]) == 2, f"--impair {spec}: {s}")
    for st in s["streams"]:
        im = st.get("impair")
        check(im is not None and list(im) == KEYS, f"impair keys: {st}")
        # the stream's own counters agree with the impairment's
        check(st["rx"] == im["rx"] and st["tx"] == im["tx"], f"{spec}: {st}")
        drops = im["dropped_loss"] + im["dropped_overflow"] + im["flushed"] + im["tx_dropped"]
        check(st["dropped"] == drops, f"{spec}: dropped {st['dropped']} != {drops}: {st}")
        # after the stop nothing is held: every packet is accounted for once
        check(im["rx"] + im["duplicated"] == im["tx"] + drops, f"{spec}: conservation: {im}")
        # what the stream sent is what its tx port sent
        check(port(s, st["tx_port"])["opackets"] == st["tx"], f"{spec}: port tx: {s['ports']}")
        check(port(s, st["rx_port"])["ipackets"] == st["rx"], f"{spec}: port rx: {s['ports']}")
    return s


# loss-every=97: exactly floor(rx / 97) lost per stream, nothing else
s = impair_run("loss-every=97")
for st in s["streams"]:
    im = st["impair"]
    check(im["rx"] > 97, f"traffic flowed: {im}")
    check(im["dropped_loss"] == im["rx"] // 97, f"loss-every=97: {im}")
    check(im["tx"] == im["rx"] - im["rx"] // 97, f"loss-every=97 tx: {im}")
    check(im["delayed"] == 0 and im["flushed"] == 0 and im["duplicated"] == 0, f"{im}")

# loss=100%: nothing goes out; loss=0% with a seed: everything does
s = impair_run("loss=100%,seed=3", "0.3")
check(all(st["impair"]["tx"] == 0 and st["impair"]["dropped_loss"] == st["rx"] > 0
          for st in s["streams"]), f"loss=100%: {s['streams']}")
s = impair_run("loss=0%,seed=3", "0.3")
check(all(st["impair"]["tx"] == st["rx"] > 0 for st in s["streams"]), f"loss=0%: {s['streams']}")

# delay: packets are released (tx > 0); the line is full at the stop, so
# what is still in it is freed and counted as flushed; the rest overflowed
s = impair_run("delay=2ms,jitter=1ms,limit=2048,seed=1", "0.5")
for st in s["streams"]:
    im = st["impair"]
    check(im["tx"] > 0, f"delay: released: {im}")
    check(im["flushed"] > 0, f"delay: flushed at stop: {im}")
    check(0 < im["flushed"] <= 2048, f"delay: flushed within the limit: {im}")
    check(im["delayed"] == im["tx"] + im["flushed"], f"delay: line in == out: {im}")
    check(im["delayed"] + im["dropped_overflow"] == im["rx"], f"delay: in: {im}")

# dup=100%: each packet and its copy (or a counted failure)
s = impair_run("dup=100%", "0.3")
for st in s["streams"]:
    im = st["impair"]
    check(im["duplicated"] + im["dup_failed"] == im["rx"] and im["duplicated"] > 0, f"dup: {im}")
    check(im["tx"] + im["tx_dropped"] == im["rx"] + im["duplicated"], f"dup: {im}")

# reorder=50%: counted, conserved (checked in impair_run)
s = impair_run("reorder=50%,seed=5", "0.3")
check(all(st["impair"]["reordered"] > 0 for st in s["streams"]), f"reorder: {s['streams']}")

# rate: the serializer queues into the line and what does not fit overflows
s = impair_run("rate=100kpps,limit=1000", "0.5")
for st in s["streams"]:
    im = st["impair"]
    check(im["tx"] > 0 and im["dropped_overflow"] > 0, f"rate: {im}")
    check(im["delayed"] == im["tx"] + im["flushed"], f"rate: {im}")

# another mode: no impair object
r = run([vfwd, "--port", "null", "--port", "null", "--fwd", "io", "--duration", "0.2", "--json"])
check(all("impair" not in st for st in final_stats(r.stdout)["streams"]), "io has no impair object")

# bad specs: exit 2, one line naming the key and what is accepted
for spec, want in [
        ("foo=1", ["unknown impair key 'foo'", "loss-every", "reorder", "limit"]),
        ("loss=200%", ["--impair 'loss=200%'", "key 'loss'", "0..100"]),
        ("delay=10", ["key 'delay'", "ns, us, ms or s"]),
        ("limit=0", ["key 'limit'", "1..1048576"]),
        ("rate=10mbps", ["key 'rate'", "mbit"]),
        ("loss=1%,loss=2%", ["'loss' given twice"]),
        ("", ["empty impair spec"])]:
    r = run([vfwd, "--port", "null", "--fwd", "impair", "--impair", spec, "--duration", "0.1"])
    check(r.returncode == 2, f"--impair {spec!r}: exit {r.returncode}")
    lines = r.stderr.strip().splitlines()
    check(len(lines) >= 1 and all(ln.startswith("Try ") for ln in lines[1:]),
          f"--impair {spec!r}: one line (and the --help hint), got {lines}")
    check(r.stdout == "", f"--impair {spec!r}: stdout {r.stdout!r}")
    check(all(w in lines[0] for w in want), f"--impair {spec!r}: {lines[0]!r} lacks {want}")

# the shell: set impair while stopped, show config fwd, fwd stats, clear
sh = Sh([vfwd, "--port", "null", "--port", "null"])
sh.cmd("set fwd impair")
sh.cmd("set impair loss-every=10,delay=100us")
c = sh.json("show config fwd")
check(c["mode"] == "impair" and c["impair"] == "loss-every=10,delay=100us", f"config {c}")
sh.cmd("set impair bogus=1")     # refused, the spec stays
check(sh.json("show config fwd")["impair"] == "loss-every=10,delay=100us", "bad set impair kept the spec")
sh.cmd("start")
sh.cmd("set impair none")        # refused while running
time.sleep(0.3)
sh.stop_fwd()
check(sh.json("show config fwd")["impair"] == "loss-every=10,delay=100us", "set impair while running refused")
f = sh.json("show fwd stats all")
for st in f["streams"]:
    im = st["impair"]
    check(im["rx"] > 0 and im["dropped_loss"] == im["rx"] // 10, f"shell: {im}")
    check(im["delayed"] == im["tx"] + im["flushed"], f"shell: {im}")
sh.cmd("clear fwd stats all")
f = sh.json("show fwd stats all")
check(all(v == 0 for st in f["streams"] for v in st["impair"].values()), f"cleared: {f}")
check(all(st["rx"] == 0 for st in f["streams"]), f"cleared: {f}")
sh.cmd("set impair none")
check(sh.json("show config fwd")["impair"] == "none", "set impair none")
sh.cmd("set fwd io")
check("impair" not in sh.json("show config fwd"), "no impair config in io mode")
sh.quit()
print("ok")
