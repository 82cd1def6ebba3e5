"""Who gets in through a control socket (issue 16), with a real second local
user: the test (root) creates the system user vft-peer and the group
vft-peers (vft-peer is a member) when they do not exist yet (and keeps them
for the next run), runs peers under that user with setpriv, and checks
what each side shows (show port info JSON) and logs.

  memif   abstract names: a peer of another user is refused by default in
          both roles (including a server under that user that took the name
          our client connects to); allow-uid / allow-gid let it in, a list
          without it keeps it out; a socket file lets in whom its mode lets in.
  vhost   vhostd's socket file: refused while the mode excludes the peer,
          accepted with a group or a mode that includes it; allow-uid /
          allow-gid over the file; vhostd --client refusing a front-end that
          another user runs.
  virtio  virtio_user server=1: the same gate from the front-end's side.
  files   socket files get exactly socket-mode and socket-group, under a
          umask of 000 and of 077, for vhostd, memif and virtio_user.
  secret  memif secrets: right, wrong, missing, exactly 24 bytes, 25 (refused
          at parse time); the secret appears in no output.

Exit 77 (skipped) when not root, or when the peer user cannot run the build.
"""
import grp
import json
import os
import pwd
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "memif"))
import memif_util as mu  # noqa: E402
from vftest import binary, check, fail, run, tmpdir, wait_for  # noqa: E402

USER, GROUP = "vft-peer", "vft-peers"

if os.geteuid() != 0:
    print("SKIP: needs root (creates a second user)")
    sys.exit(77)


def ensure_user():
    """Create the group and the user (member of the group) if missing."""
    try:
        grp.getgrnam(GROUP)
    except KeyError:
        subprocess.run(["groupadd", "--system", GROUP], check=True)
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                        "--user-group", "--groups", GROUP, USER], check=True)
    if USER not in grp.getgrnam(GROUP).gr_mem:
        subprocess.run(["usermod", "-a", "-G", GROUP, USER], check=True)
    return pwd.getpwnam(USER).pw_uid, pwd.getpwnam(USER).pw_gid, grp.getgrnam(GROUP).gr_gid


UID, UGID, GGID = ensure_user()
AS_PEER = ["setpriv", "--reuid", USER, "--regid", str(UGID), "--init-groups", "--"]
# The peer's DPDK runtime files go to a directory of its own.
PEER_RUN = tmpdir()
os.chown(PEER_RUN, UID, UGID)
os.chmod(PEER_RUN, 0o700)
PEER_ENV = dict(os.environ, HOME=PEER_RUN, XDG_RUNTIME_DIR=PEER_RUN)

r = subprocess.run(AS_PEER + [binary("vfwd"), "--version"], capture_output=True, text=True,
                   env=PEER_ENV)
if r.returncode != 0:
    print(f"SKIP: {USER} cannot run {binary('vfwd')}: {r.stderr.strip()}")
    sys.exit(77)


class Tool(mu.Proc):
    """One of our tools in interactive mode, as root or as the peer user;
    main lcore 0 or 1 so that two never share a core."""

    def __init__(self, tool, args, peer=False, core=0, umask=None):
        argv = [binary(tool), "-i", "-l", "0-1", "--main-lcore", str(core)] + args
        if peer:
            argv = AS_PEER + argv
        if umask is not None:
            argv = ["sh", "-c", f"umask {umask:03o}; exec \"$@\"", "sh"] + argv
        super().__init__(argv, env=PEER_ENV if peer else None)
        self.tool = tool

    def query(self, command, timeout=30):
        n = self.mark()
        self.cmd(command)
        return json.loads(self.wait_line(lambda ln: ln.startswith("{"), n, timeout, command))

    def dinfo(self, port=0):
        return self.query(f"show port info {port} json")["ports"][0]["driver_info"]

    def info(self, port=0):
        return self.query(f"show port info {port} json")["ports"][0]


