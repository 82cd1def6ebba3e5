"""`meson install` on its own (issue 29 item 6): a DESTDIR install of this
build puts every binary, man page, bash completion, unit and example under
the configured prefix, in the places the tools and systemd look, and
nothing outside it; the units start the installed binaries."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from vftest import BUILD, check, tmpdir  # noqa: E402

TOOLS = ["vfwd", "nullgen", "vhostd", "memifctl", "vfctl"]
D = tmpdir()

opts = json.loads(subprocess.run(["meson", "introspect", BUILD, "--buildoptions"],
                                 capture_output=True, text=True, check=True).stdout)
opt = {o["name"]: o["value"] for o in opts}
prefix = opt["prefix"]


def under(path):
    """An install path as meson has it (relative: to the prefix)."""
    return path if os.path.isabs(path) else os.path.join(prefix, path)


bindir, mandir, datadir = under(opt["bindir"]), under(opt["mandir"]), under(opt["datadir"])
unitdir = opt["systemdunitdir"] or (None if prefix == "/usr" else
                                    os.path.join(prefix, "lib", "systemd", "system"))

r = subprocess.run(["meson", "install", "-C", BUILD, "--destdir", D, "--no-rebuild", "--quiet"],
                   capture_output=True, text=True, timeout=120)
check(r.returncode == 0, f"meson install: {r.stdout}{r.stderr}")
files = sorted("/" + os.path.relpath(os.path.join(d, n), D)
               for d, _, names in os.walk(D) for n in names)
print(f"prefix {prefix}: {len(files)} files")

want = [os.path.join(bindir, t) for t in TOOLS]
want += [os.path.join(mandir, "man8" if t == "vhostd" else "man1",
                      t + (".8" if t == "vhostd" else ".1")) for t in TOOLS]
want.append(os.path.join(mandir, "man7", "vf-ports.7"))
want += [os.path.join(datadir, "bash-completion", "completions", t) for t in TOOLS]
want += [os.path.join(datadir, "doc", "vfwd", "examples", f"{t}.conf.example")
         for t in ("vhostd", "memifctl")]
units = [f for f in files if f.endswith("@.service")]
check(sorted(os.path.basename(u) for u in units) == ["memifctl@.service", "vhostd@.service"],
      f"units: {units}")
if unitdir:
    want += [os.path.join(unitdir, u) for u in ("vhostd@.service", "memifctl@.service")]
missing = [w for w in want if w not in files]
check(not missing, f"not installed: {missing}\ninstalled: {files}")
extra = [f for f in files if f not in want and f not in units]
check(not extra, f"installed but not expected here: {extra}")
if prefix != "/usr":
    outside = [f for f in files if not f.startswith(prefix + "/")]
    check(not outside, f"installed outside the prefix {prefix}: {outside}")

for t in TOOLS:
    check(os.access(D + os.path.join(bindir, t), os.X_OK), f"{t} not executable")
for u in units:
    text = open(D + u).read()
    exe = re.search(r"^ExecStart=(\S+)", text, re.M).group(1)
    tool = os.path.basename(u).split("@")[0]
    check(exe == os.path.join(bindir, tool), f"{u}: ExecStart={exe}, installed at {bindir}")
    check("@BINDIR@" not in text, f"{u}: not configured")
# the completion files are the tools' own (each registers its tool)
for t in TOOLS:
    text = open(D + os.path.join(datadir, "bash-completion", "completions", t)).read()
    check(re.search(rf"^complete -F \S+ {t}$", text, re.M), f"completion {t} registers no {t}")
print("ok")
