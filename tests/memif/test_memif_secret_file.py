"""memif secrets from a file (secret-file=, memifctl --secret-file): the
secret is on no command line (/proc/PID/cmdline) and in no output, a peer
with the right secret connects and one with a wrong one is refused and
counted, across our tools (memifctl, nullgen, vfwd's port attach) and
DPDK 22.11 net_memif (testpmd, secret= on its side).  A file that group
or other may read, an empty one, a too long one, and secret= together
with secret-file= stop the tool at start (exit 2), the content unshown."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from memif_util import Ours, TestPmd, check, sock_name, wait_for  # noqa: E402
from vftest import binary, run, tmpdir  # noqa: E402

SECRET = "fromfile-Zq81"
WRONG = "fromfile-Zq82"
d = tmpdir()


def secret_file(name, content, mode=0o600):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(content)
    os.chmod(path, mode)
    return path


GOOD = secret_file("good", SECRET + "\n")
BAD = secret_file("wrong", WRONG)


def cmdline(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return f.read().replace(b"\0", b" ").decode()


def no_secret(proc, what):
    """Neither the command line nor anything printed shows the secret."""
    check(SECRET not in cmdline(proc.pid()), f"{what}: secret in cmdline")
    check(SECRET not in proc.text(), f"{what}: secret in output:\n{proc.text()[-2000:]}")


def refused(cli):
    wait_for(lambda: "secret" in cli.dinfo()["disconnect_reason"], timeout=60,
             step=0.2, what="refused for its secret")
    check(cli.dinfo()["state"] != "connected", f"{cli.dinfo()}")
    return cli.dinfo()["disconnect_reason"]


def case_ours():
    name = sock_name("sf")
    srv = Ours("memifctl", ["--role", "server", "--socket", name, "--secret-file", GOOD])
    check(f"secret-file={GOOD}" in srv.info()["spec"], f"{srv.info()['spec']}")
    # the right secret from a file, on the client too
    cli = Ours("memifctl", ["--role", "client", "--socket", name, "--secret-file", GOOD,
                            "--reconnect-ms", "200"])
    cli.wait_state("connected")
    no_secret(cli, "client")
    no_secret(srv, "server")
    check(cli.quit() == 0, "client quit")
    # the right secret given inline meets the file's: the same secret
    cli = Ours("memifctl", ["--role", "client", "--socket", name, "--secret", SECRET])
    cli.wait_state("connected")
    cli.quit()
    rej0 = srv.dinfo()["ctl_rejects"]
    # a wrong secret (from a file) and none: refused, counted by the server
    for args in (["--secret-file", BAD], []):
        cli = Ours("memifctl", ["--role", "client", "--socket", name, "--reconnect-ms", "200"]
                   + args)
        check(refused(cli) == "peer: Incorrect secret", f"{args}: {cli.dinfo()}")
        cli.quit()
    wait_for(lambda: srv.dinfo()["ctl_rejects"] >= rej0 + 2, timeout=30,
             what="server counts the refusals")
    # nullgen with the devarg form, then vfwd attaching a port from its shell
    ng = Ours("nullgen", ["--port", f"memif,role=client,socket={name},secret-file={GOOD}",
                          "--port", "null"])
    ng.wait_state("connected")
    no_secret(ng, "nullgen")
    ng.quit()
    vf = Ours("vfwd", ["--port", "null"])
    vf.cmd(f"port attach memif,role=client,socket={name},secret-file={BAD},reconnect-ms=200")
    wait_for(lambda: len(vf.query("show port info all json")["ports"]) == 2, timeout=30,
             what="vfwd attached the port")
    refused_reason = refused_port(vf, 1)
    check(refused_reason == "peer: Incorrect secret", refused_reason)
    vf.quit()
    no_secret(srv, "server")
    check(srv.quit() == 0, "server quit")


def refused_port(proc, port):
    wait_for(lambda: "secret" in proc.dinfo(port)["disconnect_reason"], timeout=60,
             step=0.2, what="port refused for its secret")
    return proc.dinfo(port)["disconnect_reason"]


def case_testpmd():
    # DPDK as server with secret= on its command line, ours from the file
    name = sock_name("sfd")[1:]
    tp = TestPmd(f"net_memif0,role=server,id=3,socket={name},secret={SECRET}")
    cli = Ours("memifctl", ["--role", "client", "--id", "3", "--socket", name,
                            "--secret-file", GOOD])
    cli.wait_state("connected")
    tp.wait_link()
    no_secret(cli, "client of testpmd")
    cli.quit()
    cli = Ours("memifctl", ["--role", "client", "--id", "3", "--socket", name,
                            "--secret-file", BAD, "--reconnect-ms", "200"])
    reason = refused(cli)
    check("secret" in reason.lower(), reason)
    cli.quit()
    tp.kill()
    # ours as server from the file, DPDK as client: right, then wrong
    name = sock_name("sfe")[1:]
    srv = Ours("memifctl", ["--role", "server", "--id", "4", "--socket", name,
                            "--secret-file", GOOD])
    # DPDK's client connects once: the socket must be there first
    srv.wait_state("listening")
    tp = TestPmd(f"net_memif0,role=client,id=4,socket={name},secret={SECRET}")
    srv.wait_state("connected")
    tp.wait_link()
    tp.kill()
    wait_for(lambda: srv.dinfo()["state"] != "connected", timeout=60, what="testpmd left")
    rej0 = srv.dinfo()["ctl_rejects"]
    tp = TestPmd(f"net_memif0,role=client,id=4,socket={name},secret={WRONG}")
    wait_for(lambda: srv.dinfo()["ctl_rejects"] > rej0, timeout=60, what="testpmd refused")
    check(srv.dinfo()["state"] != "connected" and not tp.link_up(), f"{srv.dinfo()}")
    tp.kill()
    no_secret(srv, "server of testpmd")
    srv.quit()


def case_files():
    """Bad files stop the tool at start; nothing of the content shown."""
    loose = secret_file("loose", SECRET, 0o644)
    group = secret_file("group", SECRET, 0o640)
    empty = secret_file("empty", "\n")
    long_ = secret_file("long", "y" * 25)
    for path, words in ((loose, ["0644", "0600 or stricter"]), (group, ["0640"]),
                        (empty, ["empty"]), (long_, ["too long", "1..24"]),
                        (os.path.join(d, "missing"), ["No such file"])):
        for args in ([binary("memifctl"), "--role", "server", "--secret-file", path],
                     [binary("vfwd"), "--port", f"memif,role=server,secret-file={path}"]):
            r = run(args, timeout=60)
            out = r.stdout + r.stderr
            check(r.returncode == 2 and all(w in r.stderr for w in words),
                  f"{args}: exit {r.returncode}: {r.stderr}")
            check(SECRET not in out and "y" * 25 not in out, f"content shown: {out}")
    r = run([binary("vfwd"), "--port", f"memif,secret=abc,secret-file={GOOD}"], timeout=60)
    check(r.returncode == 2 and "secret-file" in r.stderr, f"{r.stderr}")


case_files()
case_ours()
case_testpmd()
print("ok")
