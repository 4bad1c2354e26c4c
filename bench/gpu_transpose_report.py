#!/usr/bin/env python3
"""gpu_transpose_report.py DB COPY_GBS [PRIM_DB] — the tables of
`make bench-gpu-transpose`: per matrix the median kernel time of every GPU
transposition kernel (best axes), the best own kernel (backends 'cuda' and
'cub') against cusparseCsr2cscEx2, the ratio (cuSPARSE time / own time: > 1
means ours is faster) and its geomean, and the own kernel's effective
bandwidth (bytes: read the CSR once, write the CSC once, nnz*24 + rows*4 +
cols*4) as a fraction of the device copy bandwidth; then, from PRIM_DB,
each primitive's median time per block size. Standard library only."""
import math
import sqlite3
import sys


# matrices of at least this many nonzeros get a geomean of their own (the
# smaller ones are launch-bound: their ratios move with cuSPARSE's launches)
LARGE_NNZ = 1000000

def best(con, mid, where, args=()):
    return con.execute(
        "SELECT kernel, axes, median, gbps FROM run_stats WHERE matrix_id = ? AND " + where +
        " ORDER BY median LIMIT 1", (mid,) + tuple(args)).fetchone()


def axes_text(axes):
    t = axes.replace('"', '').replace('{', '').replace('}', '').replace(':', '=')
    return f" ({t})" if t else ""


def transpose_tables(con, bw):
    gpu = con.execute("SELECT gpu FROM sweeps ORDER BY id DESC LIMIT 1").fetchone()
    print(f"GPU: {gpu[0] if gpu else '?'}; device copy bandwidth {bw:.0f} GB/s "
          "(read + write); kernel time (CUDA events), median of 20\n")
    kernels = [k for (k,) in con.execute(
        "SELECT DISTINCT kernel FROM runs WHERE operation = 'transpose' ORDER BY backend, kernel")]
    print("| matrix | nnz | " + " | ".join(k.replace("transpose_", "") + " ms" for k in kernels) +
          " |")
    print("| --- | ---: |" + " ---: |" * len(kernels))
    mats = con.execute("SELECT id, name, rows, cols, nnz FROM matrices ORDER BY id").fetchall()
    for mid, name, rows, cols, nnz in mats:
        cells = []
        for k in kernels:
            r = best(con, mid, "kernel = ?", (k,))
            cells.append("-" if not r else f"{1e3 * r[2]:.3f}")
        print(f"| {name} | {nnz} | " + " | ".join(cells) + " |")
    print("\n| matrix | best own (axes) | ms | GB/s | % of copy | cuSPARSE ms | "
          "cuSPARSE / own |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    ratios, large = [], []
    for mid, name, rows, cols, nnz in mats:
        own = best(con, mid, "backend IN ('cuda', 'cub') AND operation = 'transpose'")
        ven = best(con, mid, "backend = 'cusparse' AND operation = 'transpose'")
        if not own or not ven:
            print(f"| {name} | {own[0] if own else '-'} | | | | | |")
            continue
        ratio = ven[2] / own[2]
        ratios.append(ratio)
        if nnz >= LARGE_NNZ:
            large.append(ratio)
        print(f"| {name} | {own[0]}{axes_text(own[1])} | {1e3 * own[2]:.3f} | {own[3]:.0f} | "
              f"{100 * own[3] / bw:.0f} % | {1e3 * ven[2]:.3f} | {ratio:.2f} |")
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\ngeomean cuSPARSE / best own over {len(ratios)} matrices: {geo:.2f}; "
              f"worst {min(ratios):.2f}, best {max(ratios):.2f}")
    if large and len(large) < len(ratios):
        # small matrices are launch-bound: their ratios move with cuSPARSE's launch costs
        geo = math.exp(sum(math.log(r) for r in large) / len(large))
        print(f"geomean over the {len(large)} matrices of at least {LARGE_NNZ} nonzeros: "
              f"{geo:.2f}")
    for f in con.execute("SELECT matrix, kernel, axes, status, error FROM run_failures"):
        print(f"not ok: {f}")



def prim_table(con):
    print("\nPrimitives: median kernel time in ms per block size\n")
    rows = con.execute(
        "SELECT matrix, kernel, blocksize, median FROM run_stats "
        "ORDER BY matrix_id, kernel, blocksize").fetchall()
    sizes = sorted({r[2] for r in rows if r[2] is not None})
    print("| matrix | primitive | " + " | ".join(f"bs {s}" for s in sizes) + " |")
    print("| --- | --- |" + " ---: |" * len(sizes))
    seen = {}
    for m, k, b, med in rows:
        seen.setdefault((m, k), {})[b] = med
    for (m, k), t in seen.items():
        print(f"| {m} | {k} | " + " | ".join(
            f"{1e3 * t[s]:.3f}" if s in t else "-" for s in sizes) + " |")
    for f in con.execute("SELECT matrix, kernel, axes, status, error FROM run_failures"):
        print(f"not ok: {f}")


def main():
    con = sqlite3.connect(sys.argv[1])
    transpose_tables(con, float(sys.argv[2]))
    if len(sys.argv) > 3:
        prim_table(sqlite3.connect(sys.argv[3]))


main()
