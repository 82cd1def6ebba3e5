#!/usr/bin/env python3
"""Two QEMU guests exchange TCP through our vhost back-end, with checksum
and TSO offloads on, off, or on one side only; the bytes are checked
(md5 on both ends) and the throughput is printed.

Guests as in test_qemu_ping.py (TCG, Debian cloud kernel, busybox
initramfs); the sender writes random data with busybox nc, the receiver
sums what it got.  Cases (argv[1]):

  on     both guests with QEMU's default offloads, vhostd tso=1: TSO frames
         pass from one guest to the other as they are
  off    both devices csum=off,guest_csum=off,host_tso4/6=off,guest_tso4/6=off
  mixed  the sender with offloads, the receiver without: vhostd cuts the
         sender's TSO frames and fills their checksums in software
  vu     sender -> vfwd (vhost port -> virtio_user port) -> vhostd ->
         receiver, virtio_user asking for all offloads: the TSO frames go
         through our front-end's headers both ways
  vu_rev as vu with the sender on vhostd's side: the TSO frames reach
         vfwd's virtio_user as GSO headers (its receive path)
  vu_sw  the same with a virtio_user that asks for none: vfwd's
         virtio_user port segments in software

The receiving guest's kernel checks every TCP checksum, so a bad one from
our software path shows as a stalled or short transfer.  Offload counters
come from the Prometheus files (xstats).  Exit 77 when QEMU, busybox or the
kernel are not installed."""
import os
import re
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vhtest as vt  # noqa: E402
import qemu_guest as qg  # noqa: E402

MB = int(os.environ.get("VF_TCP_MB", "8"))
OFF = "csum=off,guest_csum=off,host_tso4=off,host_tso6=off,guest_tso4=off,guest_tso6=off"
VFWD = os.path.join(vt.BUILD, "cmd", "vfwd", "vfwd")
VU_OL = ",csum=1,guest_csum=1,host_tso4=1,host_tso6=1,guest_tso4=1,guest_tso6=1"

# after qemu_guest.HEAD: /dev/urandom for the data
DEVS = "mount -t devtmpfs dev /dev\n"
RECV = """nc -l -p 5001 > /tmp/recv
echo "RECV_BYTES $(wc -c < /tmp/recv)"
echo "RECV_MD5 $(md5sum < /tmp/recv)"
poweroff -f
"""
SEND = """dd if=/dev/urandom of=/tmp/data bs=65536 count=%(blocks)d 2>/dev/null
echo "SEND_MD5 $(md5sum < /tmp/data)"
until ping -c 1 -W 1 10.0.0.1 > /dev/null; do sleep 1; done
sleep 2
n=0
while [ $n -lt 20 ]; do
  t0=$(cut -d ' ' -f 1 /proc/uptime)
  if nc 10.0.0.1 5001 < /tmp/data; then
    t1=$(cut -d ' ' -f 1 /proc/uptime)
    echo "SEND_TIME $t0 $t1"
    break
  fi
  n=$((n + 1))
  sleep 1
done
echo "SEND_DONE"
sleep 3
poweroff -f
"""


def initrd(d, name, ip, body, kernel_moddir):
    text = qg.HEAD % {"mods": qg.module_names(), "ip": ip} + DEVS + body
    return qg.initrd(os.path.join(d, name + ".cpio"), kernel_moddir, text)


def guest(kernel, rd, sock, mac, props, name):
    return qg.qemu(kernel, rd, sock, name, mac=mac, props=props)


def xstats(path):
    """{(port, name): value} from a Prometheus file of ours."""
    out = {}
    try:
        text = open(path).read()
    except OSError:
        return out
    for m in re.finditer(r'^vf_port_xstat_total\{[^}]*port="(\d+)"[^}]*xstat="([^"]+)"\} (\d+)$',
                         text, re.M):
        out[(int(m.group(1)), m.group(2))] = int(m.group(3))
    return out


def total(xs, port, suffix):
    return sum(v for (p, n), v in xs.items() if p == port and n.endswith(suffix))


