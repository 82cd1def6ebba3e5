#!/usr/bin/env python3
"""The layout's contracts, checked from the source text:

1. no source file in lib/, drivers/ or cmd/ over 600 lines;
2. no circle between files: a .c and the header that declares what it
   defines (x.c with x.h or vf_x.h beside it) are one node; an edge is an
   #include, or a use of a function or global a file defines (a static one
   counts only from a header the defining file includes: the "body header"
   pattern, where a header calls back into its includer);
3. lib/ folders depend one way, from the top of RANKS down; lib/ never
   reaches drivers/ or cmd/, drivers/ never reach cmd/;
4. the README stays a user's page: at most 250 lines (internals go to docs/).

Usage: check_layout.py [ROOT]      exit 0 if all hold, 1 with the list.
       check_layout.py --graph     also print every edge (for a newcomer)."""
import os
import re
import sys

MAX_LINES = 600
README_MAX_LINES = 250
# lib/ folders, bottom first: a file may use its own folder and those before it.
RANKS = ["core", "out", "port", "fwd", "measure", "stats", "session", "search", "shell", "app"]

FUNC_DEF = re.compile(r"^(?!typedef|extern|return|#)([A-Za-z_][\w \t\*]*?)\b([A-Za-z_]\w*)\s*\([^;]*$")
VAR_DEF = re.compile(r"^(?!typedef|extern|static|return|#|struct\s+\w+\s*\{|enum|union)"
                     r"(?:const\s+)?(?:struct\s+\w+|unsigned\s+\w+|\w+)[\s\*]+(?:const\s+)?\*?\s*"
                     r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\])*\s*(?:=|;)")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
WORD = re.compile(r"[A-Za-z_]\w*")


def strip(text):
    """Drops comments, strings and character literals (keeps line breaks)."""
    out = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    out = re.sub(r"//[^\n]*", "", out)
    out = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', out)
    return re.sub(r"'(?:\\.|[^'\\\n])*'", "''", out)


def sources(root):
    files = []
    for top in ("lib", "drivers", "cmd"):
        for d, _, names in os.walk(os.path.join(root, top)):
            files += [os.path.relpath(os.path.join(d, n), root) for n in names if n.endswith((".c", ".h"))]
    return sorted(files)


def node_of(path, all_files):
    """x.c, x.h, vf_x.h and vf_x_priv.h (what x.c shares inside its folder)
    in one folder are one node."""
    d, base = os.path.split(path)
    stem = base[:-2]
    if path.endswith(".h"):
        bare = stem[3:] if stem.startswith("vf_") else None
        priv = bare[:-5] if bare and bare.endswith("_priv") else None
        for cand in (stem, bare, priv):
            if cand and os.path.join(d, cand + ".c") in all_files:
                return os.path.join(d, cand)
    return os.path.join(d, stem)


def header_uses(text):
    """What a header uses: the bodies of its inline functions and its macros
    (a prototype declares, it does not use)."""
    keep, depth, in_func = [], 0, False
    prev = ""
    for ch in text:
        if ch == "{":
            if depth == 0:
                in_func = prev == ")"
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth and in_func:
            keep.append(ch)
        if not ch.isspace():
            prev = ch
    macros = re.findall(r"^\s*#\s*define\s+\w+(?:\([^)]*\))?((?:.*\\\n)*.*)$", text, re.M)
    return set(WORD.findall("".join(keep) + "\n".join(macros)))


