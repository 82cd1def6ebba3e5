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
  WARMUP    seconds from tx_first to the first rate sample (default 2)
  VF_BUILD  build folder (default build); the probe is built into
            VF_BUILD/bench/limit_probe
  VF_BENCH_JSON  also write every round's figure to this file (JSON)
  VF_BENCH_LOG   keep each process's output in this folder (one file a
                 process; otherwise the servers' output is discarded)
"""
import glob, json, os, re, shutil, signal, statistics, subprocess, sys, time

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
    c.json = os.environ.get("VF_BENCH_JSON")
    if c.rounds < 1 or c.dur <= 0:
        sys.exit("ROUNDS >= 1 and DURATION > 0")
    c.probe = build_probe(c.build)
    return c


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
    if p.poll() is None:
        p.send_signal(sig)
        try:
            p.wait(timeout=t)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
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


def shell_rate(cfg, cmd, ours, bursts, prefix=None):
    """Runs a front-end (client) whose shell reads commands from stdin: waits
    LINKWAIT, sends `start tx_first BURSTS`, samples the port stats WARMUP
    and WARMUP+DURATION seconds later; returns port 0's rx Mpps between the
    two samples (0 if it did not run)."""
    show = "show port stats 0 json" if ours else "show port stats 0"
    if not ours:
        cmd = ["stdbuf", "-oL", *cmd]
    err = _log("client")
    if err is not subprocess.DEVNULL:
        err.write(" ".join(cmd) + "\n")
        err.flush()
    p = start(cmd, prefix, ours, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
              stderr=err, text=True)
    script = [(cfg.linkwait, ""), (0, f"start tx_first {bursts}"), (cfg.warmup, show),
              (cfg.dur, show), (0.5, "stop"), (0, "quit")]
    try:
        for w, line in script:
            time.sleep(w)
            if line:
                p.stdin.write(line + "\n")
                p.stdin.flush()
    except (BrokenPipeError, ValueError):	# it exited (refused the devargs, lost the peer)
        pass
    try:
        out = p.communicate(timeout=60)[0]
    except (BrokenPipeError, ValueError):
        out = p.stdout.read()
    except subprocess.TimeoutExpired:
        stop(p, signal.SIGKILL)
        out = ""
    stop(p)
    if err is not subprocess.DEVNULL:
        err.write(out)
        err.close()
    if ours:
        v = []
        for ln in out.splitlines():
            if ln.startswith("{") and '"rx_pps"' in ln:
                try:
                    v.append(json.loads(ln)["ports"][0]["rx_pps"])
                except (ValueError, KeyError, IndexError):
                    pass
    else:
        v = [float(x) for x in re.findall(r"Rx-pps:\s+(\d+)", out)]
    return v[-1] / 1e6 if len(v) >= 2 else 0.0


def probe(cfg, inflight):
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
    labels = labels or {p: p for p in pairs}
    res = {}	# (group, inflight, pair) -> [Mpps per round]; group None: probe
    n = 0
    t0 = time.time()
    print(f"{title}\n1 forwarding core per side, {cfg.dur:g} s per figure, "
          f"median of {cfg.rounds} interleaved rounds [min-max], "
          f"packets in flight {','.join(map(str, cfg.inflight))}", flush=True)
    try:
        for r in range(cfg.rounds):
            order = pairs[r % len(pairs):] + pairs[:r % len(pairs)]
            for inf in cfg.inflight:
                res.setdefault((None, inf, "limit"), []).append(probe(cfg, inf))
                for g in groups:
                    for p in order:
                        n += 1
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


def report(cfg, groups, pairs, ref, res, labels):
    w = max([len(labels[p]) for p in pairs] + [len("limit probe")])
    print(f"{'ring':<10} {'inflight':>8}  {'pairing':<{w}} {'Mpps':>8} {'[min-max]':>17} "
          f"{'/' + labels[ref]:>{max(8, len(labels[ref]) + 1)}} {'/limit':>7}")
    for g in groups:
        for inf in cfg.inflight:
            lim = statistics.median(res[(None, inf, "limit")])
            refm = statistics.median(res[(g, inf, ref)])
            for p in pairs:
                v = res[(g, inf, p)]
                m = statistics.median(v)
                rr = f"{m / refm:.2f}" if refm else "n/a"
                fl = f"{m / lim:.2f}" if lim else "n/a"
                rng = f"[{min(v):.3f}-{max(v):.3f}]"
                print(f"{g:<10} {inf:>8}  {labels[p]:<{w}} {m:>8.3f} {rng:>17} "
                      f"{rr:>{max(8, len(labels[ref]) + 1)}} {fl:>7}")
            v = res[(None, inf, "limit")]
            rng = f"[{min(v):.3f}-{max(v):.3f}]"
            print(f"{g:<10} {inf:>8}  {'limit probe':<{w}} {lim:>8.3f} {rng:>17} "
                  f"{'':>{max(8, len(labels[ref]) + 1)}} {1:>7.2f}", flush=True)
