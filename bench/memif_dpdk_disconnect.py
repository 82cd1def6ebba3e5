"""Does DPDK 22.11's net_memif server survive a client that leaves under load?

Issue 31 item 5.  Each round starts a testpmd with a net_memif server in io
mode, connects a client that sends as fast as it can, lets it run, then
makes the client leave, and looks whether the server testpmd is still alive
half a second later.  The client is, in turn:

  dpdk-quit   another testpmd (net_memif client, txonly), `quit`
  dpdk-kill   the same, SIGKILLed (the socket closes, no DISCONNECT message)
  ours-quit   memifctl --role client --fwd txonly, `quit`
  ours-kill   the same, SIGKILLed

A busy loop on each core (`--hog`, on by default) stands for the loaded
machine the crash was first seen on: it stretches the time the server's
forwarding core spends inside a burst, which is the window that matters
(see below).  With `--bt` a server that died leaves a core file, and gdb
prints the crashing thread's backtrace from it.

Why it can die, from DPDK 22.11's source (drivers/net/memif): when the
control channel closes or a DISCONNECT arrives, the server's interrupt
thread runs memif_disconnect(), which clears ETH_MEMIF_FLAG_CONNECTED with
a plain store and then, at once, munmap()s every region and frees the
region structs (memif_free_regions).  The forwarding core tests that flag
only on entry to eth_memif_rx/eth_memif_tx and then reads the rings and
buffers through those regions; nothing makes the interrupt thread wait for
a burst in progress (no RCU, no lock, no quiescent point).  A core that
passed the flag check and is still in the burst, or was preempted there,
touches unmapped memory: SIGSEGV.  Any client's leaving opens the window,
ours or DPDK's, a clean DISCONNECT or a closed socket.

Without `--keep`, each round then asks the server to `quit` and records
how its shutdown ended: protocols.md pitfall 32 saw testpmd's net_memif die
on its own exit after the client had gone.  With `--rx` the clients also
receive what the server sends back (testpmd's and our flowgen instead of
txonly), so the server's transmit path is as busy as its receive path, as
in the tests that saw the crash (a measuring client against macswap).

With `--keep` one server testpmd serves every round of a kind (a client
connects, sends, leaves; the next one connects to the same server), as the
tests that saw the crash did; without it each round has a server of its own.

Env KINDS picks the kinds (space-separated); KEEP_CORES=DIR keeps each
core file there.

Usage: VF_BUILD=$PWD/build python3 bench/memif_dpdk_disconnect.py [ROUNDS] [--no-hog] [--bt] [--keep] [--rx]
"""
import glob
import os
import resource
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "memif"))
import vftest  # noqa: E402
from memif_util import Ours, TestPmd  # noqa: E402

args = [a for a in sys.argv[1:] if not a.startswith("--")]
ROUNDS = int(args[0]) if args else 10
HOG = "--no-hog" not in sys.argv
BT = "--bt" in sys.argv
KEEP = "--keep" in sys.argv
RX = "--rx" in sys.argv
MODE = "flowgen" if RX else "txonly"
KINDS = os.environ.get("KINDS", "dpdk-quit dpdk-kill ours-quit ours-kill").split()


def hogs():
    if not HOG:
        return []
    return [subprocess.Popen(["taskset", "-c", str(c), "sh", "-c", "while :; do :; done"])
            for c in range(os.cpu_count() or 2)]


