"""vhostd's bash completion in a real bash: its own options, the common
ones, and the vhost driver's devargs keys."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
from bashcomp import complete as bash_complete  # noqa: E402
from vftest import fail  # noqa: E402


def complete(line):
    return bash_complete("vhostd", line)


got = complete("vhostd --if")
if got != ["--iface"]:
    fail(f"--if -> {got}")
got = complete("vhostd --cl")
if got != ["--client"]:
    fail(f"--cl -> {got}")
got = complete("vhostd --qu")
if got != ["--queues"]:
    fail(f"--qu -> {got}")
got = complete("vhostd --fwd ma")
if set(got) != {"mac", "macswap"}:
    fail(f"--fwd ma -> {got}")
got = complete("vhostd --port vhost,")
if set(got) != {"vhost,iface=", "vhost,queues=", "vhost,client=", "vhost,reconnect-ms=", "vhost,socket-mode=",
                "vhost,socket-group=", "vhost,allow-uid=", "vhost,allow-gid=",
                "vhost,csum=", "vhost,guest_csum=", "vhost,tso=", "vhost,host_tso4=",
                "vhost,host_tso6=", "vhost,guest_tso4=", "vhost,guest_tso6=", "vhost,rx-mode="}:
    fail(f"--port vhost, -> {got}")
got = complete("vhostd --port vhost,rx-mode=")
if set(got) not in ({"vhost,rx-mode=poll", "vhost,rx-mode=interrupt", "vhost,rx-mode=adaptive"},
                    {"poll", "interrupt", "adaptive"}):
    fail(f"rx-mode= -> {got}")
got = complete("vhostd --rx-mode ")
if set(got) != {"poll", "interrupt", "adaptive"}:
    fail(f"--rx-mode -> {got}")
got = complete("vhostd --port vhost,client=")
if set(got) not in ({"vhost,client=0", "vhost,client=1"}, {"0", "1"}):
    fail(f"client= -> {got}")
got = complete("vhostd --port vhost,host_tso4=")
if set(got) not in ({"vhost,host_tso4=0", "vhost,host_tso4=1"}, {"0", "1"}):
    fail(f"host_tso4= -> {got}")
print("ok")