def wait_info(t, cond, what, timeout=30):
    box = {}

    def ok():
        box["i"] = t.dinfo()
        return cond(box["i"])
    try:
        wait_for(ok, timeout=timeout, step=0.2, what=what)
    except SystemExit:
        print(f"last info: {box.get('i')}\noutput:\n{t.text()[-3000:]}", file=sys.stderr)
        raise
    return box["i"]


def peer_dir():
    """A directory the peer user can enter (mkdtemp makes them 0700)."""
    d = tmpdir()
    os.chmod(d, 0o755)
    return d


# ---------------------------------------------------------------- memif
def memif_case():
    name = mu.sock_name("acc")
    # 1. our server, default (abstract: own uid and root): the peer's client is refused
    srv = Tool("memifctl", ["--role", "server", "--socket", name], core=0)
    cli = Tool("memifctl", ["--role", "client", "--socket", name], peer=True, core=1)
    i = wait_info(srv, lambda i: i["peer_rejects"] >= 1, "server refusal")
    check(f"uid {UID} " in i["last_refused"] and "not allowed" in i["last_refused"],
          f"last_refused: {i['last_refused']}")
    check(f"pid {cli.p.pid} " in i["last_refused"], f"pid of the peer: {i['last_refused']}")
    check(i["state"] == "listening" and i["peer_uid"] == -1, f"server: {i}")
    check(i["allow"] == "own uid 0 and root", f"allow: {i['allow']}")
    ci = wait_info(cli, lambda i: "not allowed" in i["disconnect_reason"], "client told why")
    check(ci["disconnect_reason"] == f"peer: Peer uid {UID} not allowed", f"client: {ci}")
    check(ci["state"] != "connected", f"client: {ci}")
    cli.quit()
    srv.quit()

    # 2. allow-uid / allow-gid with the peer in them: accepted; without it: refused
    for keys, ok in ((["--allow-uid", USER], True), (["--allow-gid", GROUP], True),
                     (["--allow-uid", f"root:{UID + 1}"], False), (["--allow-gid", "root"], False),
                     (["--allow-uid", "root", "--allow-gid", str(GGID)], True)):
        srv = Tool("memifctl", ["--role", "server", "--socket", name] + keys, core=0)
        cli = Tool("memifctl", ["--role", "client", "--socket", name], peer=True, core=1)
        if ok:
            i = wait_info(srv, lambda i: i["state"] == "connected", f"{keys}: connected")
            check(i["peer_uid"] == UID and i["peer_gid"] == UGID and i["peer_pid"] == cli.p.pid,
                  f"{keys}: peer {i}")
            check(i["peer_rejects"] == 0, f"{keys}: {i}")
            check(f"pid {cli.p.pid} uid {UID} gid {UGID}" in srv.text(), "connect log names the peer")
            ci = wait_info(cli, lambda i: i["state"] == "connected", "peer client connected")
            check(ci["peer_uid"] == 0 and ci["peer_pid"] == srv.p.pid, f"client sees us: {ci}")
        else:
            i = wait_info(srv, lambda i: i["peer_rejects"] >= 1, f"{keys}: refused")
            check(i["state"] == "listening", f"{keys}: {i}")
        cli.quit()
        srv.quit()

    # 3. a server under the peer user took the name: our client refuses it
    psrv = Tool("memifctl", ["--role", "server", "--socket", name], peer=True, core=1)
    wait_for(lambda: name in open("/proc/net/unix").read(), timeout=30,
             what="peer server listening")
    cli = Tool("memifctl", ["--role", "client", "--socket", name], core=0)
    ci = wait_info(cli, lambda i: i["peer_rejects"] >= 1, "our client refuses the squatter")
    check(ci["disconnect_reason"] == f"Peer uid {UID} not allowed", f"{ci}")
    check(f"pid {psrv.p.pid} uid {UID}" in ci["last_refused"], f"{ci['last_refused']}")
    check(ci["state"] != "connected" and ci["regions"] == 0, f"{ci}")
    # the squatter got nothing but our DISCONNECT
    pi = psrv.dinfo()
    check(pi["state"] == "listening" and pi["connects"] == 0, f"peer server: {pi}")
    cli.quit()
    # ... unless told: allow-uid=vft-peer
    cli = Tool("memifctl", ["--role", "client", "--socket", name, "--allow-uid", USER], core=0)
    ci = wait_info(cli, lambda i: i["state"] == "connected", "our client with allow-uid")
    check(ci["peer_uid"] == UID and ci["peer_pid"] == psrv.p.pid, f"{ci}")
    cli.quit()
    psrv.quit()

    # 4. a socket file: whoever its mode lets in
    d = peer_dir()
    path = os.path.join(d, "m.sock")
    srv = Tool("memifctl", ["--role", "server", "--socket", path, "--socket-abstract", "no"], core=0)
    wait_for(lambda: os.path.exists(path), what="memif socket file")
    check(stat.S_IMODE(os.lstat(path).st_mode) == 0o660, "default mode 0660")
    cli = Tool("memifctl", ["--role", "client", "--socket", path, "--socket-abstract", "no"],
               peer=True, core=1)
    cli.wait_line(lambda ln: "Permission denied" in ln, 0, 30, "EACCES from the file mode")
    check(srv.dinfo()["state"] == "listening", "nobody got in")
    cli.quit()
    srv.quit()
    srv = Tool("memifctl", ["--role", "server", "--socket", path, "--socket-abstract", "no",
                            "--socket-group", GROUP], core=0)
    cli = Tool("memifctl", ["--role", "client", "--socket", path, "--socket-abstract", "no"],
               peer=True, core=1)
    i = wait_info(srv, lambda i: i["state"] == "connected", "group member connected")
    check(i["peer_uid"] == UID, f"{i}")
    check(i["socket_mode"] == "0660" and i["socket_group"] == f"{GROUP}({GGID})", f"{i}")
    check(i["allow"] == "as the socket file's mode allows", f"{i}")
    cli.quit()
    srv.quit()


