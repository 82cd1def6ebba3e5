#!/usr/bin/env python3
"""A vhost-user back-end that shrinks the memory virtio_user hands it
(hardening.md F11): our memory table's fds are the sealed peer heap
(lib/core/vf_mem.h), so ftruncate on each of them fails with EPERM, and the
port keeps forwarding, byte for byte.  Before the peer heap the table held
DPDK's own heap memfd, which is not sealed: the truncate succeeded and
vfwd's next touch of its mbuf pool died of SIGBUS.

The back-end is test_virtio_hostile's Python device; vfwd runs io mode and
sends back what it receives."""
import errno
import os

from test_virtio_hostile import TX_HDR, Backend, frame
from vio_peers import Vfwd, check, sock_path, wait_for

sock = sock_path("vio-truncate.sock")
be = Backend(sock, "truncate")
vf = Vfwd([f"virtio_user,path={sock}"])
wait_for(be.running.is_set, timeout=60, what="DRIVER_OK from vfwd")
vf.wait_link(True)
check(len(be.mem_fds) >= 1, "no memory table fds")
for fd in be.mem_fds:
    for size in (0, os.fstat(fd).st_size // 2):
        try:
            os.ftruncate(fd, size)
            check(False, f"our memory could be truncated to {size} bytes")
        except OSError as e:
            check(e.errno == errno.EPERM, f"ftruncate({size}): {e}")
# the port still works: packets both ways, exact bytes
for k in range(8):
    be.rx_packet(k, frame(k))
vf.wait_port(lambda p: p["ipackets"] == 8 and p["opackets"] == 8, "8 packets forwarded")
for k in range(8):
    got = []
    wait_for(lambda: got.append(be.tx_packet(k)) or got[-1] is not None, what=f"tx packet {k}")
    check(got[-1] == TX_HDR + frame(k), f"packet {k} differs: {got[-1]!r}")
check(vf.p.poll() is None, "vfwd died")
st = vf.stop()
check(st["ports"][0]["ipackets"] == 8, f"{st}")
for fd in be.mem_fds:
    os.close(fd)
print("ok: the back-end cannot shrink virtio_user's memory")
