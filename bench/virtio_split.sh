#!/bin/sh
# 64-byte mac forwarding through a vhost-user loop, split rings (packed
# rings when VIO_RING=packed, as bench/virtio_packed.sh sets):
#   ours: vfwd virtio_user        <-> dpdk-testpmd net_vhost (mac)
#   dpdk: dpdk-testpmd virtio_user <-> dpdk-testpmd net_vhost (mac)
# for in_order=0 and in_order=1, one forwarding core each side (the
# back-end forwards on lcore 1, the front-end on lcore 0).  The back-end
# injects 4 bursts per stream and measures its own rx rate (testpmd's
# "Throughput since last show") over DURATION seconds; that rate is the loop
# rate, measured by the same tool for both front-ends.  Prints Mpps and
# ours/dpdk, and DPDK's PMD under vfwd's engine (dpdk: port) as a third
# column.  Rounds interleave the three; the best of each is kept.
#
#   bench/virtio_split.sh [BUILD_DIR]      env: DURATION (default 5), ROUNDS (1)
set -eu
BUILD=${1:-${VF_BUILD:-build}}
VFWD="$BUILD/cmd/vfwd/vfwd"
[ -x "$VFWD" ] || { echo "vfwd not built in $BUILD" >&2; exit 1; }
command -v dpdk-testpmd >/dev/null || { echo "dpdk-testpmd missing" >&2; exit 1; }
export VFWD DURATION="${DURATION:-5}" ROUNDS="${ROUNDS:-1}" VIO_RING="${VIO_RING:-split}"

exec python3 - <<'EOF'
import os, re, signal, subprocess, sys, tempfile, threading, time

VFWD = os.environ["VFWD"]
DUR = float(os.environ["DURATION"])
ROUNDS = int(os.environ["ROUNDS"])
RING = os.environ["VIO_RING"]
PACKED = ",packed_vq=1" if RING == "packed" else ""
TP = "dpdk-testpmd"
EAL = ["--no-huge", "-m", "1024", "--no-pci", "--log-level=*:error"]
procs = []


def cleanup():
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            p.wait()


class Reader:
    def __init__(self, f):
        self.buf, self.lock = [], threading.Lock()
        threading.Thread(target=self.run, args=(f.fileno(),), daemon=True).start()

    def run(self, fd):
        while True:
            b = os.read(fd, 65536)
            if not b:
                return
            with self.lock:
                self.buf.append(b.decode("utf-8", "replace"))

    def text(self):
        with self.lock:
            return "".join(self.buf)


def wait(cond, t, what):
    end = time.time() + t
    while time.time() < end:
        if cond():
            return
        time.sleep(0.1)
    raise SystemExit(f"timed out: {what}")


def one(kind, in_order):
    d = tempfile.mkdtemp(prefix="vfbench-")
    sock = os.path.join(d, "vh.sock")
    tag = f"{os.getpid()}{kind}{in_order}"
    be = subprocess.Popen(["stdbuf", "-oL", TP, "-l", "0,1", "--main-lcore", "0", *EAL,
                           "--file-prefix", "bvh" + tag, "--vdev", f"net_vhost0,iface={sock}",
                           "--", "-i", "--nb-cores=1", "--total-num-mbufs=16384",
                           "--forward-mode=mac"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    procs.append(be)
    out = Reader(be.stdout)
    wait(lambda: "testpmd>" in out.text(), 60, "back-end prompt")
    cmd = lambda s: (be.stdin.write(s + "\n"), be.stdin.flush())
    if kind in ("ours", "vfwd+dpdk"):
        spec = (f"virtio_user,path={sock}{PACKED},in_order={in_order}" if kind == "ours" else
                f"dpdk:virtio_user0,path={sock}{PACKED},in_order={in_order}")
        fe = subprocess.Popen([VFWD, "-l", "0-1", "--main-lcore", "1", "--fwd", "mac",
                               "--port", spec],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    else:
        fe = subprocess.Popen([TP, "-l", "0-1", "--main-lcore", "1", *EAL,
                               "--file-prefix", "bvu" + tag,
                               "--vdev", f"virtio_user0,path={sock}{PACKED},in_order={in_order}",
                               "--", "--nb-cores=1", "--total-num-mbufs=16384",
                               "--forward-mode=mac", "--stats-period", "1000"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    procs.append(fe)
    try:
        wait(lambda: "link state change" in out.text() or fe.poll() is not None, 60, "link up")
    except SystemExit:
        fe.kill()
        raise SystemExit(f"{kind}: no link: back-end said {out.text()[-1500:]}\n"
                         f"front-end said {fe.stderr.read()[-1500:]}")
    if fe.poll() is not None:
        raise SystemExit(f"{kind} front-end exited ({fe.returncode}): {fe.stderr.read()[-2000:]}")
    # DPDK's virtio_user posts its rx buffers only after the device is
    # running: give either front-end time to be ready before injecting.
    time.sleep(3)
    cmd("start tx_first 4")
    time.sleep(2)
    cmd("show port stats 0")
    time.sleep(DUR)
    mark = len(out.text())
    cmd("show port stats 0")
    wait(lambda: "Tx-pps" in out.text()[mark:], 30, "stats")
    m = re.search(r"Rx-pps:\s*(\d+)", out.text()[mark:])
    fe.send_signal(signal.SIGTERM)
    try:
        fe.wait(timeout=20)
    except subprocess.TimeoutExpired:
        fe.kill()
    cmd("stop")
    cmd("quit")
    try:
        be.wait(timeout=20)
    except subprocess.TimeoutExpired:
        be.kill()
    subprocess.run(["rm", "-rf", d])
    return int(m.group(1)) / 1e6


try:
    print(f"virtio {RING} ring, 64 B mac fwd loop with DPDK net_vhost, "
          f"1 core each side, {DUR:g} s x {ROUNDS}")
    # "vfwd+dpdk": DPDK's virtio_user PMD under vfwd's engine (dpdk: port),
    # to tell the driver's share from the engine's.
    print(f"{'mode':<16}{'ours Mpps':>10}{'dpdk Mpps':>10}{'ratio':>8}{'vfwd+dpdk':>11}")
    for io in (0, 1):
        # Rounds interleave the three so a change in machine load hits all
        # alike; the best of each is reported (the least disturbed run).
        res = {"ours": [], "dpdk": [], "vfwd+dpdk": []}
        for _ in range(ROUNDS):
            for kind in res:
                res[kind].append(one(kind, io))
        ours, dpdk, mix = (max(res[k]) for k in ("ours", "dpdk", "vfwd+dpdk"))
        name = f"{RING} in-order" if io else RING
        print(f"{name:<16}{ours:>10.3f}{dpdk:>10.3f}{ours / dpdk if dpdk else 0:>8.2f}"
              f"{mix:>11.3f}", flush=True)
finally:
    cleanup()
EOF
