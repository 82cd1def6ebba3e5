"""--fwd replay through a device (issue 27 item 4): the frames come back as
they went, in order, counted and captured on the way in.

A capture made by our --capture (flowgen, IMIX, two VLAN IDs, 120 frames
at 600 pps: 0.2 s) and the same capture rewritten by editcap as classic
pcap (Wireshark's writer, when installed) are replayed --speed 2:
1. through memifctl (memif server, io: each frame back unchanged);
2. through vhostd (one --iface, io) over virtio_user.
Each time the receiving side's capture holds exactly the original frames,
byte for byte and in order; rx-pkts counts all 120; the frames came back
no earlier than the recorded timing allows (the span of the returned
frames at least the recorded span over --speed, minus the first frame's
own delay); the run ends by itself after --drain-ms."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import vftest  # noqa: E402
from vftest import binary, check, final_stats, read_pcapng, start, tmpdir, wait_for  # noqa: E402

D = tmpdir()
A_CORE = ["-l", "0-1", "--main-lcore", "0"]   # the device forwards on core 1
B_CORE = ["-l", "0-1", "--main-lcore", "1"]   # nullgen on core 0
N, PPS, SPEED = 120, 600, 2

orig_cap = os.path.join(D, "orig.pcapng")
r = vftest.run([binary("nullgen")] + B_CORE + ["--port", "null,no-rx=1", "--fwd", "flowgen", "--txpkts",
                                               "imix", "--flow-vlan", "5-6", "--count", str(N), "--rate",
                                               str(PPS), "--duration", "1", "--capture", f"0:tx:{orig_cap}"],
               timeout=60)
check(r.returncode == 0, f"capture: {r.stderr}")
orig = read_pcapng(orig_cap)
check(len(orig) == N, f"capture: {len(orig)} frames of {N}")
span = (orig[-1][0] - orig[0][0]) / 1e9
captures = [orig_cap]
if shutil.which("editcap"):
    classic = os.path.join(D, "orig.pcap")
    subprocess.run(["editcap", "-F", "pcap", orig_cap, classic], check=True)
    captures.append(classic)


def replay(port, label):
    for cap in captures:
        back = os.path.join(D, "back.pcapng")
        r = vftest.run([binary("nullgen")] + B_CORE + ["--port", port, "--fwd", "replay", "--pcap", cap,
                                                       "--speed", str(SPEED), "--loop", "1", "--capture",
                                                       f"0:rx:{back}", "--json"], timeout=60)
        what = f"{label} {os.path.basename(cap)}"
        check(r.returncode == 0, f"{what}: exit {r.returncode}: {r.stderr}")
        port0 = final_stats(r.stdout)["ports"][0]
        got = read_pcapng(back)
        check(port0["opackets"] == N and port0["ipackets"] == N, f"{what}: {port0}")
        check([f for _, f in got] == [f for _, f in orig],
              f"{what}: {len(got)} frames back; first differing at "
              f"{next((i for i, (a, b) in enumerate(zip(got, orig)) if a[1] != b[1]), len(got))}")
        back_span = (got[-1][0] - got[0][0]) / 1e9
        check(back_span >= span / SPEED - 0.1, f"{what}: back over {back_span:.3f} s, recorded {span:.3f} s")
        print(f"{what}: {N} frames back in order, over {back_span:.3f} s "
              f"(recorded {span:.3f} s, speed {SPEED})", flush=True)


sock = os.path.join(D, "m.sock")
srv = start([binary("memifctl"), "--role", "server", "--socket", sock, "--socket-abstract", "no", "--fwd",
             "io", "--duration", "600"] + A_CORE)
wait_for(lambda: os.path.exists(sock), what="memifctl listening")
replay(f"memif,role=client,socket={sock},socket-abstract=no", "memifctl")
srv.terminate()
srv.communicate(timeout=30)

vs = os.path.join(D, "vh.sock")
vh = start([binary("vhostd"), "--iface", vs, "--fwd", "io", "--duration", "600"] + A_CORE)
wait_for(lambda: os.path.exists(vs), what="vhostd socket")
replay(f"virtio_user,path={vs}", "vhostd")
vh.terminate()
vh.communicate(timeout=30)
print("ok")