# ---------------------------------------------------------------- vhost
def vhost_case():
    d = peer_dir()
    path = os.path.join(d, "vh.sock")
    fe_args = ["--port", f"virtio_user,path={path}"]

    def frontend(expect_ok):
        """The peer user's vfwd as the front-end (virtio_user client)."""
        if expect_ok:
            return Tool("vfwd", fe_args, peer=True, core=1)
        r = run(AS_PEER + [binary("vfwd"), "-l", "0-1", "--main-lcore", "1"] + fe_args +
                ["--duration", "0.5"], timeout=60)
        # Refused at connect (the file's mode): the probe fails.  Refused
        # after accept (allow-uid/gid): the negotiation runs on the port's
        # worker, so the port stays down with the reason and the run goes
        # on; either way nothing was negotiated.
        check(r.returncode != 0 or ("error: virtio_user0: " in r.stderr and "link up" not in r.stderr),
              f"front-end got in: {r.stderr}")
        return r

    # 1. default 0660, our group root: the peer cannot connect at all
    vh = Tool("vhostd", ["--iface", path], core=0)
    wait_for(lambda: os.path.exists(path), what="vhost socket")
    r = frontend(False)
    check("Permission denied" in r.stderr, f"{r.stderr}")
    i = vh.dinfo()
    check(i["connections"] == 0 and i["peer_rejects"] == 0, f"{i}")
    check(i["socket_mode"] == "0660" and i["socket_group"].startswith("root("), f"{i}")
    vh.quit()

    # 2. a group or a mode that includes it: accepted, and shown
    for extra in (["--socket-group", GROUP], ["--socket-mode", "0666"],
                  ["--socket-mode", "0666", "--allow-uid", USER],
                  ["--socket-mode", "0666", "--allow-gid", GROUP]):
        vh = Tool("vhostd", ["--iface", path] + extra, core=0)
        wait_for(lambda: os.path.exists(path), what="vhost socket")
        fe = frontend(True)
        i = wait_info(vh, lambda i: i["connected"] and i["peer_uid"] == UID, f"{extra}: connected")
        check(i["peer_pid"] == fe.p.pid and i["peer_gid"] == UGID, f"{extra}: {i}")
        check(f"pid {fe.p.pid} uid {UID} gid {UGID}" in vh.text(), "connect log names the peer")
        fi = wait_info(fe, lambda i: i["connected"], "front-end connected")
        check(fi["peer_uid"] == 0 and fi["peer_pid"] == vh.p.pid, f"front-end sees vhostd: {fi}")
        fe.quit()
        vh.quit()

    # 3. the file lets it in, the list does not: closed and counted
    for extra in (["--socket-mode", "0666", "--allow-uid", "root"],
                  ["--socket-mode", "0666", "--allow-gid", "root"]):
        vh = Tool("vhostd", ["--iface", path] + extra, core=0)
        wait_for(lambda: os.path.exists(path), what="vhost socket")
        frontend(False)
        i = wait_info(vh, lambda i: i["peer_rejects"] == 1, f"{extra}: refused")
        check(not i["connected"] and i["connections"] == 0, f"{extra}: {i}")
        check(f"uid {UID} gid {UGID}: Peer uid {UID} not allowed" in i["last_refused"], f"{i}")
        check(i["allow"] in ("uid 0", "gid 0"), f"{i}")
        x = vh.query("show port xstats 0 json")
        check(json.dumps(x).find('"peer_rejects"') >= 0, f"xstats: {x}")
        vh.quit()

    # 4. vhostd --client: the front-end listening is another user's
    pd = peer_dir()
    os.chown(pd, UID, UGID)     # the peer creates its socket there
    fpath = os.path.join(pd, "fe.sock")
    fe = Tool("vfwd", ["--port", f"virtio_user,path={fpath},server=1,socket-mode=0600"],
              peer=True, core=1)
    wait_for(lambda: os.path.exists(fpath), what="front-end socket")
    check(os.lstat(fpath).st_uid == UID and stat.S_IMODE(os.lstat(fpath).st_mode) == 0o600,
          "peer's socket 0600")
    vh = Tool("vhostd", ["--iface", fpath, "--client", "--allow-uid", "root"], core=0)
    i = wait_info(vh, lambda i: i["peer_rejects"] >= 1, "vhostd --client refuses")
    check(not i["connected"] and f"pid {fe.p.pid} uid {UID}" in i["last_refused"], f"{i}")
    vh.quit()
    vh = Tool("vhostd", ["--iface", fpath, "--client"], core=0)   # a file: its mode decides
    i = wait_info(vh, lambda i: i["connected"], "vhostd --client default")
    check(i["peer_uid"] == UID and i["peer_pid"] == fe.p.pid and i["peer_rejects"] == 0, f"{i}")
    vh.quit()
    fe.quit()


