"""Every shell command driven through a piped stdin: stdout holds only the
commands' output, each JSON line parses, values follow the commands."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
from vftest import binary, check, run  # noqa: E402

vfwd = binary("vfwd")


class Shell:
    def __init__(self, args):
        self.p = subprocess.Popen([vfwd] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, bufsize=1)

    def cmd(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def json(self, line):
        """Run a command with a trailing json; return the parsed object."""
        self.cmd(line + " json")
        out = self.p.stdout.readline()
        try:
            return json.loads(out)
        except ValueError:
            check(False, f"'{line} json' printed non-JSON {out!r}")

    def text_until(self, marker):
        """Read text output up to and including the line holding marker."""
        lines = []
        while True:
            ln = self.p.stdout.readline()
            check(ln != "", f"EOF before {marker!r}: {lines}")
            lines.append(ln)
            if marker in ln:
                return lines

    def close(self):
        self.cmd("quit")
        out, err = self.p.communicate(timeout=30)
        return self.p.returncode, out, err


sh = Shell(["--port", "null", "--port", "null"])
info = sh.json("show port info all")
check([p["id"] for p in info["ports"]] == [0, 1], f"info {info}")
check(info["ports"][0]["driver"] == "null" and info["ports"][0]["state"] == "started", f"{info}")
check(info["ports"][0]["driver_info"]["size"] == 64, "driver info")
st = sh.json("show port stats all")
check(all(p["ipackets"] == 0 for p in st["ports"]), "not forwarding before start")
sh.cmd("set fwd macswap")
sh.cmd("set burst 16")
sh.cmd("set txpkts 128")
sh.cmd("set eth-peer 1 02:aa:bb:cc:dd:ee")
sh.cmd("set nbcore 1")
sh.cmd("set rate 0")
cfg = sh.json("show config rxtx")
check(cfg["burst"] == 16 and cfg["txpkts"] == "128" and cfg["rxq"] == 1, f"rxtx {cfg}")
sh.cmd("set txpkts imix")
cfg = sh.json("show config rxtx")
check(cfg["txpkts"] == "imix" and abs(cfg["frame_mean"] - 4246 / 12) < 1e-6, f"rxtx {cfg}")
sh.cmd("set txpkts 128")
sh.cmd("start")
time.sleep(0.5)
fc = sh.json("show config fwd")
check(fc["mode"] == "macswap" and fc["running"] is True and len(fc["streams"]) == 2, f"fwd cfg {fc}")
st = sh.json("show port stats 0")
check(len(st["ports"]) == 1 and st["ports"][0]["ipackets"] > 0, f"stats {st}")
time.sleep(0.3)
st2 = sh.json("show port stats 0")
check(st2["ports"][0]["rx_pps"] > 0 and st2["ports"][0]["ipackets"] > st["ports"][0]["ipackets"], "rates")
fs = sh.json("show fwd stats all")
check(fs["running"] is True and fs["total"]["rx"] > 0 and set(fs["streams"][0]["rx_bursts"]) <= {str(i) for i in range(17)},
      f"burst 16 histogram {fs['streams'][0]['rx_bursts']}")
xs = sh.json("show port xstats all")
check(xs["ports"][0]["xstats"]["rx_q0_packets"] > 0, f"xstats {xs}")
sh.cmd("clear fwd stats all")
sh.cmd("clear port stats all")
sh.cmd("stop")                       # prints forward stats (text)
txt = sh.text_until("total:")
check(txt[0].startswith("Forward statistics (macswap mode"), f"stop output {txt[:2]}")
# text for people: one table row per stream, under one heading
check(txt[1].split()[:3] == ["stream", "rx-port", "rxq"], f"stream table heading {txt[1]!r}")
rows = [ln.split() for ln in txt if ln.split() and ln.split()[0].isdigit()]
check(len(rows) == 2 and [r[0] for r in rows] == ["0", "1"], f"stream rows {txt}")
check(txt[-1].startswith("total: rx ") and "dropped" in txt[-1], f"total line {txt[-1]!r}")
st = sh.json("show port stats all")
check(all(p["ipackets"] < 10_000_000 for p in st["ports"]), "cleared")
fs = sh.json("show fwd stats all")
check(fs["running"] is False, "stopped")
sh.cmd("port stop 1")
info = sh.json("show port info 1")
check(info["ports"][0]["state"] == "stopped" and info["ports"][0]["link"] == "down", f"{info}")
sh.cmd("port start all")
sh.cmd("port attach null,size=200")
check(sh.text_until("name")[0].startswith("Port 2 attached"), "attach output")
info = sh.json("show port info all")
check(len(info["ports"]) == 3 and info["ports"][2]["driver_info"]["size"] == 200, f"attach {info}")
sh.cmd("start tx_first 2")
time.sleep(0.3)
fc = sh.json("show config fwd")
check(len(fc["streams"]) == 3, f"3 ports, 3 streams: {fc}")
sh.cmd("stop")
sh.text_until("total:")
sh.cmd("port detach 2")
info = sh.json("show port info all")
check(len(info["ports"]) == 2, "detached")
hp = sh.json("help")
check(len(hp["commands"]) >= 24, f"help lists {len(hp['commands'])}")
ring = sh.cmd("show port ring 0")     # null has no rings: an error on stderr
sh.cmd("no such command")
sh.cmd("set burst 0")
sh.cmd("show port stats 9")
sh.cmd("set fwd nosuch")
sh.cmd("show port stats")
rc, out, err = sh.close()
check(rc == 0, f"exit {rc}")
for needle in ["unknown command 'no such command'", "burst: expected 1..512", "no port '9'",
               "bad argument 'nosuch'", "wrong number of arguments", "no ring state"]:
    check(needle in err, f"stderr lacks {needle!r}: {err}")
# stdout: the text outputs (stop's forward statistics) and nothing from errors
check("error" not in out, f"stdout {out!r}")

# the issue's example, verbatim: stdout only the commands' output
r = run(["sh", "-c", f"printf 'start\\nshow port stats all json\\nstop\\nquit\\n' | {vfwd} --port null --port null"])
check(r.returncode == 0, r.stderr)
lines = r.stdout.splitlines()
json.loads(lines[0])
check(lines[1].startswith("Forward statistics"), f"{lines[:3]}")

# --stop-on-error: the failing line is named, exit 1
r = run(["sh", "-c", f"printf 'show config rxtx\\nbogus\\nquit\\n' | {vfwd} --port null --stop-on-error"])
check(r.returncode == 1 and "stdin:2" in r.stderr and "bogus" in r.stderr, f"{r.returncode} {r.stderr}")
# EOF without quit ends cleanly too
r = run(["sh", "-c", f"printf 'start\\n' | {vfwd} --port null"])
check(r.returncode == 0, f"EOF: {r.returncode} {r.stderr}")
print("ok")

# the man page documents every command of the table
man = open(os.path.join(os.path.dirname(__file__), "..", "..", "man", "vfwd.1")).read()
r = run(["sh", "-c", f"printf 'help json\\n' | {vfwd} --port null"])
for c in json.loads(r.stdout)["commands"]:
    first = c["command"].split()
    check(f".It Ic {first[0]}" in man and all(w in man for w in first),
          f"vfwd(1) lacks the command {c['command']!r}")
print("man ok")
