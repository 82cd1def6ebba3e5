"""scripts/run-demo installs only what building and running needs; the test
command installs the rest (QEMU, a kernel image, clang, tshark, promtool,
debhelper and lintian); the Debian package builds from what deps.sh
installs for building."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from vftest import SOURCE, check  # noqa: E402

deps = open(os.path.join(SOURCE, "scripts", "deps.sh")).read()


def pkgs(var):
    m = re.search(var + r'="([^"]*)"', deps)
    check(m, f"deps.sh has no {var}")
    return m.group(1).split()


build, test = pkgs("BUILD"), pkgs("TEST")
for p in ["qemu-system-x86", "linux-image-cloud-amd64", "clang", "tshark", "prometheus", "libcmocka-dev",
          "debhelper", "lintian"]:
    check(p not in build and p in test, f"{p}: a test dependency, not a build one")
for p in ["meson", "ninja-build", "libdpdk-dev", "libjansson-dev", "libedit-dev"]:
    check(p in build, f"{p}: needed to build")
demo = open(os.path.join(SOURCE, "scripts", "run-demo")).read()
check(re.search(r"^scripts/deps\.sh$", demo, re.M), "run-demo installs the build set only")
check("-Dtests=false" in demo, "run-demo builds without the test suite (no cmocka)")
tests = open(os.path.join(SOURCE, "scripts", "run-tests")).read()
check(re.search(r"^scripts/deps\.sh --test$", tests, re.M), "run-tests installs the test set")
# debian/control's Build-Depends: what deps.sh calls a build dependency
# (debhelper, a test one here, comes as debhelper-compat)
control = open(os.path.join(SOURCE, "debian", "control")).read()
bd = re.search(r"^Build-Depends:(.*?)^\S", control, re.M | re.S).group(1)
for alt in bd.split(","):
    names = [re.sub(r"\s*\(.*", "", a).strip() for a in alt.split("|")]
    if names == ["debhelper-compat"]:
        continue
    check(any(n in build for n in names), f"debian/control builds with {alt.strip()}: not in deps.sh BUILD")
print("ok")