# ---------------------------------------------------------------- virtio
def virtio_case():
    d = peer_dir()
    path = os.path.join(d, "vu.sock")

    def server(extra=""):
        t = Tool("vfwd", ["--port", f"virtio_user,path={path},server=1{extra}"], core=0)
        wait_for(lambda: os.path.exists(path), what="virtio_user socket")
        return t

    def backend():
        return Tool("vhostd", ["--iface", path, "--client"], peer=True, core=1)

    # default 0660 root group: vhostd --client under the peer user cannot connect
    vu = server()
    be = backend()
    be_wait = time.time() + 3
    while time.time() < be_wait:      # several retries of the peer, none gets in
        i = vu.dinfo()
        check(not i["connected"] and i["peer_rejects"] == 0, f"{i}")
        time.sleep(0.5)
    be.quit()
    vu.quit()
    # mode that includes it: accepted
    vu = server(",socket-mode=0666")
    be = backend()
    i = wait_info(vu, lambda i: i["connected"], "backend connected")
    check(i["peer_uid"] == UID and i["peer_pid"] == be.p.pid, f"{i}")
    check(i["socket_mode"] == "0666", f"{i}")
    be.quit()
    vu.quit()
    # group: accepted; allow-uid without it: refused and counted
    vu = server(f",socket-group={GROUP}")
    be = backend()
    i = wait_info(vu, lambda i: i["connected"], "group backend connected")
    check(i["peer_uid"] == UID, f"{i}")
    be.quit()
    vu.quit()
    vu = server(f",socket-group={GROUP},allow-uid=root")
    be = backend()
    i = wait_info(vu, lambda i: i["peer_rejects"] >= 1, "backend refused by allow-uid")
    check(not i["connected"] and f"uid {UID}" in i["last_refused"], f"{i}")
    be.quit()
    vu.quit()
    vu = server(f",socket-mode=0666,allow-gid={GROUP}")
    be = backend()
    i = wait_info(vu, lambda i: i["connected"], "allow-gid backend connected")
    be.quit()
    vu.quit()