def backtrace(pid):
    """The crashing thread's frames from the core file (core_pattern
    'core': the file lands in the working directory, as core or core.PID)."""
    cores = [c for c in glob.glob("core*") if c in ("core", f"core.{pid}")]
    if not cores:
        print("  (no core file: check /proc/sys/kernel/core_pattern)")
        return
    out = subprocess.run(["gdb", "-q", "-batch", "-ex", "bt 12", "-ex", "info sharedlibrary",
                          "-ex", "x/3i $pc", vftest.TESTPMD, cores[0]],
                         capture_output=True, text=True, timeout=120).stdout
    # Debian ships no symbols for the PMD's static functions: the crashing
    # pc as an offset into the library's .text (the From column) is what
    # objdump -d of that library can be matched against.
    print("  " + "\n  ".join(ln for ln in out.splitlines()
                              if ln.startswith(("#", "=>")) or "signal" in ln or "net_memif" in ln))
    keep = os.environ.get("KEEP_CORES")
    if keep:
        os.makedirs(keep, exist_ok=True)
        os.rename(cores[0], os.path.join(keep, f"core.{pid}"))
    else:
        os.unlink(cores[0])


def server(kind, rnd):
    name = f"vfdisc{os.getpid()}x{rnd}{kind[0]}{kind[-1]}"
    srv = TestPmd(f"net_memif0,role=server,id=0,socket={name}", lcores="0-1")
    srv.cmd("set fwd macswap" if RX else "set fwd io")
    srv.cmd("start")
    return srv, name


def one_round(kind, srv, name):
    """A client of kind connects to srv, sends for a second and leaves:
    the server's exit status half a second later, None while alive."""
    if kind.startswith("dpdk"):
        cli = TestPmd(f"net_memif0,role=client,id=0,socket={name}", lcores="1,0")
        cli.cmd(f"set fwd {MODE}")
        cli.cmd("start")
    else:
        cli = Ours("memifctl", ["--role", "client", "--id", "0", "--socket", "@" + name,
                                "--fwd", MODE])
        cli.wait_state("connected")
        cli.cmd("start")
    time.sleep(1.0)
    if kind.endswith("kill"):
        cli.p.send_signal(signal.SIGKILL)
        cli.p.wait(timeout=10)
    else:
        cli.quit()
    time.sleep(0.5)
    rc = srv.p.poll()
    if rc is not None and BT:
        backtrace(srv.p.pid)
    if cli.p.poll() is None:
        cli.kill()
    return rc


def main():
    if BT:
        resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        os.chdir(vftest.tmpdir())
    hog = hogs()
    deaths = {k: [] for k in KINDS}
    exits = {k: [] for k in KINDS}	# the server's own quit after the client left
    try:
        for k in KINDS:
            srv = None
            for r in range(ROUNDS):
                if srv is None:
                    srv, name = server(k, r)
                rc = one_round(k, srv, name)
                if rc is not None:
                    deaths[k].append(rc)
                print(f"round {r} {k:10s}: server {'alive' if rc is None else f'died, status {rc}'}",
                      flush=True)
                if rc is None and not KEEP:
                    time.sleep(float(os.environ.get("QUIT_AFTER", "0")))
                    pre = srv.p.poll()
                    q = srv.quit(timeout=20)
                    print(f"          {'':10s}  server quit: status {q}", flush=True)
                    if q != 0:
                        exits[k].append(q)
                        print(f"          {'':10s}  alive just before quit: {pre is None}; its last "
                              f"lines:\n            " + "\n            ".join(srv.text().splitlines()[-6:]))
                        if BT:
                            backtrace(srv.p.pid)
                if rc is not None or not KEEP:
                    srv.kill()
                    srv = None
            if srv is not None:
                srv.kill()
    finally:
        for h in hog:
            h.kill()
    print(f"\nnet_memif server deaths after the client left ({ROUNDS} rounds each, "
          f"{'with' if HOG else 'without'} a busy loop on every core, "
          f"{'one server for all rounds' if KEEP else 'a server a round'}, "
          f"clients {MODE}):")
    for k in KINDS:
        sigs = sorted(set(deaths[k]))
        line = f"  {k:10s} {len(deaths[k])} of {ROUNDS}" + (f"  (status {sigs})" if sigs else "")
        if not KEEP:
            line += f"; its own quit failed {len(exits[k])} times" + \
                (f" (status {sorted(set(exits[k]))})" if exits[k] else "")
        print(line)


if __name__ == "__main__":
    main()
