"""What the bench scripts share (bench/loopbench.py builds the loop
benchmarks on it): stopping a process the way an operator would, and the
last JSON object a one-shot run printed."""
import json
import signal
import subprocess


def stop(p, sig=signal.SIGINT, t=20):
    """sig (SIGINT: the tools stop forwarding, print their final stats and
    exit), then SIGKILL if p has not exited after t seconds."""
    if p.poll() is None:
        p.send_signal(sig)
        try:
            p.wait(timeout=t)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def last_json(cmd, timeout):
    """Runs cmd to its end (stdin /dev/null) and returns the last line of
    its stdout that is a JSON object, parsed; None if it printed none or
    ran past timeout seconds."""
    try:
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    objs = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    return json.loads(objs[-1]) if objs else None