# ---------------------------------------------------------------- files
def files_case():
    d = peer_dir()
    for um in (0o000, 0o077):
        for mode, group in (("0600", None), ("0640", GROUP), ("0666", None), ("0660", str(GGID))):
            want = int(mode, 8)
            grpargs = ["--socket-group", group] if group else []
            wantgid = GGID if group else 0
            cases = [
                ("vhostd", ["--iface", os.path.join(d, "f.sock"), "--socket-mode", mode] + grpargs),
                ("memifctl", ["--role", "server", "--socket", os.path.join(d, "f.sock"),
                              "--socket-abstract", "no", "--socket-mode", mode] + grpargs),
                ("vfwd", ["--port", f"virtio_user,path={os.path.join(d, 'f.sock')},server=1,"
                          f"socket-mode={mode}" + (f",socket-group={group}" if group else "")]),
            ]
            for tool, args in cases:
                p = os.path.join(d, "f.sock")
                t = Tool(tool, args, umask=um, core=0)
                wait_for(lambda: os.path.exists(p), what=f"{tool} socket")
                st = os.lstat(p)
                check(stat.S_ISSOCK(st.st_mode), f"{tool}: not a socket")
                check(stat.S_IMODE(st.st_mode) == want,
                      f"{tool} umask {um:03o}: mode {oct(stat.S_IMODE(st.st_mode))} != {mode}")
                check(st.st_gid == wantgid, f"{tool}: gid {st.st_gid} != {wantgid}")
                i = t.dinfo()
                check(i["socket_mode"] == mode, f"{tool}: info {i}")
                check(i["socket_group"].endswith(f"({wantgid})"), f"{tool}: info {i}")
                check(sorted(os.listdir(d)) == ["f.sock"], f"left in the directory: {os.listdir(d)}")
                t.quit()
                check(not os.path.exists(p), f"{tool}: socket left at exit")
    # a directory others may write to is warned about
    wd = tmpdir()
    os.chmod(wd, 0o1777)
    r = run([binary("vhostd"), "-l", "0-1", "--iface", os.path.join(wd, "w.sock"), "--duration", "0.2"],
            timeout=60)
    check(r.returncode == 0 and "writable by other users" in r.stderr, f"{r.stderr}")
    os.chmod(wd, 0o755)
    r = run([binary("vhostd"), "-l", "0-1", "--iface", os.path.join(wd, "w.sock"), "--duration", "0.2"],
            timeout=60)
    check(r.returncode == 0 and "writable by other users" not in r.stderr, f"{r.stderr}")
    # bad values: exit 2, one line naming the key / option and what is accepted
    for args, words in (
            ([binary("vhostd"), "--iface", "/tmp/x.sock", "--socket-mode", "999"], ["--socket-mode", "octal"]),
            ([binary("vhostd"), "--iface", "/tmp/x.sock", "--allow-uid", "no-such-user-vft"],
             ["--allow-uid", "user names"]),
            ([binary("memifctl"), "--socket-group", "no-such-group-vft"], ["--socket-group", "group"]),
            ([binary("vfwd"), "--port", "vhost,iface=/tmp/x.sock,socket-mode=0778"],
             ["socket-mode", "octal"]),
            ([binary("vfwd"), "--port", "memif,allow-gid=root:"], ["allow-gid", "gids"]),
            ([binary("vfwd"), "--port", "virtio_user,path=/x,allow-uid=root,0"], ["unknown key '0'"]),
            ([binary("vfwd"), "--port", "memif,bogus=1"], ["allow-uid", "allow-gid", "socket-mode",
                                                          "socket-group"])):
        r = run(args, timeout=30)
        check(r.returncode == 2, f"{args}: exit {r.returncode} {r.stderr}")
        lines = r.stderr.strip().splitlines()
        check(len(lines) >= 1 and all(w in lines[0] for w in words), f"{args}: {r.stderr}")


