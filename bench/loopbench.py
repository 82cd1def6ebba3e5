"""Shared part of bench/vloop.sh and bench/memif.sh: the rounds, the limit
probe, the interactive front-end, the clean-up and the report.

A loop benchmark is a set of groups (ring kinds) and pairings; each round
runs, for every regime (packets in flight) and group, the limit probe and
every pairing once, in an order rotated from round to round, so that a drift
in the machine's load hits all alike.  The report gives, per group and
regime, the median of the rounds with the min-max range, the ratio of the
medians to the reference pairing and the fraction of the probe's median.

Environment (read by configure()):
  INFLIGHT  comma list of packets in flight, multiples of 32 (`start
            tx_first N/32`); default 32,256
  ROUNDS    rounds (default 5)
  DURATION  seconds between the two rate samples (default 5)
  LINKWAIT  seconds from the front-end's start to tx_first (default 3)
  WARMUP    seconds from the loop's start (the front-end's rx counter moves)
            to the first rate sample (default 2)
  STARTWAIT seconds after tx_first for the loop to start, else the round's
            figure is 0 (a failed run, left out of the median; default 20)
  VF_BUILD  build folder (default build); the probe is built into
            VF_BUILD/bench/limit_probe
  VF_BENCH_JSON  also write every round's figure to this file (JSON)
  SUBWIN    split the measuring window into this many sub-windows and take
            the median of their rates (default 1: the whole window).  On a
            machine shared with compiles, a preemption of either polling
            core sinks one sub-window, not the figure.
  QUIET     before each figure wait up to this many seconds for the CPUs
            to be idle (at least 85% over 1 s; default 0: no wait).  The
            figures that had to start without it are counted in the report.
  PAIRS     comma list: run only these pairings (default all)
  VF_BUILD_BASE  a second build folder: every pairing naming "ours" also
            runs with its tools, as "base:PAIR" (see pairs())
  VF_BENCH_LOG   keep each process's output in this folder (one file a
                 process; otherwise the servers' output is discarded)
  QUEUES    queue pairs per port, each on a forwarding core of its own on
            both sides (default 1); packets in flight are per queue.  With
            more than one, or on a machine of 4 or more CPUs, each side
            gets cores of its own (side A: main lcore 0, forwarding 1..Q;
            side B: main Q+1, forwarding Q+2..2Q+1: 2Q+2 CPUs); 1 queue on
            fewer CPUs keeps the script's own two-core layout.  The scaling
            figures: run once per QUEUES value and compare with 1.
"""
import glob, json, os, re, shutil, signal, statistics, subprocess, sys, threading, time

import benchlib

BURST = 32
RUNDIR = "/var/run/dpdk" if os.geteuid() == 0 else \
    os.path.join(os.environ.get("XDG_RUNTIME_DIR", "/tmp"), "dpdk")

live = []	# processes still to be stopped
prefixes = set()	# testpmd --file-prefix values whose runtime folder is to go
pids = set()	# pids of our tools (vf-TOOL-PID-* runtime folders, if left)


class Cfg:
    pass


def configure():
    c = Cfg()
    c.build = os.environ.get("VF_BUILD", "build")
    c.inflight = [int(x) for x in os.environ.get("INFLIGHT", "32,256").split(",") if x]
    for n in c.inflight:
        if n <= 0 or n % BURST:
            sys.exit(f"INFLIGHT: {n} is not a positive multiple of {BURST}")
    c.rounds = int(os.environ.get("ROUNDS", "5"))
    c.dur = float(os.environ.get("DURATION", "5"))
    c.linkwait = float(os.environ.get("LINKWAIT", "3"))
    c.warmup = float(os.environ.get("WARMUP", "2"))
    c.startwait = float(os.environ.get("STARTWAIT", "20"))
    c.json = os.environ.get("VF_BENCH_JSON")
    c.subwin = max(1, int(os.environ.get("SUBWIN", "1")))
    c.quiet = float(os.environ.get("QUIET", "0"))
    c.noisy = 0
    c.queues = int(os.environ.get("QUEUES", "1"))
    if c.queues < 1 or c.queues > 16:
        sys.exit("QUEUES: 1 to 16")
    if (c.queues > 1 or (os.cpu_count() or 1) >= 4) and 2 * c.queues + 2 > (os.cpu_count() or 1):
        sys.exit(f"QUEUES={c.queues} needs {2 * c.queues + 2} CPUs, this machine has {os.cpu_count()}")
    if c.rounds < 1 or c.dur <= 0:
        sys.exit("ROUNDS >= 1 and DURATION > 0")
    c.probe = build_probe(c.build)
    return c


