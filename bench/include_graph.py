#!/usr/bin/env python3
"""include_graph.py [ROOT] — the include graph between spsweep's folders,
the evidence issue 24 asks for before and after the move to core/: every
#include "..." of a .c, .h, .cu or .cuh file under the stages (core/ when it
exists, fetch/, kernels/, db/, runner/, plots/), resolved relative to the
including file, counted per pair of folders (a folder is a stage, or a
stage's subfolder such as kernels/spmv), then

  - the cross-stage includes that go the wrong way: from a stage to one
    above it in the intended order core < fetch, kernels < db < runner,
    plots (fetch/ and kernels/ side by side, db/ taking plain records, the
    runner and the report on top), with one example file pair each;
  - the include cycles between folders (strongly connected components of
    the folder graph with more than one folder), and the cycles between
    files inside one folder (the Matrix Market reader's, the download's);
  - runner/'s wings (cli, plan, exec, isolate, scale: issue 24 item 3),
    stacked plan < isolate < exec < scale < cli, with runner/runner.h (the
    runner's one header for the tests and the benches) above them all: the
    includes between wings, those that go up the stack, and the cycles
    between wings;
  - the calls between the .c files of one folder (of runner/, wings
    included), found from the source text (a file that uses a name
    another file of the folder defines at file scope, not static), and
    their cycles: two files that call each
    other are one piece to read, whatever their includes say (the
    executor's sweep.c and sweep_combo.c before issue 24, fetch/'s
    reader); and the calls between runner/'s wings, those going up.

Exit status 0 always: this measures, it does not gate. `--files` also lists
every cross-folder include. Standard library only."""
import os
import re
import sys
from collections import defaultdict

STAGES = ["core", "fetch", "kernels", "db", "runner", "plots"]
# a stage may include those of lower or equal level only
LEVEL = {"core": 0, "fetch": 1, "kernels": 1, "db": 2, "runner": 3, "plots": 3}
# runner/'s wings, lowest first; runner/ itself (runner.h) stands above them
WINGS = ["plan", "isolate", "exec", "scale", "cli"]
WING_LEVEL = {w: i for i, w in enumerate(WINGS)}
WING_LEVEL["runner"] = len(WINGS)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
EXTS = (".c", ".h", ".cu", ".cuh")


def folder_of(rel):
    parts = rel.split("/")
    if parts[0] not in STAGES:
        return None
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def scan(root):
    """edges[(from_file, to_file)] for every resolved include inside the stages."""
    edges = []
    for stage in STAGES:
        base = os.path.join(root, stage)
        for dirpath, _, names in os.walk(base):
            for n in names:
                if not n.endswith(EXTS):
                    continue
                path = os.path.join(dirpath, n)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for inc in INCLUDE.findall(text):
                    target = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
                    if os.path.exists(os.path.join(root, target)) and folder_of(target):
                        edges.append((rel, target))
    return edges


def strip_c(text):
    """text without comments, string and character literals."""
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  " ", text, flags=re.S)


# a file-scope definition starts at column 0 with a type: `int sp_x(...)`,
# `const sp_cli_cmd sp_cli_list = {`, `volatile sig_atomic_t sp_flag;`
DEF_START = re.compile(r"^(?!static\b|extern\b|typedef\b|return\b|struct\s+\w+\s*\{|"
                       r"enum\b|union\b|#)[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*"
                       r"(\(|=|;|\[)", re.M)
WORD = re.compile(r"[A-Za-z_]\w*")
ATTRIBUTE = re.compile(r"\b__(?:launch_bounds|attribute)__\s*\((?:[^()]|\([^()]*\))*\)")


def calls(root):
    """calls[(from_file, to_file)]: the .c/.cu files of one folder (all of
    runner/ counting as one) that use a non-static file-scope name another
    file of that folder defines. Folders, not stages: kernels/registry.c
    names every kernel of the subfolders, which use its helpers, a plug-in
    table rather than a knot."""
    files = defaultdict(list)
    for stage in STAGES:
        for dirpath, _, names in os.walk(os.path.join(root, stage)):
            for n in names:
                if n.endswith((".c", ".cu")):
                    rel = os.path.relpath(os.path.join(dirpath, n), root)
                    files["runner" if stage == "runner" else folder_of(rel)].append(rel)
    out = []
    for folder, fs in files.items():
        defined, words = defaultdict(set), {}
        for rel in fs:
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                text = strip_c(f.read())
            # CUDA's __launch_bounds__(N) and GCC's __attribute__((...)) sit
            # before a function's name: out, or they read as the name
            text = ATTRIBUTE.sub(" ", text)
            body = re.sub(r"\{[^{}]*\}", "{}", text)
            while True:     # bodies out, innermost first: file scope is left
                shorter = re.sub(r"\{[^{}]*\}", "{}", body)
                if shorter == body:
                    break
                body = shorter
            for m in DEF_START.finditer(body):
                defined[m.group(1)].add(rel)
            words[rel] = set(WORD.findall(text))
        for rel in fs:
            to = set()
            for w in words[rel]:
                for d in defined.get(w, ()):
                    if d != rel:
                        to.add(d)
            out.extend((rel, d) for d in sorted(to))
    return out


def wing_of(rel):
    """runner/'s wing of a file (runner/plan/x.c: plan), runner for
    runner/x.c, None outside runner/."""
    parts = rel.split("/")
    if parts[0] != "runner":
        return None
    return parts[1] if len(parts) > 2 else "runner"