def definitions(text):
    glob, stat = set(), set()
    lines = text.split("\n")
    for i, line in enumerate(lines):
        m = FUNC_DEF.match(line)
        if m and "(" in line and not line.startswith((" ", "\t")):
            # a definition, not a prototype: a '{' comes before any ';'
            rest = "\n".join(lines[i:i + 12])
            brace, semi = rest.find("{"), rest.find(";")
            if brace >= 0 and (semi < 0 or brace < semi):
                (stat if re.search(r"\bstatic\b", m.group(1)) else glob).add(m.group(2))
                continue
        m = VAR_DEF.match(line)
        if m and not line.startswith((" ", "\t")):
            glob.add(m.group(1))
    return glob, stat


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    show = "--graph" in sys.argv
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    files = sources(root)
    fileset = set(files)
    problems = []
    with open(os.path.join(root, "README.md"), encoding="utf-8") as fh:
        n = fh.read().count("\n")
    if n > README_MAX_LINES:
        problems.append(f"README.md: {n} lines (at most {README_MAX_LINES}; internals go to docs/)")
    texts, words, incs = {}, {}, {}
    by_base = {}
    for f in files:
        by_base.setdefault(os.path.basename(f), []).append(f)
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            raw = fh.read()
        n = raw.count("\n")
        if n > MAX_LINES:
            problems.append(f"{f}: {n} lines (at most {MAX_LINES})")
        texts[f] = strip(raw)
        words[f] = header_uses(texts[f]) if f.endswith(".h") else set(WORD.findall(texts[f]))
        incs[f] = []
        for inc in INCLUDE.findall(raw):
            here = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            if here in fileset:
                incs[f].append(here)
            elif len(by_base.get(os.path.basename(inc), [])) == 1:
                incs[f].append(by_base[os.path.basename(inc)][0])
    defs_glob, defs_stat = {}, {}
    for f in files:
        g, s = definitions(texts[f])
        g.discard("main")
        for name in g:
            defs_glob.setdefault(name, set()).add(f)
        defs_stat[f] = s
    nodes = {f: node_of(f, fileset) for f in files}
    edges = {}

    def add(a, b, why):
        na, nb = nodes[a], nodes[b]
        if na != nb:
            edges.setdefault(na, {}).setdefault(nb, why)

    for f in files:
        for h in incs[f]:
            add(f, h, f"{f} includes {h}")
        for w in words[f]:
            for g in defs_glob.get(w, ()):
                if g != f and g.endswith(".c"):
                    add(f, g, f"{f} uses {w} of {g}")
        if f.endswith(".h"):
            for c in files:
                if c.endswith(".c") and f in incs[c]:
                    for w in words[f] & defs_stat[c]:
                        add(f, c, f"{f} calls {w} of its includer {c}")

    # circles: strongly connected components (iterative Tarjan)
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]
    allnodes = sorted(set(nodes.values()))
    for v0 in allnodes:
        if v0 in index:
            continue
        work = [(v0, iter(sorted(edges.get(v0, {}))))]
        index[v0] = low[v0] = counter[0]
        counter[0] += 1
        stack.append(v0)
        on.add(v0)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, {})))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
    for comp in comps:
        why = [edges[a][b] for a in comp for b in comp if b in edges.get(a, {})]
        problems.append("circle: " + " <-> ".join(comp) + "\n    " + "\n    ".join(why))

    # one-way folders
    def rank(n):
        parts = n.split(os.sep)
        if parts[0] == "lib":
            return ("lib", RANKS.index(parts[1]) if len(parts) > 2 and parts[1] in RANKS else -1)
        return (parts[0], None)

    for a, outs in sorted(edges.items()):
        ta, ra = rank(a)
        for b, why in sorted(outs.items()):
            tb, rb = rank(b)
            if ta == "lib" and ra < 0:
                problems.append(f"{a}: lib/ files live in one of the folders {RANKS}")
            if ta == "lib" and tb != "lib":
                problems.append(f"lib/ reaches {tb}/: {why}")
            elif ta == "drivers" and tb == "cmd":
                problems.append(f"drivers/ reach cmd/: {why}")
            elif ta == tb == "lib" and rb > ra:
                problems.append(f"lib/{RANKS[ra]} uses lib/{RANKS[rb]}, which sits above it: {why}")
            if show:
                print(f"{a} -> {b}   ({why})")
    for p in sorted(set(problems)):
        print(p)
    print(f"{len(files)} files, {len(allnodes)} nodes, "
          f"{sum(len(v) for v in edges.values())} edges, {len(set(problems))} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
