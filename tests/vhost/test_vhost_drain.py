"""A vhost-user peer that leaves loses nothing it handed over: sent ==
received exactly, the sender stopping right after its last burst (issue 13,
2).  Each case runs RUNS times (5; 20 with --long or VF_LONG=1):
  virtio_split / virtio_packed: a one-shot vfwd virtio_user (txonly, 0.3 s)
      into our vhost port (rxonly): its stop sends GET_VRING_BASE and
      closes; the vhost port has taken everything it transmitted;
  vhost_split / vhost_packed: a one-shot vfwd vhost port (client=1,
      txonly) into our virtio_user (server=1, rxonly): it closes after its
      last burst; the virtio_user port has taken every packet it
      completed.
Before the drain the packed cases lost a few hundred packets a run."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "memif"))
from memif_util import Ours, check, wait_for  # noqa: E402
import vftest  # noqa: E402
from drain_skeleton import RUNS, oneshot, record, run_cases  # noqa: E402


def down(r):
    wait_for(lambda: r.stats()["link"] == "down", timeout=30, what="link down")
    return r.stats()["ipackets"]


def case_virtio(packed):
    case = "virtio_" + ("packed" if packed else "split")
    sock = os.path.join(vftest.tmpdir(), "vh.sock")
    rx = Ours("vfwd", ["--port", f"vhost,iface={sock}", "--fwd", "rxonly", "-a"])
    wait_for(lambda: os.path.exists(sock), timeout=30, what="the vhost socket")
    for _ in range(RUNS):
        base = rx.stats()["ipackets"]
        sent = oneshot(f"virtio_user,path={sock},packed_vq={int(packed)}")
        record(case, sent, down(rx) - base)
    check(rx.quit() == 0, "receiver exit")


def case_vhost(packed):
    case = "vhost_" + ("packed" if packed else "split")
    sock = os.path.join(vftest.tmpdir(), "vu.sock")
    rx = Ours("vfwd", ["--port", f"virtio_user,path={sock},server=1,packed_vq={int(packed)}",
                       "--fwd", "rxonly", "-a"])
    wait_for(lambda: os.path.exists(sock), timeout=30, what="the virtio_user socket")
    for _ in range(RUNS):
        base = rx.stats()["ipackets"]
        sent = oneshot(f"vhost,iface={sock},client=1", dur="1")
        record(case, sent, down(rx) - base)
    check(rx.quit() == 0, "receiver exit")


cases = {
    "virtio_split": lambda: case_virtio(False),
    "virtio_packed": lambda: case_virtio(True),
    "vhost_split": lambda: case_vhost(False),
    "vhost_packed": lambda: case_vhost(True),
}
run_cases(cases)
