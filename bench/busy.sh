#!/bin/sh
# Which side of a loop is the bottleneck.  Runs one pairing of the 64-byte
# mac loop (bench/memif.sh's or bench/vloop.sh's setup, one forwarding core
# per side) and reads, from both sides after a clear, what each core did:
#   ours:    `show fwd stats all` with --record-core-cycles: the share of
#            polling time that moved packets (busy) and busy TSC cycles per
#            packet, and the rx burst-size histogram;
#   testpmd: `set record-burst-stats on` and `set record-core-cycles on`:
#            the rx burst histogram and its CPU cycles per packet (22.11
#            counts all of the core's cycles there, idle polls included).
# A side that is near 100 % busy, with full bursts, is what the other side
# waits for; a mixed pairing cannot run faster than its busy side, whatever
# the idle side saves.
#
#   bench/busy.sh memif SERVER<->CLIENT [INFLIGHT]
#   bench/busy.sh vhost FRONTEND<->BACKEND [INFLIGHT]     (RING env: split,
#                                     split-io, packed, packed-io; default packed-io)
#   SERVER, CLIENT, FRONTEND, BACKEND: ours or dpdk.  INFLIGHT default 256.
#   env: SECONDS_ (window, default 5), VF_BUILD (build)
# It takes /tmp/vf-poll.lock like the other loop benchmarks and removes the
# runtime folders of the testpmd instances it starts.
set -eu
cd "$(dirname "$0")/.."
. bench/poll_lock.sh
vf_poll_lock "$@"
[ $# -ge 2 ] || { sed -n '2,22p' "$0" >&2; exit 2; }

PYTHONPATH="$(pwd)/bench${PYTHONPATH:+:$PYTHONPATH}" exec python3 - "$@" <<'PY'
import os, re, subprocess, sys, tempfile, threading, time
import loopbench as lb

kind, pair = sys.argv[1], sys.argv[2]
inflight = int(sys.argv[3]) if len(sys.argv) > 3 else 256
secs = float(os.environ.get("SECONDS_", "5"))
B = os.environ.get("VF_BUILD", "build")
RINGS = {"split": "packed_vq=0,in_order=0", "split-io": "packed_vq=0,in_order=1",
         "packed": "packed_vq=1,in_order=0", "packed-io": "packed_vq=1,in_order=1"}
if kind not in ("memif", "vhost") or pair.count("<->") != 1 or \
        any(s not in ("ours", "dpdk") for s in pair.split("<->")):
    sys.exit("usage: bench/busy.sh memif|vhost ours|dpdk<->ours|dpdk [INFLIGHT]")
ring = RINGS[os.environ.get("RING", "packed-io")]
tag = str(os.getpid())
EAL = ["--no-huge", "-m", "1024", "--no-pci", "--log-level=*:error"]


def proc(name, cmd, ours, prefix=None):
    p = lb.start(["stdbuf", "-oL", *cmd], prefix, ours, stdin=subprocess.PIPE,
                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    p.name, p.ours, p.out = name, ours, []
    threading.Thread(target=lambda: [p.out.append(ln) for ln in p.stdout], daemon=True).start()
    return p


def send(p, line):
    p.stdin.write(line + "\n")
    p.stdin.flush()


def ours_cmd(tool, cores, args):
    return [f"{B}/cmd/{tool}/{tool}", *cores, *args, "--fwd", "mac", "--record-core-cycles"]


def dpdk_cmd(cores, vdev, prefix):
    return ["dpdk-testpmd", *cores, *EAL, "--file-prefix", prefix, "--vdev", vdev, "--", "-i",
            "--total-num-mbufs=16384", "--forward-mode=mac"]


d = tempfile.mkdtemp(prefix="busy-")
if kind == "memif":
    srv_kind, cl_kind = pair.split("<->")
    S, C = ["-l", "0-1", "--main-lcore", "0"], ["-l", "0-1", "--main-lcore", "1"]
    sock = "vfbusy-" + tag
    first = proc("server " + srv_kind,
                 ours_cmd("memifctl", S, ["--role", "server", "--socket", sock]) if srv_kind == "ours"
                 else dpdk_cmd(S, f"net_memif0,role=server,socket={sock}", "bys" + tag),
                 srv_kind == "ours", None if srv_kind == "ours" else "bys" + tag)
    second_spec = (cl_kind, ours_cmd("memifctl", C, ["--role", "client", "--socket", sock]) if cl_kind == "ours"
                   else dpdk_cmd(C, f"net_memif0,role=client,socket={sock}", "byc" + tag), "client")
else:
    fe_kind, be_kind = pair.split("<->")
    BE, FE = ["-l", "0-1", "--main-lcore", "1"], ["-l", "0-1", "--main-lcore", "0"]
    sock = os.path.join(d, "vh.sock")
    first = proc("back-end " + be_kind,
                 ours_cmd("vhostd", BE, ["--iface", sock]) if be_kind == "ours"
                 else dpdk_cmd(BE, f"net_vhost0,iface={sock}", "bys" + tag),
                 be_kind == "ours", None if be_kind == "ours" else "bys" + tag)
    second_spec = (fe_kind, ours_cmd("vfwd", FE, ["--port", f"virtio_user,path={sock},{ring}"]) if fe_kind == "ours"
                   else dpdk_cmd(FE, f"virtio_user0,path={sock},{ring}", "byc" + tag), "front-end")
try:
    for p in (first,):
        if not p.ours:
            send(p, "set record-burst-stats on")
            send(p, "set record-core-cycles on")
        send(p, "start")
    time.sleep(2)
    k, cmd, role = second_spec
    second = proc(f"{role} {k}", cmd, k == "ours", None if k == "ours" else "byc" + tag)
    if not second.ours:
        send(second, "set record-burst-stats on")
        send(second, "set record-core-cycles on")
    time.sleep(3)
    send(second, f"start tx_first {max(1, inflight // 32)}")
    time.sleep(3)
    for p in (first, second):
        send(p, "clear fwd stats all")
    time.sleep(secs)
    marks = {}
    for p in (first, second):
        marks[p] = len(p.out)
        send(p, "show fwd stats all")
    time.sleep(1.5)
    print(f"{kind} {pair}, {inflight} in flight{'' if kind == 'memif' else ', ' + ring}, {secs:g} s window")
    for p in (first, second):
        text = "".join(p.out[marks[p]:])
        keep = [ln.strip() for ln in text.splitlines()
                if re.search(r"cycles|RX-bursts|rx bursts|RX-packets", ln)]
        print(f"  {p.name}:")
        for ln in keep[:6]:
            print(f"    {ln[:150]}")
finally:
    for p in list(lb.live):
        try:
            send(p, "stop")
            send(p, "quit")
        except (OSError, ValueError):
            pass
    time.sleep(1)
    for p in list(lb.live):
        lb.stop(p)
    lb.cleanup_dirs()
    subprocess.run(["rm", "-rf", d])
PY
