"""Exact ground truth: nullgen's measure mode against vfwd's impair mode.

nullgen sends on two ports and receives on the other one; in between,
vfwd impairs the link (io between its two ports, each direction one pass
through the impairer).  Over memif and over virtio_user <-> vhost:
- loss-every=97: exactly floor(N/97) lost per stream, equal to what the
  impairer counted;
- random loss with a seed, duplication, reordering: nullgen's lost,
  duplicates and reordered equal the impairer's counters exactly;
- delay=2ms: p50 within [2 ms, 2 ms + 200 us].
vfwd forwards on core 1, nullgen on core 0."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
import vftest  # noqa: E402
from memif_util import Ours, check  # noqa: E402

D = vftest.tmpdir()
N = 20000


def impairer(ports, spec):
    args = []
    for p in ports:
        args += ["--port", p]
    v = Ours("vfwd", ["--main-lcore", "0"] + args + ["--fwd", "impair", "--impair", spec])
    v.cmd("start")
    return v


def measure(ports, extra=()):
    args = [vftest.binary("nullgen"), "-l", "0-1", "--main-lcore", "1", "--json",
            "--fwd", "measure", "--rate", "40000", "--count", str(N)] + list(extra)
    for p in ports:
        args += ["--port", p]
    r = vftest.run(args, timeout=120)
    check(r.returncode == 0, f"nullgen exit {r.returncode}: {r.stderr}")
    m = vftest.json_lines(r.stdout)[-1]["measure"]
    check(m["foreign"] == 0 and m["corrupt"] == 0 and m["stale"] == 0, f"{m}")
    return {s["tx_port"]: s for s in m["streams"]}


def impaired(v):
    """The impairer's counters by the port its stream receives on."""
    st = v.query("show fwd stats all json")["streams"]
    return {s["rx_port"]: s["impair"] for s in st}


def case(label, ours, theirs, socks, spec, expect):
    for sk in socks:
        if os.path.exists(sk):
            os.unlink(sk)
    v = impairer(theirs, spec)
    vftest.wait_for(lambda: all(os.path.exists(sk) for sk in socks), timeout=60,
                    what=f"{label}: impairer listening")
    ms = measure(ours)
    imp = impaired(v)
    for p, s in ms.items():
        i = imp[p]    # nullgen port p feeds the impairer's port p
        check(s["sent"] == N, f"{label}: sent {s}")
        dropped = i["dropped_loss"] + i["dropped_overflow"] + i["tx_dropped"] + i["flushed"]
        check(s["lost"] == dropped, f"{label}: lost {s['lost']} != impairer dropped {i}")
        check(s["duplicates"] == i["duplicated"], f"{label}: dups {s['duplicates']} vs {i}")
        check(s["reordered"] == i["reordered"], f"{label}: reordered {s['reordered']} vs {i}")
        check(s["received"] == N - s["lost"] + s["duplicates"], f"{label}: {s}")
        expect(s, i)
    print(f"{label}: " + "; ".join(
        f"stream {p}: lost {s['lost']} dup {s['duplicates']} reord {s['reordered']} "
        f"p50 {s['latency_us']['p50']} us" for p, s in ms.items()))
    check(v.quit() == 0, f"{label}: vfwd exit")


def every97(s, i):
    check(s["lost"] == N // 97 and i["dropped_loss"] == N // 97, f"every 97th: {s} {i}")


def some(key, ikey):
    def f(s, i):
        check(i[ikey] > 0, f"the impairer did nothing: {i}")
    return f


def delay2ms(s, i):
    p50 = s["latency_us"]["p50"]
    check(2000 <= p50 <= 2200, f"p50 {p50} us not within [2000, 2200]")
    check(i["delayed"] > 0 and s["lost"] == 0, f"{s} {i}")


m1, m2 = os.path.join(D, "a.sock"), os.path.join(D, "b.sock")
theirs = [f"memif,role=server,socket={m1},socket-abstract=no",
          f"memif,role=server,socket={m2},socket-abstract=no"]
ours = [f"memif,role=client,socket={m1},socket-abstract=no",
        f"memif,role=client,socket={m2},socket-abstract=no"]
socks = [m1, m2]
case("memif loss-every=97", ours, theirs, socks, "loss-every=97", every97)
case("memif loss=1%", ours, theirs, socks, "loss=1%,seed=11", some("lost", "dropped_loss"))
case("memif dup=1%", ours, theirs, socks, "dup=1%,seed=3", some("duplicates", "duplicated"))
case("memif reorder=1%", ours, theirs, socks, "reorder=1%,seed=5", some("reordered", "reordered"))
case("memif delay=2ms", ours, theirs, socks, "delay=2ms", delay2ms)

v1, v2 = os.path.join(D, "v1.sock"), os.path.join(D, "v2.sock")
theirs = [f"vhost,iface={v1}", f"vhost,iface={v2}"]
ours = [f"virtio_user,path={v1}", f"virtio_user,path={v2}"]
socks = [v1, v2]
case("vhost loss-every=97", ours, theirs, socks, "loss-every=97", every97)
case("vhost reorder=1%", ours, theirs, socks, "reorder=1%,seed=7", some("reordered", "reordered"))
print("ok")
