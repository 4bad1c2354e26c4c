#!/usr/bin/env python3
"""gpu_transpose_report.py DB [PRIM_DB] — the tables of
`make bench-gpu-transpose`: per matrix the median kernel time of every GPU
transposition kernel (best axes); then, per precision, our best kernel
against cusparseCsr2cscEx2 from the `own_vs_vendor` view (our designs on
CUB's primitives count as ours: cuSPARSE is the vendor here), the ratio
(cuSPARSE time / own time: > 1 means ours is faster) with its conservative
interval and verdict, our run's bandwidth (the operation's byte model: the
CSR read once, the CSC written once) as a fraction of the sweep's measured
device copy, and the geomeans from `own_vs_vendor_geomean`, over all
matrices and over those of >= 10^6 nonzeros (the smaller ones are
launch-bound: their ratios move with cuSPARSE's launches); then, from
PRIM_DB, each primitive's median time per block size. The ratios are the
report's transpose-own-vs-vendor tables: the rule lives in db/views.sql.
Standard library only."""
import sqlite3
import sys

from own_vs_vendor import geomean_lines, ratio_text


def axes_text(axes):
    t = axes.replace('"', '').replace('{', '').replace('}', '').replace(':', '=')
    return f" ({t})" if t else ""


def transpose_tables(con):
    gpu, bw = con.execute("SELECT gpu, device_copy_gbs FROM sweeps ORDER BY id DESC "
                          "LIMIT 1").fetchone() or (None, None)
    bw_s = "not measured" if bw is None else f"{bw:.0f} GB/s (read + write)"
    print(f"GPU: {gpu or '?'}; device copy bandwidth {bw_s}; kernel time (the harness's "
          "CUDA events), median of the samples\n")
    kernels = [k for (k,) in con.execute(
        "SELECT DISTINCT kernel FROM runs WHERE operation = 'transpose' ORDER BY backend, kernel")]
    precs = [p for (p,) in con.execute(
        "SELECT DISTINCT precision FROM run_stats WHERE operation = 'transpose' ORDER BY 1")]
    print("| matrix | nnz | precision | " +
          " | ".join(k.replace("transpose_", "") + " ms" for k in kernels) + " |")
    print("| --- | ---: | --- |" + " ---: |" * len(kernels))
    mats = con.execute("SELECT id, name, nnz FROM matrices ORDER BY id").fetchall()
    for prec in precs:
        for mid, name, nnz in mats:
            cells = []
            for k in kernels:
                r = con.execute("SELECT min(median) FROM run_stats WHERE matrix_id = ? AND "
                                "kernel = ? AND precision = ?", (mid, k, prec)).fetchone()
                cells.append("-" if r[0] is None else f"{1e3 * r[0]:.3f}")
            print(f"| {name} | {nnz} | {prec} | " + " | ".join(cells) + " |")
    for prec in precs:
        print(f"\n{prec} precision:\n")
        print("| matrix | nnz | best own (axes) | ms | GB/s | % of copy | cuSPARSE ms | "
              "cuSPARSE / own [bounds] |")
        print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
        for (name, nnz, ok, oa, om, gbps, roof, vm, r, lo, hi, verdict) in con.execute(
                "SELECT matrix, nnz, own_kernel, own_axes, own_median, own_gbps, "
                "own_roof_ratio, vendor_median, ratio, ratio_lo, ratio_hi, verdict "
                "FROM own_vs_vendor WHERE operation = 'transpose' AND device = 'gpu' AND "
                "precision = ? ORDER BY matrix_id", (prec,)):
            roof_s = "-" if roof is None else f"{100 * roof:.0f} %"
            if vm is None:
                print(f"| {name} | {nnz} | {ok}{axes_text(oa)} | {1e3 * om:.3f} | {gbps:.0f} | "
                      f"{roof_s} | - | |")
                continue
            print(f"| {name} | {nnz} | {ok}{axes_text(oa)} | {1e3 * om:.3f} | {gbps:.0f} | "
                  f"{roof_s} | {1e3 * vm:.3f} | {ratio_text(r, lo, hi, verdict)} |")
        geomean_lines(con, 'transpose', prec, 'cuSPARSE / best own')
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
    transpose_tables(con)
    if len(sys.argv) > 2:
        prim_table(sqlite3.connect(sys.argv[2]))


main()