def cores(cfg, side, two_core):
    """EAL core options of one side ("a" or "b") for cfg.queues forwarding
    cores: two_core (the script's layout on the two-core machine) for one
    queue there, else cores of its own (see QUEUES above)."""
    q = cfg.queues
    if q == 1 and (os.cpu_count() or 1) < 4:
        return list(two_core)
    first = 0 if side == "a" else q + 1
    return ["-l", f"{first}-{first + q}", "--main-lcore", str(first)]


def testpmd_queues(cfg):
    """testpmd's application options for cfg.queues queues on as many cores."""
    q = cfg.queues
    return [f"--rxq={q}", f"--txq={q}", f"--nb-cores={q}"]


def pairs(all_pairs):
    """The pairings to run: PAIRS (a subset of all_pairs) or all of them,
    and with VF_BUILD_BASE each one naming "ours" once more as base:PAIR,
    right after it (the same build's figures side by side)."""
    want = [p for p in os.environ.get("PAIRS", "").split(",") if p] or all_pairs
    for p in want:
        if p not in all_pairs:
            sys.exit(f"PAIRS: unknown pairing {p}: one of {', '.join(all_pairs)}")
    out = []
    for p in want:
        out.append(p)
        if os.environ.get("VF_BUILD_BASE") and "ours" in p:
            out.append("base:" + p)
    return out


def _cpu_times():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return v[3] + v[4], sum(v[:8])	# idle + iowait, total


def wait_quiet(cfg):
    """Waits up to QUIET seconds for a second with the CPUs 85% idle."""
    if cfg.quiet <= 0:
        return
    end = time.monotonic() + cfg.quiet
    while time.monotonic() < end:
        i0, t0 = _cpu_times()
        time.sleep(1)
        i1, t1 = _cpu_times()
        if t1 > t0 and (i1 - i0) / (t1 - t0) >= 0.85:
            return
    cfg.noisy += 1


def build_probe(build):
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "limit_probe.c")
    out = os.path.join(build, "bench", "limit_probe")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        subprocess.run(["cc", "-O2", "-march=native", "-pthread", "-o", out, src], check=True)
    return out


def cleanup_dirs():
    for p in list(prefixes):
        shutil.rmtree(os.path.join(RUNDIR, p), ignore_errors=True)
    prefixes.clear()
    for pid in list(pids):
        for d in glob.glob(os.path.join(RUNDIR, f"vf-*-{pid}-*")):
            shutil.rmtree(d, ignore_errors=True)
    pids.clear()


def start(cmd, prefix=None, ours=False, **kw):
    """Popen that remembers what to clean up after the process."""
    if prefix:
        prefixes.add(prefix)
    p = subprocess.Popen(cmd, **kw)
    live.append(p)
    if ours:
        pids.add(p.pid)
    return p


def stop(p, sig=signal.SIGINT, t=20):
    benchlib.stop(p, sig, t)
    if p in live:
        live.remove(p)


_nlog = 0


def _log(kind):
    """A file for a process's output under VF_BENCH_LOG, or DEVNULL."""
    global _nlog
    d = os.environ.get("VF_BENCH_LOG")
    if not d:
        return subprocess.DEVNULL
    os.makedirs(d, exist_ok=True)
    _nlog += 1
    return open(os.path.join(d, f"{_nlog:04d}-{kind}.log"), "w")


