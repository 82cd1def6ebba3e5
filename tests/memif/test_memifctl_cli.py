"""memifctl and memif devargs on the command line: bad values are exit 2
with one line naming the key and what is accepted; bash completion comes
from the binary's own tables."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
from bashcomp import complete as bash_complete  # noqa: E402
from vftest import binary, check, run  # noqa: E402

memifctl = binary("memifctl")
vfwd = binary("vfwd")


def bad(args, *words):
    r = run(args, timeout=30)
    check(r.returncode == 2, f"{args}: exit {r.returncode}, stderr {r.stderr!r}")
    line = r.stderr.strip().splitlines()[0]
    for w in words:
        check(w in line, f"{args}: {w!r} not in {line!r}")


bad([memifctl, "--role", "master"], "--role", "server", "client")
bad([memifctl, "--id", "4294967296"], "--id")
bad([memifctl, "--queues", "17"], "--queues")
bad([memifctl, "--socket", "a,b"], "--socket")
bad([vfwd, "--port", "memif,rsize=15"], "rsize")
bad([vfwd, "--port", "memif,bsize=0"], "bsize")
bad([vfwd, "--port", "memif,secret=" + "x" * 25], "secret")
bad([vfwd, "--port", "memif,bogus=1"], "bogus", "role", "socket-abstract", "zero-copy")
bad([vfwd, "--port", "memif,role=both"], "role")

# Two server ports with the same id on one socket: refused at probe.
r = run([vfwd, "--port", "memif,role=server,socket=@vft-dup", "--port",
         "memif,role=server,socket=@vft-dup", "--duration", "0.1"], timeout=60)
check(r.returncode != 0 and "already used" in r.stderr, f"duplicate id: {r.returncode} {r.stderr}")

# zero-copy=yes on a server: ignored with a clear message (as DPDK)
r = run([vfwd, "--port", "memif,role=server,socket=@vft-zc,zero-copy=yes", "--duration", "0.1"],
        timeout=60)
check(r.returncode == 0 and "ignored for role=server" in r.stderr, f"{r.stderr}")


def complete(line):
    return bash_complete("memifctl", line)


got = complete("memifctl --ro")
check(got == ["--role"], f"--ro -> {got}")
got = complete("memifctl --role ")
check(set(got) == {"server", "client"}, f"--role -> {got}")
got = complete("memifctl --socket-a")
check(got == ["--socket-abstract"], f"{got}")
got = complete("memifctl --port memif,zero")
check(got == ["memif,zero-copy="], f"{got}")
got = complete("memifctl --port memif,role=")
check(set(got) == {"memif,role=server", "memif,role=client", "memif,role=master",
                   "memif,role=slave"}, f"{got}")
print("ok")
