"""bench/poll_lock.sh: the bench scripts take the poller lock themselves,
say when they wait for it, and stop at once (instead of waiting for
themselves for ever) when the run that started them holds it already."""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from vftest import SOURCE, check  # noqa: E402

lock = tempfile.NamedTemporaryFile(prefix="vf-poll-test-", suffix=".lock", delete=False).name
env = dict(os.environ, VF_POLL_LOCK_FILE=lock, VF_BUILD="/nonexistent-build")
env.pop("VF_POLL_LOCKED", None)
scripts = ["bench/vloop.sh", "bench/memif.sh", "bench/offload.sh", "bench/measure.sh"]


def run(cmd, **kw):
    return subprocess.run(cmd, cwd=SOURCE, env=kw.pop("env", env), capture_output=True,
                          text=True, timeout=30, **kw)


try:
    for s in scripts:
        # 1. Under an outer flock on the same file: exit 2 at once, with why.
        t0 = time.monotonic()
        r = run(["flock", lock, s])
        check(r.returncode == 2, f"{s} under flock: rc {r.returncode}: {r.stderr}")
        check("holds" in r.stderr and "VF_POLL_LOCKED=1" in r.stderr, f"{s}: message: {r.stderr}")
        check(time.monotonic() - t0 < 10, f"{s}: took {time.monotonic() - t0:.1f} s")
        # 2. The caller says it holds the lock: no wait, on to the script's
        #    own checks (the build is missing: rc 1).
        r = run(["flock", lock, s], env=dict(env, VF_POLL_LOCKED="1"))
        check(r.returncode == 1 and "not built" in r.stderr, f"{s} VF_POLL_LOCKED: {r.returncode} {r.stderr}")
    # 3. Held by an unrelated process: says it waits, then goes on once the
    #    lock is free.
    holder = subprocess.Popen(["flock", lock, "sleep", "2"])
    time.sleep(0.3)
    t0 = time.monotonic()
    r = run(["bench/memif.sh"])
    waited = time.monotonic() - t0
    holder.wait()
    check("waiting for" in r.stderr, f"no wait message: {r.stderr}")
    check(r.returncode == 1 and "not built" in r.stderr, f"after the wait: {r.returncode} {r.stderr}")
    check(waited >= 1.0, f"did not wait for the holder ({waited:.1f} s)")
finally:
    os.unlink(lock)
print("ok")
