#!/usr/bin/env python3
"""Every man page as a reader sees it: rendered by man -l through groff
with every warning on (-ww), no warning allowed, and the rendered text
checked for what a slip in the source leaves behind: doubled quotes
(a nested Dq), a request line that was not a macro, the replacement
character; an escape troff ate (\\n read as a number register) is one of
groff's warnings.

Pages: build/man holds all of them (copied from man/, vf-ports.7 assembled
from its fragments), so `man -M build/man vfwd` reads what is installed."""
import os
import re
import subprocess
import sys

BUILD = os.environ.get("VF_BUILD", "build")
PAGES = ["vfwd.1", "nullgen.1", "memifctl.1", "vhostd.8", "vfctl.1", "vf-ports.7"]
STRAY = [
    (re.compile(r"[”\"]{2,}|“{2,}|“”"), "doubled quotes (a nested Dq or Qq?)"),
    (re.compile(r"^\s*\.[A-Za-z]{2}\b", re.M), "a request line printed as text"),
    (re.compile(r"\ufffd"), "the replacement character"),
]


def main():
    env = dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH="80", MAN_KEEP_FORMATTING="0")
    bad = 0
    for page in PAGES:
        path = os.path.join(BUILD, "man", page)
        if not os.path.exists(path):
            print(f"{page}: not in {BUILD}/man")
            bad += 1
            continue
        warn = subprocess.run(["groff", "-mandoc", "-ww", "-z", "-Tutf8", path],
                              capture_output=True, text=True, env=env)
        if warn.returncode or warn.stderr.strip():
            print(f"{page}: groff -ww:\n{warn.stderr.strip()}")
            bad += 1
        out = subprocess.run(["man", "-l", path], capture_output=True, text=True, env=env)
        if out.returncode or not out.stdout.strip():
            print(f"{page}: man -l failed: {out.stderr.strip()}")
            bad += 1
            continue
        text = re.sub(r".\x08", "", out.stdout)
        for n, line in enumerate(text.splitlines(), 1):
            for rx, why in STRAY:
                if rx.search(line):
                    print(f"{page}: rendered line {n}: {why}: {line.strip()}")
                    bad += 1
        print(f"{page}: {len(text.splitlines())} lines rendered")
    # the rules above must catch what they are for (a check that cannot fail is no check)
    probe = '.Dd x\n.Dt T 1\n.Os\n.Sh NAME\n.Nm t\n.Nd t\n.Sh D\n.Pq Dq a , Dq b\n.Dl printf \'a\\nb\'\n'
    probe_path = os.path.join(BUILD, "man", "probe.tmp.1")
    with open(probe_path, "w") as f:
        f.write(probe)
    ptext = subprocess.run(["man", "-l", probe_path], capture_output=True, text=True, env=env).stdout
    pwarn = subprocess.run(["groff", "-mandoc", "-ww", "-z", "-Tutf8", probe_path],
                           capture_output=True, text=True, env=env).stderr
    os.unlink(probe_path)
    caught = any(rx.search(ptext) for rx, _ in STRAY[:1]) and "register" in pwarn
    if not caught:
        print("the checks did not catch the planted slips:\n" + ptext + pwarn)
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