def quiet(cmd, prefix=None, ours=False):
    """A back-end or server: no shell, output discarded (or logged)."""
    f = _log("server")
    if f is not subprocess.DEVNULL:
        f.write(" ".join(cmd) + "\n")
        f.flush()
    return start(cmd, prefix, ours, stdin=subprocess.DEVNULL, stdout=f, stderr=f)


def _rx_count(line, ours):
    if ours:
        if line.startswith("{") and '"ipackets"' in line:
            try:
                return json.loads(line)["ports"][0]["ipackets"]
            except (ValueError, KeyError, IndexError):
                return None
        return None
    m = re.search(r"RX-packets:\s+(\d+)", line)
    return int(m.group(1)) if m else None


def shell_rate(cfg, cmd, ours, bursts, prefix=None):
    """Runs a front-end (client) whose shell reads commands from stdin: waits
    LINKWAIT, sends `start tx_first BURSTS`, then asks for the port stats
    until the rx counter moves (the loop runs: a back-end that maps the
    memory slowly starts late, and a window before that would measure
    nothing), samples the rx counter WARMUP and WARMUP+DURATION seconds
    after that and returns port 0's rx Mpps between the two samples (0 if
    the loop did not run within STARTWAIT seconds)."""
    show = "show port stats 0 json" if ours else "show port stats 0"
    if not ours:
        cmd = ["stdbuf", "-oL", *cmd]
    err = _log("client")
    if err is not subprocess.DEVNULL:
        err.write(" ".join(cmd) + "\n")
        err.flush()
    p = start(cmd, prefix, ours, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
              stderr=err, text=True, bufsize=1)
    lines = []	# (arrival time, line), appended by the reader thread

    def reader():
        try:
            for ln in p.stdout:
                lines.append((time.monotonic(), ln))
        except (OSError, ValueError):
            pass
    th = threading.Thread(target=reader, daemon=True)
    th.start()

    def send(line):
        p.stdin.write(line + "\n")
        p.stdin.flush()

    def sample():
        """(time, rx packets) from a fresh `show port stats`, or None."""
        i = len(lines)
        send(show)
        end = time.monotonic() + 5
        while time.monotonic() < end and p.poll() is None:
            for t, ln in lines[i:]:
                c = _rx_count(ln, ours)
                if c is not None:
                    return t, c
            time.sleep(0.01)
        return None

    rate = 0.0
    try:
        time.sleep(cfg.linkwait)
        send(f"start tx_first {bursts}")
        end = time.monotonic() + cfg.startwait
        prev = None
        running = False
        while time.monotonic() < end and p.poll() is None:
            time.sleep(0.25)
            s = sample()
            if s is None:
                break
            if prev is not None and s[1] > prev[1]:
                running = True
                break
            prev = s
        if running:
            time.sleep(cfg.warmup)
            pts = [sample()]
            for _ in range(cfg.subwin):
                time.sleep(cfg.dur / cfg.subwin)
                pts.append(sample())
            rates = [(b[1] - a[1]) / (b[0] - a[0]) / 1e6
                     for a, b in zip(pts, pts[1:]) if a and b and b[0] > a[0]]
            if len(rates) == cfg.subwin:
                rate = statistics.median(rates)
        send("stop")
        time.sleep(0.2)
        send("quit")
        p.stdin.close()
    except (BrokenPipeError, ValueError, OSError):	# it exited (refused the devargs, lost the peer)
        pass
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass
    stop(p)
    th.join(timeout=5)
    if err is not subprocess.DEVNULL:
        err.write("".join(ln for _, ln in lines))
        err.close()
    return rate


def probe(cfg, inflight):
    wait_quiet(cfg)
    r = subprocess.run([cfg.probe, "-n", str(inflight), "-d", str(cfg.dur), "-r"],
                       capture_output=True, text=True)
    try:
        return float(r.stdout.strip())
    except ValueError:
        return 0.0


def _term(sig, frm):
    raise SystemExit(128 + sig)


