#!/bin/sh
# The 64-byte mac-forward loop over vhost-user, every pairing of front-end
# and back-end in one run:
#   dpdk<->dpdk  dpdk-testpmd virtio_user <-> dpdk-testpmd net_vhost (reference)
#   dpdk<->ours  dpdk-testpmd virtio_user <-> vhostd
#   ours<->dpdk  vfwd virtio_user         <-> dpdk-testpmd net_vhost
#   ours<->ours  vfwd virtio_user         <-> vhostd
# for each ring kind asked (split, split in-order, packed, packed in-order;
# mrg_rxbuf at its default, 1, on both front-ends).  One forwarding core per
# side: the back-end forwards on lcore 0, the front-end on lcore 1 (each
# process's main thread sleeps on the other core).  Three seconds after the
# front-end starts (the link is up), its shell sends one burst of 32 packets
# (start tx_first); both sides mac-forward them back and forth, and the rate
# is the front-end's rx packets per second between two `show port stats`
# DURATION seconds apart, the first two seconds after the start.  Rounds interleave the pairings, so a change
# in machine load hits all alike; the best round of each is printed (on a
# shared machine the best is the least disturbed), with the ratio to
# dpdk<->dpdk.
#
#   bench/vloop.sh [RINGS]     RINGS: comma list of split, split-io, packed,
#                              packed-io (default: all four)
#   env: DURATION (s, default 5), ROUNDS (default 3), VF_BUILD (default build)
set -eu
cd "$(dirname "$0")/.."
BUILD=${VF_BUILD:-build}
export VFWD="$BUILD/cmd/vfwd/vfwd" VHOSTD="$BUILD/cmd/vhostd/vhostd"
[ -x "$VFWD" ] && [ -x "$VHOSTD" ] || { echo "not built in $BUILD" >&2; exit 1; }
command -v dpdk-testpmd >/dev/null || { echo "dpdk-testpmd missing" >&2; exit 1; }
export RINGS="${1:-split,split-io,packed,packed-io}"
export DURATION="${DURATION:-5}" ROUNDS="${ROUNDS:-3}"

exec python3 - <<'EOF'
import json, os, re, shutil, signal, subprocess, tempfile, time

VFWD, VHOSTD = os.environ["VFWD"], os.environ["VHOSTD"]
DUR, ROUNDS = int(os.environ["DURATION"]), int(os.environ["ROUNDS"])
RINGS = {"split": "packed_vq=0,in_order=0", "split-io": "packed_vq=0,in_order=1",
         "packed": "packed_vq=1,in_order=0", "packed-io": "packed_vq=1,in_order=1"}
EAL = ["--no-huge", "-m", "1024", "--no-pci", "--log-level=*:error"]
BE_CORES = ["-l", "0-1", "--main-lcore", "1"]	# forwards on lcore 0
FE_CORES = ["-l", "0-1", "--main-lcore", "0"]	# forwards on lcore 1
PAIRS = ["dpdk<->dpdk", "dpdk<->ours", "ours<->dpdk", "ours<->ours"]
live = []


def stop(p, sig=signal.SIGINT, t=20):
    if p.poll() is None:
        p.send_signal(sig)
        try:
            p.wait(timeout=t)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def backend(kind, sock, tag):
    if kind == "ours":
        cmd = [VHOSTD, *BE_CORES, "--iface", sock, "--fwd", "mac"]
    else:
        cmd = ["dpdk-testpmd", *BE_CORES, *EAL, "--file-prefix", "vlb" + tag,
               "--vdev", f"net_vhost0,iface={sock}", "--", "--total-num-mbufs=16384",
               "--forward-mode=mac", "--stats-period", "100"]
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def frontend(kind, sock, args, tag):
    """Starts the front-end's shell, seeds the loop once the link had time to
    come up, and returns the rx Mpps over DUR seconds."""
    if kind == "ours":
        cmd = [VFWD, *FE_CORES, "--port", f"virtio_user,path={sock},{args}", "--fwd", "mac"]
        show = "show port stats 0 json"
    else:
        cmd = ["stdbuf", "-oL", "dpdk-testpmd", *FE_CORES, *EAL, "--file-prefix", "vlf" + tag,
               "--vdev", f"virtio_user0,path={sock},{args}", "--", "-i",
               "--total-num-mbufs=16384", "--forward-mode=mac"]
        show = "show port stats 0"
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    live.append(p)
    # Both tools read commands from the pipe; the replies are collected
    # when the pipe closes.  The link comes up within the first seconds.
    script = ["", "start tx_first", "", show, "", show, "stop", "quit"]
    waits = [3, 0, 2, 0, DUR, 1, 0, 0]
    try:
        for line, w in zip(script, waits):
            time.sleep(w)
            if line:
                p.stdin.write(line + "\n")
                p.stdin.flush()
    except BrokenPipeError:	# it exited (refused the devargs, lost the peer)
        pass
    try:
        out = p.communicate(timeout=60)[0]
    except (BrokenPipeError, ValueError):
        out = p.stdout.read()
    if kind == "ours":
        v = [json.loads(ln)["ports"][0]["rx_pps"] for ln in out.splitlines()
             if ln.startswith("{") and '"rx_pps"' in ln]
    else:
        v = [float(x) for x in re.findall(r"Rx-pps:\s+(\d+)", out)]
    return v[-1] / 1e6 if len(v) >= 2 else 0.0


def one(pair, args, n):
    fe_kind, be_kind = pair.split("<->")
    d = tempfile.mkdtemp(prefix="vloop-")
    sock = os.path.join(d, "vh.sock")
    tag = f"{os.getpid()}x{n}"
    be = backend(be_kind, sock, tag)
    live.append(be)
    try:
        end = time.time() + 30
        while not os.path.exists(sock) and time.time() < end and be.poll() is None:
            time.sleep(0.05)
        return frontend(fe_kind, sock, args, tag)
    finally:
        stop(be)
        shutil.rmtree(d, ignore_errors=True)


try:
    print(f"vhost-user 64 B mac loop, 1 core per side, {DUR} s, best of {ROUNDS}")
    print(f"{'ring':<11}" + "".join(f"{p:>13}" for p in PAIRS) + "   ratios to dpdk<->dpdk")
    n = 0
    for ring in os.environ["RINGS"].split(","):
        best = {p: 0.0 for p in PAIRS}
        for _ in range(ROUNDS):
            for p in PAIRS:
                n += 1
                best[p] = max(best[p], one(p, RINGS[ring], n))
        ref = best["dpdk<->dpdk"]
        ratios = " ".join(f"{best[p] / ref:.2f}" if ref else "n/a" for p in PAIRS[1:])
        print(f"{ring:<11}" + "".join(f"{best[p]:>13.3f}" for p in PAIRS) + "   " + ratios,
              flush=True)
finally:
    for p in live:
        stop(p, signal.SIGKILL, 5)
EOF