def sccs(nodes, adj):
    """Tarjan's strongly connected components (iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(adj[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(adj[w]))))
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
                out.append(sorted(comp))
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = args[0] if args else os.path.join(os.path.dirname(__file__), "..")
    edges = scan(root)
    folder_edges = defaultdict(list)
    for a, b in edges:
        fa, fb = folder_of(a), folder_of(b)
        if fa != fb:
            folder_edges[(fa, fb)].append((a, b))
    print(f"{len(edges)} includes between files of the stages; "
          f"{sum(len(v) for v in folder_edges.values())} cross folders, "
          f"{len(folder_edges)} folder pairs\n")
    print("folder -> folder: includes")
    for (fa, fb), v in sorted(folder_edges.items()):
        print(f"  {fa} -> {fb}: {len(v)}")
    wrong = [(fa, fb, v) for (fa, fb), v in sorted(folder_edges.items())
             if LEVEL[fa.split('/')[0]] < LEVEL[fb.split('/')[0]]]
    print(f"\nupward includes (a lower stage including a higher one): {len(wrong)} folder pairs")
    for fa, fb, v in wrong:
        print(f"  {fa} -> {fb}: {len(v)}, e.g. {v[0][0]} includes {v[0][1]}")
    side = [(fa, fb, v) for (fa, fb), v in sorted(folder_edges.items())
            if {fa.split('/')[0], fb.split('/')[0]} == {"fetch", "kernels"}]
    print(f"\nbetween the side-by-side stages fetch/ and kernels/: {len(side)} folder pairs")
    for fa, fb, v in side:
        print(f"  {fa} -> {fb}: {len(v)}, e.g. {v[0][0]} includes {v[0][1]}")
    adj = defaultdict(set)
    nodes = set()
    for (fa, fb) in folder_edges:
        adj[fa].add(fb)
        nodes |= {fa, fb}
    cyc = [c for c in sccs(sorted(nodes), adj) if len(c) > 1]
    print(f"\ninclude cycles between folders: {len(cyc)}")
    for c in cyc:
        print("  " + " <-> ".join(c))
    fadj = defaultdict(set)
    fnodes = set()
    for a, b in edges:
        if folder_of(a) == folder_of(b):
            fadj[a].add(b)
            fnodes |= {a, b}
    fcyc = [c for c in sccs(sorted(fnodes), fadj) if len(c) > 1]
    print(f"include cycles between files of one folder: {len(fcyc)}")
    for c in fcyc:
        print("  " + " <-> ".join(c))

    wing_edges = defaultdict(list)
    for a, b in edges:
        wa, wb = wing_of(a), wing_of(b)
        if wa and wb and wa != wb:
            wing_edges[(wa, wb)].append((a, b))
    wings = sorted({w for e in wing_edges for w in e} |
                   {wing_of(a) for a, _ in edges if wing_of(a)})
    print(f"\nrunner/'s wings: {len(wings)} ({', '.join(wings)}); "
          f"{sum(len(v) for v in wing_edges.values())} includes between wings, "
          f"{len(wing_edges)} wing pairs")
    for (wa, wb), v in sorted(wing_edges.items()):
        print(f"  {wa} -> {wb}: {len(v)}")
    up = [(wa, wb, v) for (wa, wb), v in sorted(wing_edges.items())
          if WING_LEVEL.get(wa, len(WINGS)) < WING_LEVEL.get(wb, len(WINGS))]
    print(f"upward includes between wings (a lower wing including a higher one): {len(up)} wing pairs")
    for wa, wb, v in up:
        print(f"  {wa} -> {wb}: {len(v)}, e.g. {v[0][0]} includes {v[0][1]}")
    wadj = defaultdict(set)
    for (wa, wb) in wing_edges:
        wadj[wa].add(wb)
    wcyc = [c for c in sccs(sorted(set(wadj) | {b for v in wadj.values() for b in v}), wadj)
            if len(c) > 1]
    print(f"include cycles between wings: {len(wcyc)}")
    for c in wcyc:
        print("  " + " <-> ".join(c))

    cedges = calls(root)
    cadj = defaultdict(set)
    cnodes = set()
    for a, b in cedges:
        cadj[a].add(b)
        cnodes |= {a, b}
    ccyc = [c for c in sccs(sorted(cnodes), cadj) if len(c) > 1]
    in_runner = [c for c in ccyc if c[0].startswith("runner/")]
    print(f"\ncalls between files of one folder: {len(cedges)}; call cycles: {len(ccyc)}, "
          f"{len(in_runner)} in runner/")
    for c in ccyc:
        print("  " + " <-> ".join(c))
    wcalls = defaultdict(int)
    for a, b in cedges:
        wa, wb = wing_of(a), wing_of(b)
        if wa and wb and wa != wb:
            wcalls[(wa, wb)] += 1
    up_calls = [(wa, wb, n) for (wa, wb), n in sorted(wcalls.items())
                if WING_LEVEL.get(wa, len(WINGS)) < WING_LEVEL.get(wb, len(WINGS))]
    if wcalls:
        print(f"calls between runner/'s wings: {sum(wcalls.values())} file pairs, "
              f"{len(up_calls)} wing pairs calling up")
        for wa, wb, n in up_calls:
            print(f"  {wa} -> {wb}: {n}")

    if "--files" in sys.argv:
        print("\nevery cross-folder include:")
        for (fa, fb), v in sorted(folder_edges.items()):
            for a, b in v:
                print(f"  {a} -> {b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