def main():
    case = sys.argv[1] if len(sys.argv) > 1 else "on"
    if case not in ("on", "off", "mixed", "vu", "vu_rev", "vu_sw"):
        vt.fail("unknown case " + case)
    kernel, moddir = qg.kernel_and_modules()

    d = vt.tmpdir()
    procs = []
    try:
        rd_recv = initrd(d, "recv", "10.0.0.1", RECV, moddir)
        rd_send = initrd(d, "send", "10.0.0.2", SEND % {"blocks": MB * 16}, moddir)
        a, b, x = (os.path.join(d, s) for s in ("a.sock", "b.sock", "x.sock"))
        prom_vh, prom_vf = os.path.join(d, "vh.prom"), os.path.join(d, "vf.prom")
        vu = case.startswith("vu")
        # vhostd: port 0 the receiver, port 1 the sender (or vfwd's virtio_user)
        vh = vt.Vhostd(["-l", "0-1", "--main-lcore", "0", "--fwd", "io",
                        "--total-num-mbufs", "16384", "--prom-file", prom_vh,
                        "--port", "vhost,iface=%s,tso=1" % a,
                        "--port", "vhost,iface=%s,tso=1" % (x if vu else b)])
        procs.append(vh)
        vt.wait_for(lambda: (os.path.exists(a) and os.path.exists(x if vu else b)) or
                    not vh.alive(), "the vhostd sockets")
        vf = None
        if vu:
            # vfwd: port 0 virtio_user to vhostd, port 1 vhost for the sender
            vf = vt.Proc([VFWD, "-l", "0-1", "--main-lcore", "1", "--fwd", "io",
                          "--total-num-mbufs", "16384", "--prom-file", prom_vf,
                          "--stats-period", "1", "--json",
                          "--port", "virtio_user,path=%s%s" % (x, "" if case == "vu_sw" else VU_OL),
                          "--port", "vhost,iface=%s,tso=1" % b], name="vfwd")
            procs.append(vf)
            vt.wait_for(lambda: os.path.exists(b) or not vf.alive(), "the vfwd socket")
        props_send = OFF if case == "off" else ""
        props_recv = OFF if case in ("off", "mixed") else ""
        rev = case == "vu_rev"
        recv = guest(kernel, rd_recv, b if rev else a, "52:54:00:00:00:01", props_recv, "recv")
        procs.append(recv)
        send = guest(kernel, rd_send, a if rev else b, "52:54:00:00:00:02", props_send, "send")
        procs.append(send)
        res = vt.wait_for(lambda: re.search(r"RECV_MD5 ([0-9a-f]{32})", recv.stdout()) or
                          (not recv.alive() and "qemu exited"), "the transfer", timeout=240,
                          step=0.5, must=False)
        if res in (None, "qemu exited"):
            for p in procs:
                p.dump()
            vt.fail("the transfer did not end")
        vt.wait_for(lambda: "SEND_DONE" in send.stdout() or not send.alive(), "the sender")
        sent = re.search(r"SEND_MD5 ([0-9a-f]{32})", send.stdout())
        nbytes = re.search(r"RECV_BYTES (\d+)", recv.stdout())
        tm = re.search(r"SEND_TIME ([\d.]+) ([\d.]+)", send.stdout())
        vt.expect_eq("bytes received", nbytes and int(nbytes.group(1)), MB << 20, procs)
        vt.expect_eq("md5 of the data", res.group(1), sent and sent.group(1), procs)
        if tm:
            dt = max(float(tm.group(2)) - float(tm.group(1)), 0.01)
            print("THROUGHPUT %s: %d MiB in %.2f s = %.1f Mbit/s (TCG guests)" %
                  (case, MB, dt, (MB << 20) * 8 / dt / 1e6), flush=True)
        time.sleep(1.5)		# one more stats period for the prom files
        xv = xstats(prom_vh)
        xf = xstats(prom_vf) if vu else {}
        for p in procs[len(procs) - 2:]:
            p.stop()
        doc = vh.finish()
        if vf:
            vf.stop()
        for name, xs in (("vhostd", xv), ("vfwd", xf)):
            bad = {k: v for k, v in xs.items() if "hdr_" in k[1] and "_hdr_ok" not in k[1] and v}
            vt.expect_eq("%s: headers refused" % name, bad, {}, procs)
        tso_in = total(xv, 1, "rx_q0_ol_tso")
        sw_tso = total(xv, 0, "tx_q0_sw_tso")
        print("vhostd: TSO frames in from port 1: %d, cut in software for port 0: %d" %
              (tso_in, sw_tso), flush=True)
        if case == "on":
            if tso_in == 0:
                vt.fail("no TSO frame came from the sending guest")
            vt.expect_eq("frames cut in software", sw_tso, 0, procs)
        elif case == "off":
            vt.expect_eq("TSO frames", tso_in, 0, procs)
            vt.expect_eq("checksum requests", total(xv, 1, "rx_q0_ol_csum"), 0, procs)
        elif case == "mixed":
            if tso_in == 0 or sw_tso == 0:
                vt.fail("expected TSO frames in and cut in software, got %d and %d" %
                        (tso_in, sw_tso))
        elif case == "vu_rev":
            # guest -> vhostd port 0 -> (GSO header) -> virtio_user -> guest
            vu_tso_in = xf.get((0, "rx_ol_tso"), 0)
            print("vfwd: TSO frames virtio_user took from vhostd: %d" % vu_tso_in, flush=True)
            if vu_tso_in == 0:
                vt.fail("virtio_user received no TSO frame")
            vt.expect_eq("vhostd software TSO", total(xv, 1, "tx_q0_sw_tso"), 0, procs)
            vt.expect_eq("vfwd software TSO", total(xf, 1, "tx_q0_sw_tso"), 0, procs)
        else:
            vf_tso_in = total(xf, 1, "rx_q0_ol_tso")
            vf_sw = xf.get((0, "tx_sw_tso"), 0)
            print("vfwd: TSO frames in from the sender: %d, cut in software by virtio_user: %d" %
                  (vf_tso_in, vf_sw), flush=True)
            if vf_tso_in == 0:
                vt.fail("no TSO frame came from the sending guest")
            if case == "vu":
                # virtio_user passed them on as TSO (HOST_TSO4 to vhostd)
                vt.expect_eq("virtio_user software TSO", vf_sw, 0, procs)
                if tso_in == 0:
                    vt.fail("vhostd got no TSO frame from virtio_user")
            else:
                if vf_sw == 0:
                    vt.fail("virtio_user did not segment in software")
                vt.expect_eq("TSO frames into vhostd", tso_in, 0, procs)
        p1 = vh.port(doc, 1)
        print("vhostd port 1: in %d, out %d" % (p1["ipackets"], p1["opackets"]), flush=True)
    finally:
        for p in procs:
            p.stop()
        shutil.rmtree(d, ignore_errors=True)
    print("PASS", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
