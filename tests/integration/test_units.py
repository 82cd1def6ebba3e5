"""The systemd units pass `systemd-analyze verify`, with ExecStart pointed
at the binaries of this build (the installed path may hold none).
Arguments: the configured unit files."""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from vftest import BUILD, check, tmpdir  # noqa: E402

analyze = shutil.which("systemd-analyze")
if not analyze:
    print("SKIP: no systemd-analyze")
    sys.exit(77)
D = tmpdir()
for unit in sys.argv[1:]:
    name = os.path.basename(unit)
    tool = name.split("@")[0]
    text = open(unit).read()
    check(re.search(r"^Type=notify$", text, re.M), f"{name}: not Type=notify")
    exe = re.search(r"^ExecStart=(\S+)", text, re.M)
    check(exe and os.path.basename(exe.group(1)) == tool, f"{name}: ExecStart runs no {tool}")
    # a template is verified as one of its instances
    inst = os.path.join(D, name.replace("@.", "@test."))
    with open(inst, "w") as f:
        f.write(text.replace(exe.group(1), os.path.join(BUILD, "cmd", tool, tool)))
    r = subprocess.run([analyze, "verify", "--man=no", inst], capture_output=True, text=True,
                       timeout=30, cwd=D)
    check(r.returncode == 0, f"{name}: systemd-analyze verify: {r.stdout}{r.stderr}")
    print(f"{name}: verified")
print("ok")
