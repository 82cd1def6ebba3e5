"""Bash completion: source the installed script in a real bash, ask for
completions the way bash does, check the answers."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from bashcomp import complete  # noqa: E402
from vftest import check  # noqa: E402


got = complete("vfwd", "vfwd --f")
check(set(got) == {"--fwd", "--forward-mode", "--flows", "--flow-src", "--flow-dst", "--flow-sport",
                   "--flow-dport", "--flow-src-mac", "--flow-dst-mac", "--flow-vlan"}, f"vfwd --f -> {got}")
got = complete("nullgen", "nullgen --txpkts i")
check(got == ["imix"], f"--txpkts i -> {got}")
got = complete("vfwd", "vfwd --fwd m")
check(set(got) == {"mac", "macswap", "measure"}, f"--fwd m -> {got}")
got = complete("vfwd", "vfwd --port nu")
check("null" in got or "null," in got, f"--port nu -> {got}")
got = complete("vfwd", "vfwd --port null,")
check({"null,size=", "null,copy=", "null,no-rx="} <= set(got), f"--port null, -> {got}")
got = complete("vfwd", "vfwd --port null,copy=")
check(set(got) == {"null,copy=0", "null,copy=1"} or set(got) == {"0", "1"}, f"copy= -> {got}")
# the access keys and options come from the same tables (issue 16)
for drv in ("memif", "vhost", "virtio_user"):
    got = complete("vfwd", f"vfwd --port {drv},allow-")
    check(set(got) == {f"{drv},allow-uid=", f"{drv},allow-gid="}, f"{drv},allow- -> {got}")
    got = complete("vfwd", f"vfwd --port {drv},socket-")
    check({f"{drv},socket-mode=", f"{drv},socket-group="} <= set(got), f"{drv},socket- -> {got}")
for tool in ("vhostd", "memifctl"):
    got = complete(tool, f"{tool} --socket-")
    check({"--socket-mode", "--socket-group"} <= set(got), f"{tool} --socket- -> {got}")
    got = complete(tool, f"{tool} --allow-")
    check(set(got) == {"--allow-uid", "--allow-gid"}, f"{tool} --allow- -> {got}")
# the offload keys of both virtio drivers (issue 15)
for drv in ("vhost", "virtio_user"):
    got = complete("vfwd", f"vfwd --port {drv},guest_")
    check(set(got) == {f"{drv},guest_csum=", f"{drv},guest_tso4=", f"{drv},guest_tso6="},
          f"{drv},guest_ -> {got}")
    got = complete("vfwd", f"vfwd --port {drv},host_")
    check(set(got) == {f"{drv},host_tso4=", f"{drv},host_tso6="}, f"{drv},host_ -> {got}")
# the secret file (issue 31): an option and a key, completed as files
got = complete("memifctl", "memifctl --secret")
check(set(got) == {"--secret", "--secret-file"}, f"memifctl --secret -> {got}")
got = complete("memifctl", "memifctl --secret-file ")
files = complete("memifctl", "memifctl --socket ")
check(got and got == files, f"memifctl --secret-file FILE -> {got}, not the files {files}")
got = complete("vfwd", "vfwd --port memif,secret")
check(set(got) == {"memif,secret=", "memif,secret-file="}, f"memif,secret -> {got}")
got = complete("nullgen", "nullgen --ra")
check(got == ["--rate"], f"nullgen --ra -> {got}")
got = complete("nullgen", "nullgen --pa")
check(got == ["--pattern"], f"nullgen --pa -> {got}")
got = complete("nullgen", "nullgen --pattern ")
check(set(got) == {"constant", "burst:", "poisson"}, f"nullgen --pattern -> {got}")
got = complete("vfwd", "vfwd --pattern po")
check(got == ["poisson"], f"vfwd --pattern po -> {got}")
got = complete("nullgen", "nullgen --split ")
check(set(got) == {"none", "mac", "iface"}, f"nullgen --split -> {got}")
# the control socket (issue 29): an option of every tool, and the client's own
for tool in ("vfwd", "nullgen", "vhostd", "memifctl"):
    got = complete(tool, f"{tool} --ctl")
    check(set(got) == {"--ctl", "--ctl-mode", "--ctl-group"}, f"{tool} --ctl -> {got}")
got = complete("vfctl", "vfctl --", func="_vfctl")
check({"--socket", "--file", "--timeout", "--help", "--version"} == set(got), f"vfctl -- -> {got}")
print("ok")
