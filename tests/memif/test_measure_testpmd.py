"""DPDK testpmd as the device under test of nullgen's measure mode.

net_memif server (testpmd macswap) with nullgen as memif client, and
net_vhost (testpmd macswap) with nullgen's virtio_user:
- at a rate it sustains, every frame comes back: no loss, no duplicate,
  no reordering (testpmd's memif counters reset when its peer leaves, so
  the count is ours);
- a device under test that drops (testpmd rxonly) is reported as loss and
  fails --max-loss;
- two NDR searches of the same device agree within 5 %.
testpmd forwards on core 1, nullgen on core 0."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
import vftest  # noqa: E402
from memif_util import TestPmd, check, sock_name  # noqa: E402

NG = [vftest.binary("nullgen"), "-l", "0-1", "--main-lcore", "1", "--json"]
N = 5000


def run(args, timeout=120):
    r = vftest.run(NG + args, timeout=timeout)
    return r, vftest.json_lines(r.stdout)


def stream0(objs):
    return objs[-1]["measure"]["streams"][0]


def exact(port, tp, label):
    r, objs = run(["--port", port, "--fwd", "measure", "--rate", "20000", "--count", str(N),
                   "--max-loss", "0"])
    check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr}")
    s = stream0(objs)
    check(s["sent"] == N and s["received"] == N and s["lost"] == 0, f"{label}: {s}")
    check(s["duplicates"] == 0 and s["reordered"] == 0, f"{label}: {s}")
    check(objs[-1]["measure"]["corrupt"] == 0, f"{label}: macswap keeps the stamp valid")
    print(f"{label}: {N} of {N} back, p50 {s['latency_us']['p50']} us, max {s['latency_us']['max']} us")


def ndr_twice(port, label):
    ndrs = []
    for _ in range(2):
        r, objs = run(["--port", port, "--fwd", "measure", "--search", "--trial", "0.25",
                       "--max-rate", "200000", "--min-rate", "20000", "--precision", "0.02"],
                      timeout=170)
        check(r.returncode == 0, f"{label} search: exit {r.returncode}: {r.stderr}")
        ndrs.append(objs[-1]["search"]["ndr"]["rate_pps"])
    lo, hi = min(ndrs), max(ndrs)
    check(lo > 0 and (hi - lo) <= 0.05 * hi, f"{label}: NDR {ndrs} differ by more than 5 %")
    print(f"{label}: NDR {ndrs} pps")


# net_memif
name = sock_name("mt")[1:]
tp = TestPmd(f"net_memif0,role=server,id=3,socket={name}")
tp.cmd("set fwd macswap")
tp.cmd("start")
mport = f"memif,role=client,id=3,socket=@{name}"
exact(mport, tp, "net_memif macswap")
ndr_twice(mport, "net_memif macswap")
tp.cmd("stop")
tp.cmd("set fwd rxonly")
tp.cmd("start")
r, objs = run(["--port", mport, "--fwd", "measure", "--rate", "20000", "--count", "2000",
               "--max-loss", "0.01"])
s = stream0(objs)
check(r.returncode == 1 and "exceeds --max-loss 0.01" in r.stderr, f"exit {r.returncode}: {r.stderr}")
check(s["sent"] == 2000 and s["received"] == 0 and s["lost"] == 2000, f"rxonly: {s}")
tp.kill()

# net_vhost with our virtio_user
d = vftest.tmpdir()
vs = os.path.join(d, "vh.sock")
tp = TestPmd(f"net_vhost0,iface={vs}")
tp.cmd("set fwd macswap")
tp.cmd("start")
vftest.wait_for(lambda: os.path.exists(vs), what="net_vhost socket")
vport = f"virtio_user,path={vs}"
exact(vport, tp, "net_vhost macswap")
tp.kill()
print("ok")
