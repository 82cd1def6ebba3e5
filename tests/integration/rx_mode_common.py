"""The head of the rx mode tests (memif, vhost-user ours on both sides, and
against DPDK's peers): nullgen measuring through the reflector under test,
the stream counters of the tool under test, and the CPU a process used
over a while (an idle core that sleeps uses far less than one that polls;
compared within one run, never against a fixed figure)."""
import json
import os
import time

import vftest
from vftest import check

NG = [vftest.binary("nullgen"), "-l", "0-1", "--main-lcore", "1", "--json"]


def measure(port, args, extra=(), timeout=60):
    """nullgen's measure stream over `port`; `extra` goes before `args`
    (the callers' drain and warm-up)."""
    r = vftest.run(NG + ["--port", port, "--fwd", "measure"] + list(extra) + args,
                   timeout=timeout)
    objs = [json.loads(ln) for ln in r.stdout.splitlines() if ln.startswith("{")]
    check(r.returncode == 0 and objs, f"nullgen {args}: exit {r.returncode}\n{r.stderr[-2000:]}")
    return objs[-1]["measure"]["streams"][0]


def stream_json(tool):
    return tool.query("show fwd stats all json")["streams"][0]


def cpu_s(pid):
    """User and system CPU seconds of process pid."""
    with open(f"/proc/{pid}/stat") as f:
        v = f.read().rsplit(")", 1)[1].split()
    return (int(v[11]) + int(v[12])) / os.sysconf("SC_CLK_TCK")


def cpu_over(procs, sec=2.0):
    """CPU seconds each of procs used over the next sec seconds."""
    a = [cpu_s(p.pid()) for p in procs]
    time.sleep(sec)
    return [cpu_s(p.pid()) - x for p, x in zip(procs, a)]
