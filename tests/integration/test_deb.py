"""The Debian package (issue 29 item 6): `dpkg-buildpackage -us -uc -b` on a
copy of the sources builds vfwd_VERSION_ARCH.deb with every binary, man
page, bash completion and systemd unit where Debian 12 wants them, and
lintian finds nothing to say about it (errors, warnings, info and pedantic
tags; debian/*.lintian-overrides, if any, give each exception's reason).

It compiles the suite once more (as a release): 46 s on a 2-core machine
here, so meson runs it only when configured with -Ddeb=true, as
scripts/run-tests (CI) does (else it is skipped and says so).  Skipped (exit 77) too when
dpkg-buildpackage, dh or lintian is missing or the build dependencies are
not installed: scripts/deps.sh --test installs them."""
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from vftest import SOURCE, check, tmpdir  # noqa: E402

TOOLS = ["vfwd", "nullgen", "vhostd", "memifctl", "vfctl"]


def skip(why):
    print(f"SKIP: {why} (scripts/deps.sh --test installs what is missing)")
    sys.exit(77)


if "--off" in sys.argv[1:]:
    print("SKIP: the package build takes minutes: configure with -Ddeb=true to run it "
          "(meson configure BUILD -Ddeb=true)")
    sys.exit(77)
for prog in ("dpkg-buildpackage", "dh", "lintian", "dpkg-checkbuilddeps"):
    if not shutil.which(prog):
        skip(f"no {prog}")
src = os.path.realpath(SOURCE)
r = subprocess.run(["dpkg-checkbuilddeps"], cwd=src, capture_output=True, text=True)
if r.returncode != 0:
    skip(f"build dependencies missing: {r.stderr.strip()}")

# A copy of what git tracks (and new files not ignored), so that no build
# directory of the checkout goes in and the package lands beside the copy.
D = tmpdir()
top = os.path.join(D, "vfwd")
os.mkdir(top)
if os.path.exists(os.path.join(src, ".git")):
    names = subprocess.run(["git", "-C", src, "ls-files", "-co", "--exclude-standard", "-z"],
                           capture_output=True, check=True).stdout.split(b"\0")
    for n in filter(None, (x.decode() for x in names)):
        if not os.path.exists(os.path.join(src, n)):
            continue            # deleted, not yet committed
        os.makedirs(os.path.dirname(os.path.join(top, n)), exist_ok=True)
        shutil.copy2(os.path.join(src, n), os.path.join(top, n), follow_symlinks=False)
else:
    shutil.copytree(src, top, dirs_exist_ok=True, symlinks=True,
                    ignore=shutil.ignore_patterns("build*", "obj-*", ".bundle"))

env = dict(os.environ, DEB_BUILD_OPTIONS=f"parallel={os.cpu_count() or 1}")
for v in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "MALLOC_PERTURB_"):
    env.pop(v, None)
t0 = time.monotonic()
r = subprocess.run(["dpkg-buildpackage", "-us", "-uc", "-b"], cwd=top, env=env,
                   capture_output=True, text=True, timeout=1500)
took = time.monotonic() - t0
check(r.returncode == 0, f"dpkg-buildpackage failed:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}")
print(f"dpkg-buildpackage -us -uc -b: {took:.0f} s", flush=True)

debs = [f for f in os.listdir(D) if re.match(r"vfwd_[^_]+_[^_]+\.deb$", f)]
changes = [f for f in os.listdir(D) if f.endswith(".changes")]
check(len(debs) == 1 and len(changes) == 1, f"built: {sorted(os.listdir(D))}")
deb = os.path.join(D, debs[0])
listing = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True,
                         check=True).stdout
paths = {ln.split()[-1].lstrip(".") for ln in listing.splitlines()}
want = [f"/usr/bin/{t}" for t in TOOLS]
want += [f"/usr/share/man/man{'8' if t == 'vhostd' else '1'}/{t}.{'8' if t == 'vhostd' else '1'}.gz"
         for t in TOOLS] + ["/usr/share/man/man7/vf-ports.7.gz"]
want += [f"/usr/share/bash-completion/completions/{t}" for t in TOOLS]
want += ["/lib/systemd/system/vhostd@.service", "/lib/systemd/system/memifctl@.service",
         "/usr/share/doc/vfwd/copyright", "/usr/share/doc/vfwd/changelog.gz",
         "/usr/share/doc/vfwd/examples/vhostd.conf.example",
         "/usr/share/doc/vfwd/examples/memifctl.conf.example"]
missing = [w for w in want if w not in paths]
check(not missing, f"not in the package: {missing}\n{listing}")
check(not [p for p in paths if p.startswith("/usr/local")], f"/usr/local in the package:\n{listing}")

# The units start the packaged binaries.
x = os.path.join(D, "x")
subprocess.run(["dpkg-deb", "-x", deb, x], check=True)
for u in ("vhostd", "memifctl"):
    text = open(os.path.join(x, f"lib/systemd/system/{u}@.service")).read()
    check(f"\nExecStart=/usr/bin/{u} " in text, f"{u}@.service: ExecStart is not /usr/bin/{u}")
# The drivers DPDK's EAL loads at start-up, besides what shlibs found.
info = subprocess.run(["dpkg-deb", "-f", deb, "Depends"], capture_output=True, text=True).stdout
check("librte-mempool-ring" in info and "librte-eal" in info, f"Depends: {info}")

r = subprocess.run(["lintian", "--pedantic", "--info", "--fail-on", "error,warning,info,pedantic",
                    os.path.join(D, changes[0])], capture_output=True, text=True, timeout=600)
tags = [ln for ln in r.stdout.splitlines() if re.match(r"^[EWIPXO]: ", ln)]
print(f"lintian {' '.join(sorted(set(t.split(':')[0] for t in tags))) or 'clean'}: "
      f"{len(tags)} tag(s)", flush=True)
for t in tags:
    print("  " + t)
check(r.returncode == 0 and not [t for t in tags if not t.startswith(("O:", "X:"))],
      f"lintian: exit {r.returncode}\n{r.stdout}{r.stderr}")
print("ok")
