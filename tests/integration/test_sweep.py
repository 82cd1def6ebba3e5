"""--search-sizes (issue 27 item 3): the search once per frame length or
named mix, then one table.

Against memifctl (short trials: the figures are whatever a shared CI
machine gives; what is checked is the shape): every size searched and
reported in order, with NDR and PDR in pps and L2 and L1 bit/s from the
size's mean frame length, each size's own result document (not final,
with its --txpkts), trials tagged with their size, the text table; then
against DPDK testpmd (macswap on net_vhost, our virtio_user in front)
with the bisection.
Bad --search-sizes exit 2."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import vftest  # noqa: E402
from vftest import TESTPMD, binary, check, json_lines, start, tmpdir, wait_for  # noqa: E402

D = tmpdir()
A_CORE = ["-l", "0-1", "--main-lcore", "0"]
B_CORE = ["-l", "0-1", "--main-lcore", "1"]
SHORT = ["--trial", "0.1", "--precision", "0.1", "--min-rate", "1000"]


def memif(role, sock):
    return f"memif,role={role},socket={sock},socket-abstract=no"


def sweep(port, sizes, extra, labels, timeout=200):
    r = vftest.run([binary("nullgen")] + B_CORE + ["--port", port, "--fwd", "measure", "--search",
                                                   "--search-sizes", sizes] + SHORT + extra + ["--json"],
                   timeout=timeout)
    check(r.returncode == 0, f"sweep {sizes}: exit {r.returncode}: {r.stderr[-2000:]}")
    objs = json_lines(r.stdout)
    res = objs[-1]
    check(res.get("final") is True and "sweep" in res, f"last line {res}")
    sw = res["sweep"]
    rows = sw["sizes"]
    check([x["txpkts"] for x in rows] == labels, f"sizes {[x['txpkts'] for x in rows]}")
    check(sw["interrupted"] is False and sw["trials"] == sum(x["trials"] for x in rows), f"{sw}")
    docs = [o for o in objs if "search" in o]
    check([d["txpkts"] for d in docs] == labels and all(d["final"] is False for d in docs),
          f"per-size documents {[(d.get('txpkts'), d.get('final')) for d in docs]}")
    trials = [o for o in objs if "trial" in o]
    check([t["txpkts"] for t in trials if t["trial"] == 1] == labels, "trials tagged with their size")
    for x, d in zip(rows, docs):
        check(x["ok"] and x["trials"] >= 3 and x["tester_limit_pps"] > 0, f"{x}")
        check(abs(x["frame"] - d["search"]["frame"]) < 1e-9, f"frame {x['frame']} vs {d['search']['frame']}")
        g = {y["name"]: y for y in x["goals"]}
        check(set(g) == {"NDR", "PDR"}, f"goals {g}")
        for y in g.values():
            # a starved machine may not pass even the min load: then it
            # says so (tester-limited), never a figure
            check(y["found"] or y["tester_limited"], f"{x['txpkts']}: {y}")
            if y["found"]:
                check(y["pps"] > 0 and abs(y["l2_bps"] - y["pps"] * (x["frame"] + 4) * 8) < 1e-3 * y["l2_bps"] and
                      abs(y["l1_bps"] - y["pps"] * (x["frame"] + 24) * 8) < 1e-3 * y["l1_bps"], f"{y}")
        # a tester-limited goal is "at least" the tester's limit, from other
        # trials than the other goal's: no order between the two then
        if g["NDR"]["found"] and g["PDR"]["found"] and not (g["NDR"]["tester_limited"] or
                                                              g["PDR"]["tester_limited"]):
            check(g["NDR"]["pps"] <= g["PDR"]["pps"] * 1.0001, f"NDR above PDR: {g}")
            check("latency_90_us" in x and x["latency_90_us"]["p50"] > 0, f"latency {x}")
    return rows


sock = os.path.join(D, "m.sock")
srv = start([binary("memifctl"), "--role", "server", "--socket", sock, "--socket-abstract", "no",
             "--duration", "600"] + A_CORE)
wait_for(lambda: os.path.exists(sock), what="memifctl listening")
rows = sweep(memif("client", sock), "64,imix,1518", [], ["64", "imix", "1518"])
check([round(x["frame"], 1) for x in rows] == [64.0, 353.8, 1518.0], f"frames {[x['frame'] for x in rows]}")
print("memifctl: " + ", ".join(f"{x['txpkts']}: NDR {x['goals'][0].get('pps', 0):.0f} pps" for x in rows))

# text: the table, a row per size
r = vftest.run([binary("nullgen")] + B_CORE + ["--port", memif("client", sock), "--fwd", "measure", "--search",
                                               "--search-sizes", "128,256", "--search-method", "bisect"] + SHORT,
               timeout=200)
check(r.returncode == 0, f"text sweep: {r.returncode} {r.stderr[-1500:]}")
out = r.stdout.splitlines()
head = [i for i, ln in enumerate(out) if ln.startswith("txpkts") and "NDR Mpps" in ln and "PDR Mpps" in ln]
check(head and "size sweep: RFC 2544 bisection, 2 of 2 sizes" in out[head[0] - 1], f"table:\n{r.stdout[-1500:]}")
body = [ln.split() for ln in out[head[0] + 1:head[0] + 3]]
check([b[0] for b in body] == ["128", "256"] and [b[1] for b in body] == ["128.0", "256.0"], f"rows {body}")
srv.terminate()
srv.communicate(timeout=30)

# against DPDK testpmd (net_vhost, macswap) through our virtio_user: the
# RFC 2544 bisection at two sizes
if os.path.exists(TESTPMD):
    vs = os.path.join(D, "vh.sock")
    # stdin held open: testpmd without -i waits for a line there, and ends at EOF
    tp = start(vftest.testpmd_args([f"net_vhost0,iface={vs}"], ["--forward-mode=macswap", "-a", "--total-num-mbufs=8192"]),
               stdin=subprocess.PIPE)
    wait_for(lambda: os.path.exists(vs), what="testpmd's vhost socket", timeout=60)
    sweep(f"virtio_user,path={vs}", "64,1518", ["--search-method", "bisect"], ["64", "1518"])
    tp.terminate()
    tp.communicate(timeout=30)
else:
    print(f"no {TESTPMD}: the testpmd part skipped")

# bad arguments: exit 2
for args, msg in ((["--search-sizes", "64"], "needs --search"),
                  (["--search", "--search-sizes", "64:7,128:1"], "weighted"),
                  (["--search", "--search-sizes", "64,,128"], "empty"),
                  (["--search", "--search-sizes", "9001"], "bad --search-sizes entry '9001'"),
                  (["--search", "--search-sizes", "rfc2545"], "rfc2545")):
    r = vftest.run([binary("nullgen"), "--port", "memif", "--fwd", "measure"] + args, timeout=30)
    check(r.returncode == 2 and msg in r.stderr, f"{args}: exit {r.returncode}: {r.stderr}")
print("ok")
