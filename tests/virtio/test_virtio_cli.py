#!/usr/bin/env python3
"""virtio_user devargs and socket errors, without a backend (or, for
packed_vq=1, with one that lacks packed rings): each must fail cleanly with
a message that says why; a live server socket is never taken
over, a stale one is replaced."""
import os
import socket
import sys

from vio_peers import Vfwd, check, sock_path
import vftest


def vfwd_fail(spec, want_rc, want_msg):
    r = vftest.run([vftest.binary("vfwd"), "-l", "0-1", "--port", spec, "--duration", "1"],
                   timeout=60)
    check(r.returncode == want_rc, f"{spec}: exit {r.returncode}, want {want_rc}: {r.stderr}")
    check(want_msg in r.stderr, f"{spec}: stderr lacks {want_msg!r}: {r.stderr}")
    check("Sanitizer" not in r.stderr, f"{spec}: sanitizer report: {r.stderr}")


def main():
    sock = sock_path("vio-cli.sock")
    # packed_vq=1 against a back-end that does not offer packed rings: the
    # negotiation runs on the port's worker (a silent backend must not
    # hold the start), so the run goes on with the port down and says why
    from test_virtio_hostile import Backend
    psock = sock_path("vio-cli-nopacked.sock")
    Backend(psock, "none")
    vfwd_fail(f"virtio_user,path={psock},packed_vq=1", 0, "lacks VIRTIO_F_RING_PACKED")
    vfwd_fail(f"virtio_user,path={sock},queue_size=100", 2, "queue_size=100 is not a power of 2")
    vfwd_fail(f"virtio_user,path={sock},queue_size=65536", 2, "queue_size")
    vfwd_fail(f"virtio_user,path={sock},queues=9", 2, "queues")
    vfwd_fail("virtio_user", 2, "needs path=SOCKET")
    vfwd_fail(f"virtio_user,path={sock},bogus=1", 2,
              "accepted keys are path, queues, queue_size, mac, mrg_rxbuf, in_order, "
              "packed_vq, server")
    # client: nobody listens
    vfwd_fail(f"virtio_user,path={sock}", 1, "cannot connect to")

    # server: a stale socket file (no listener) is replaced ...
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(sock)
    s.close()
    check(os.path.exists(sock), "stale socket file not created")
    vf = Vfwd([f"virtio_user,path={sock},server=1"])
    vf.wait_port(lambda p: p["link"] == "down", "vfwd listening")
    # ... a live one is refused and left alone
    vfwd_fail(f"virtio_user,path={sock},server=1", 1, "in use by another listener")
    check(os.path.exists(sock), "live socket removed by the refused server")
    # a client that connects and says nothing, then leaves: no crash
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.connect(sock)
    c.close()
    vf.wait_port(lambda p: p["link"] == "down", "vfwd still up")
    st = vf.stop()
    check(st["ports"][0]["link"] == "down", "link up without a backend")
    check(not os.path.exists(sock), "server socket left behind")
    print("ok: virtio_user cli and socket errors")


if __name__ == "__main__":
    sys.exit(main())
