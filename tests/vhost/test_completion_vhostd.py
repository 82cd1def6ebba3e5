"""vhostd's bash completion in a real bash: its own options, the common
ones, and the vhost driver's devargs keys."""
import os
import shutil
import subprocess
import sys

BUILD = os.environ.get("VF_BUILD", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
SOURCE = os.environ.get("VF_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))
BC = "/usr/share/bash-completion/bash_completion"


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def complete(line):
    script = f"""
[ -r {BC} ] && . {BC}
. {SOURCE}/completions/vhostd
export PATH={BUILD}/cmd/vhostd:$PATH
COMP_LINE={line!r}
COMP_POINT=${{#COMP_LINE}}
eval "COMP_WORDS=($COMP_LINE)"
[[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
_vf_complete
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    r = subprocess.run([shutil.which("bash"), "-c", script], capture_output=True, text=True,
                       timeout=30)
    if r.returncode != 0:
        fail("bash failed: " + r.stderr)
    return [x for x in r.stdout.splitlines() if x]


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