def run(cfg, title, groups, pairs, ref, one, labels=None):
    """groups: list of group names; pairs: list of pairing names; ref: the
    reference pairing; one(group, pair, bursts, tag) -> Mpps."""
    signal.signal(signal.SIGTERM, _term)
    signal.signal(signal.SIGHUP, _term)
    if ref not in pairs:	# PAIRS left it out: ratios to the first
        ref = pairs[0]
    labels = labels or {p: p for p in pairs}
    res = {}	# (group, inflight, pair) -> [Mpps per round]; group None: probe
    n = 0
    t0 = time.time()
    print(f"{title}\n{cfg.queues} queue pair(s) on as many forwarding cores per side, "
          f"{cfg.dur:g} s per figure, median of {cfg.rounds} interleaved rounds [min-max], "
          f"packets in flight per queue {','.join(map(str, cfg.inflight))}", flush=True)
    try:
        for r in range(cfg.rounds):
            order = pairs[r % len(pairs):] + pairs[:r % len(pairs)]
            for inf in cfg.inflight:
                res.setdefault((None, inf, "limit"), []).append(probe(cfg, inf))
                for g in groups:
                    for p in order:
                        n += 1
                        wait_quiet(cfg)
                        try:
                            v = one(g, p, inf // BURST, f"{os.getpid()}x{n}")
                        finally:
                            for q in list(live):
                                stop(q)
                            cleanup_dirs()
                        res.setdefault((g, inf, p), []).append(v)
            print(f"# round {r + 1}/{cfg.rounds} done, {time.time() - t0:.0f} s",
                  file=sys.stderr, flush=True)
    finally:
        for q in list(live):
            stop(q, signal.SIGKILL, 5)
        cleanup_dirs()
    report(cfg, groups, pairs, ref, res, labels)
    if cfg.json:
        with open(cfg.json, "w") as f:
            json.dump([{"group": g, "inflight": i, "pair": p, "mpps": v}
                       for (g, i, p), v in res.items()], f, indent=1)


def _stat(v):
    """median, min, max of the runs that ran (a 0 is a failed run), and the
    count of failed runs."""
    ok = [x for x in v if x > 0]
    if not ok:
        return 0.0, 0.0, 0.0, len(v)
    return statistics.median(ok), min(ok), max(ok), len(v) - len(ok)


def report(cfg, groups, pairs, ref, res, labels):
    w = max([len(labels[p]) for p in pairs] + [len("limit probe")])
    rw = max(8, len(labels[ref]) + 1)
    print(f"{'ring':<10} {'inflight':>8}  {'pairing':<{w}} {'Mpps':>8} {'[min-max]':>17} "
          f"{'/' + labels[ref]:>{rw}} {'/limit':>7}")
    failed = 0
    for g in groups:
        for inf in cfg.inflight:
            lim = _stat(res[(None, inf, "limit")])[0]
            refm = _stat(res[(g, inf, ref)])[0]
            for p in pairs + ["limit"]:
                m, lo, hi, nf = _stat(res[(None if p == "limit" else g, inf, p)])
                if p != "limit":
                    failed += nf
                rr = "" if p == "limit" else f"{m / refm:.2f}" if refm and m else "n/a"
                fl = f"{m / lim:.2f}" if lim and m else "n/a"
                rng = f"[{lo:.3f}-{hi:.3f}]"
                name = "limit probe" if p == "limit" else labels[p]
                note = f"  ({nf} of {len(res[(None if p == 'limit' else g, inf, p)])} runs failed)" \
                    if nf else ""
                print(f"{g:<10} {inf:>8}  {name:<{w}} {m:>8.3f} {rng:>17} {rr:>{rw}} {fl:>7}{note}",
                      flush=True)
    if cfg.quiet > 0:
        print(f"# {cfg.noisy} figures started without {cfg.quiet:g} s of waiting finding the CPUs idle")
    if failed:
        print(f"# {failed} runs failed (the loop did not start): left out of the medians; "
              f"VF_BENCH_LOG=DIR keeps the processes' output")
