"""A memif peer that leaves loses nothing it handed over: sent == received
exactly, the peer stopping right after its last burst (issue 13, 2).

Each case runs RUNS times (5; 20 with --long or VF_LONG=1):
  ours_client / ours_client_zc -> our server: a one-shot vfwd client sends
      txonly for 0.3 s and exits (DISCONNECT); our server (rxonly) has
      received exactly what the client placed in its ring;
  ours_server -> our client: a one-shot vfwd server sends and exits;
  dpdk_client / dpdk_client_zc -> our server: testpmd (net_memif client)
      txonly, then quit while forwarding (its final forward statistics
      say what it sent);
  dpdk_server -> our client: testpmd (net_memif server) txonly, stop, quit
      (DPDK's server spins when it quits while forwarding).
Before the drain the receiver missed up to a ring (1024) of packets."""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from memif_util import Ours, Proc, TestPmd, check, sock_name, wait_for  # noqa: E402
import vftest  # noqa: E402
from drain_skeleton import RUNS, oneshot, record, run_cases  # noqa: E402


def receiver(role, name, zc="no"):
    extra = ["reconnect-ms=100"] if role == "client" else []
    spec = ",".join([f"memif,role={role},id=0,socket={name}"] + extra)
    r = Ours("vfwd", ["--port", spec, "--fwd", "rxonly", "-a"])
    r.wait_state("listening" if role == "server" else "connecting")
    return r


def settle(r, state):
    r.wait_state(state)
    return r.stats()["ipackets"]


def case_ours_client(zc):
    case = "ours_client" + ("_zc" if zc == "yes" else "")
    name = sock_name(case)
    srv = receiver("server", name)
    for _ in range(RUNS):
        base = srv.stats()["ipackets"]
        sent = oneshot(f"memif,role=client,id=0,socket={name},zero-copy={zc}")
        record(case, sent, settle(srv, "listening") - base)
    check(srv.query("show port xstats 0 json") is not None, "xstats")
    check(srv.quit() == 0, "server exit")


def case_ours_server():
    name = sock_name("os")
    cli = receiver("client", name)
    for _ in range(RUNS):
        base = cli.stats()["ipackets"]
        sent = oneshot(f"memif,role=server,id=0,socket={name}", dur="1")
        record("ours_server", sent, settle(cli, "connecting") - base)
    check(cli.quit() == 0, "client exit")


def testpmd(vdev, eal=()):
    """TestPmd with extra EAL arguments (zero-copy needs single-file
    segments)."""
    args = vftest.testpmd_args([vdev], ["-i", "--total-num-mbufs=4096"])
    i = args.index("--")
    args[i:i] = list(eal)
    tp = TestPmd.__new__(TestPmd)
    Proc.__init__(tp, ["stdbuf", "-oL"] + args)
    tp.wait_line(lambda ln: "testpmd>" in ln or "Done" in ln, 0, 60, "testpmd start")
    return tp


def testpmd_send(vdev, ours, quit_running=True):
    tp = testpmd(vdev, ["--single-file-segments"] if "zero-copy=yes" in vdev else [])
    ours.wait_state("connected")
    tp.wait_link()
    tp.cmd("set fwd txonly")
    tp.cmd("start")
    time.sleep(0.3)
    if not quit_running:
        # DPDK 22.11's memif server spins in its listener when it quits
        # while forwarding (pitfall 32): stop first
        tp.cmd("stop")
        sent = tp.port_stats()["tx"]
        # ... and sometimes at quit anyway: killed after 5 s, not our fault
        tp.quit(timeout=5)
        return sent
    # quit while forwarding: testpmd stops its cores, prints what it sent
    # and closes the port right after its last burst
    check(tp.quit() == 0, f"testpmd exit:\n{tp.text()[-2000:]}")
    m = re.search(r"Forward statistics for port 0.*?TX-packets:\s*(\d+)", tp.text(), re.S)
    check(m is not None, f"testpmd forward stats:\n{tp.text()[-2000:]}")
    return int(m.group(1))


def case_dpdk_client(zc):
    case = "dpdk_client" + ("_zc" if zc == "yes" else "")
    name = sock_name(case)
    srv = Ours("vfwd", ["--main-lcore", "1", "--port", f"memif,role=server,id=0,socket={name}",
                        "--fwd", "rxonly", "-a"])
    srv.wait_state("listening")
    for _ in range(RUNS):
        base = srv.stats()["ipackets"]
        sent = testpmd_send(f"net_memif0,role=client,id=0,socket={name[1:]},zero-copy={zc}",
                            srv)
        record(case, sent, settle(srv, "listening") - base)
    check(srv.quit() == 0, "server exit")


def case_dpdk_server():
    name = sock_name("ds")
    cli = Ours("vfwd", ["--main-lcore", "1", "--port",
                        # DPDK's server spins in its listener when a client
                        # comes back while it quits (pitfall 32): not too soon
                        f"memif,role=client,id=0,socket={name},reconnect-ms=1500",
                        "--fwd", "rxonly", "-a"])
    cli.wait_state("connecting")
    for _ in range(RUNS):
        base = cli.stats()["ipackets"]
        sent = testpmd_send(f"net_memif0,role=server,id=0,socket={name[1:]}", cli, False)
        record("dpdk_server", sent, settle(cli, "connecting") - base)
    check(cli.quit() == 0, "client exit")


cases = {
    "ours_client": lambda: case_ours_client("no"),
    "ours_client_zc": lambda: case_ours_client("yes"),
    "ours_server": case_ours_server,
    "dpdk_client": lambda: case_dpdk_client("no"),
    "dpdk_client_zc": lambda: case_dpdk_client("yes"),
    "dpdk_server": case_dpdk_server,
}
run_cases(cases)
