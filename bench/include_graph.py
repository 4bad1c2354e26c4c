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
    files inside one folder (the Matrix Market reader's, the download's).

Exit status 0 always: this measures, it does not gate. `--files` also lists
every cross-folder include. Standard library only."""
import os
import re
import sys
from collections import defaultdict

STAGES = ["core", "fetch", "kernels", "db", "runner", "plots"]
# a stage may include those of lower or equal level only
LEVEL = {"core": 0, "fetch": 1, "kernels": 1, "db": 2, "runner": 3, "plots": 3}
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
    if "--files" in sys.argv:
        print("\nevery cross-folder include:")
        for (fa, fb), v in sorted(folder_edges.items()):
            for a, b in v:
                print(f"  {a} -> {b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