# ---------------------------------------------------------------- secret
def secret_case():
    name = mu.sock_name("sec")
    s24 = "abcdefghijklmnopqrstuvwx"
    assert len(s24) == 24
    secrets = ["hunter2-secret", s24]
    for secret in secrets:
        srv = Tool("memifctl", ["--role", "server", "--socket", name, "--secret", secret], core=0)
        for given, ok in ((secret, True), (None, False), (secret[:-1], False),
                          (secret[:-1] + "X", False), ("other", False)):
            args = ["--role", "client", "--socket", name, "--reconnect-ms", "200"]
            if given:
                args += ["--secret", given]
            cli = Tool("memifctl", args, core=1)
            if ok:
                ci = wait_info(cli, lambda i: i["state"] == "connected", "right secret")
            else:
                ci = wait_info(cli, lambda i: "secret" in i["disconnect_reason"], "refused")
                check(ci["disconnect_reason"] == "peer: Incorrect secret", f"{given}: {ci}")
            out = json.dumps(cli.info())
            check(secret not in out and (not given or given not in out), f"client info: {out}")
            check("secret=***" in cli.info()["spec"] or not given, f"{cli.info()['spec']}")
            cli.quit()
            check(secret not in cli.text() and (not given or given not in cli.text()),
                  "secret in the client's output")
        info = json.dumps(srv.info())
        check(secret not in info and "secret=***" in info, f"server info: {info}")
        srv.cmd("show port xstats 0 json")
        srv.quit()
        check(secret not in srv.text(), f"secret in the server's output:\n{srv.text()[-2000:]}")
    # 25 bytes: refused at parse time, exit 2, the value not echoed
    for args in ([binary("memifctl"), "--secret", "y" * 25],
                 [binary("vfwd"), "--port", "memif,role=server,secret=" + "y" * 25]):
        r = run(args, timeout=30)
        check(r.returncode == 2 and "secret" in r.stderr and "1..24" in r.stderr, f"{r.stderr}")
        check("y" * 25 not in r.stderr + r.stdout, f"echoed: {r.stderr}")
    # an error elsewhere in a spec with a secret does not print it
    r = run([binary("vfwd"), "--port", "memif,secret=topsecret,rsize=99"], timeout=30)
    check(r.returncode == 2 and "topsecret" not in r.stderr and "secret=***" in r.stderr,
          f"{r.stderr}")
    r = run([binary("memifctl"), "--secret", "a,topsecret"], timeout=30)
    check(r.returncode == 2 and "topsecret" not in r.stderr, f"{r.stderr}")


CASES = {"memif": memif_case, "vhost": vhost_case, "virtio": virtio_case,
         "files": files_case, "secret": secret_case}
which = sys.argv[1:] or list(CASES)
for c in which:
    if c not in CASES:
        fail(f"unknown case {c}: {', '.join(CASES)}")
    print(f"== {c}", flush=True)
    CASES[c]()
print("ok")
