#!/usr/bin/env python3
"""gpu_spmv_report.py DB COPY_GBS — the table of `make bench-gpu` from the
sweep database: per matrix, the best own CUDA kernel (backend 'cuda') and the
best cuSPARSE algorithm by median kernel time, their ratio (cuSPARSE time /
own time: > 1 means ours is faster), the geomean of the ratios, and the best
own kernel's fraction of the min-bytes bound: (nnz*12 + rows*12 + cols*8)
bytes at the measured device copy bandwidth. Standard library only."""
import math
import sqlite3
import sys


def best(con, matrix_id, backend):
    return con.execute(
        "SELECT kernel, axes, median, gflops FROM run_stats WHERE matrix_id = ? AND "
        "backend = ? ORDER BY median LIMIT 1", (matrix_id, backend)).fetchone()


def axes_text(axes):
    return axes.replace('"', '').replace('{', '').replace('}', '').replace(':', '=')


def main():
    db, bw = sys.argv[1], float(sys.argv[2])
    con = sqlite3.connect(db)
    gpu = con.execute("SELECT gpu FROM sweeps ORDER BY id DESC LIMIT 1").fetchone()
    print(f"GPU: {gpu[0] if gpu else '?'}; device copy bandwidth {bw:.0f} GB/s "
          "(read + write); kernel time, median of 20\n")
    print("| matrix | rows | nnz | best own kernel (axes) | GFLOPS | best cuSPARSE (axes) "
          "| GFLOPS | own / cuSPARSE | own % of bound |")
    print("| --- | ---: | ---: | --- | ---: | --- | ---: | ---: | ---: |")
    ratios = []
    for mid, name, rows, cols, nnz in con.execute(
            "SELECT id, name, rows, cols, nnz FROM matrices ORDER BY id").fetchall():
        own, ven = best(con, mid, "cuda"), best(con, mid, "cusparse")
        if not own or not ven:
            print(f"| {name} | {rows} | {nnz} | {'-' if not own else own[0]} | | "
                  f"{'-' if not ven else ven[0]} | | | |")
            continue
        ratio = ven[2] / own[2]
        ratios.append(ratio)
        bound = (nnz * 12 + rows * 12 + cols * 8) / (bw * 1e9)
        print(f"| {name} | {rows} | {nnz} | {own[0]} ({axes_text(own[1])}) | {own[3]:.1f} | "
              f"{ven[0]} ({axes_text(ven[1])}) | {ven[3]:.1f} | {ratio:.2f} | "
              f"{100 * bound / own[2]:.0f} % |")
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\ngeomean own / cuSPARSE over {len(ratios)} matrices: {geo:.2f}; "
              f"worst {min(ratios):.2f}")
    fails = con.execute("SELECT matrix, kernel, axes, status, error FROM run_failures "
                        "WHERE status <> 'skipped'").fetchall()
    for f in fails:
        print(f"failed: {f}")
    print("\nPer family, best GFLOPS per matrix:\n")
    kernels = [k for (k,) in con.execute("SELECT DISTINCT kernel FROM runs ORDER BY backend, kernel")]
    print("| matrix | " + " | ".join(k.replace("spmv_", "") for k in kernels) + " |")
    print("| --- |" + " ---: |" * len(kernels))
    for mid, name in con.execute("SELECT id, name FROM matrices ORDER BY id").fetchall():
        cells = []
        for k in kernels:
            r = con.execute("SELECT max(gflops) FROM run_stats WHERE matrix_id = ? AND kernel = ?",
                            (mid, k)).fetchone()
            cells.append("-" if r[0] is None else f"{r[0]:.0f}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    payoff(con)


def payoff(con):
    """Per matrix, the best own run's conversion against the vendor
    baseline's, and after how many products it pays (the `speedup` view's
    vendor_payoff: the rule lives in db/views.sql)."""
    rows = con.execute(
        "SELECT s.matrix, s.kernel, s.axes, s.convert_s, s.vendor_kernel, s.vendor_convert_s, "
        "s.median, s.vendor_median, s.vendor_payoff FROM speedup s WHERE s.run_id = "
        "(SELECT t.run_id FROM speedup t JOIN run_stats q ON q.run_id = t.run_id WHERE "
        "q.backend = 'cuda' AND t.matrix_id = s.matrix_id ORDER BY t.median LIMIT 1) "
        "ORDER BY s.matrix_id").fetchall()
    if not rows:
        return
    print("\nWhen the conversion pays (the `speedup` view): the best own run's conversion "
          "(prepare + analyse) against the vendor baseline's, in ms, and the products after "
          "which it is ahead, conversion included:\n")
    print("| matrix | best own | conversion | vendor baseline | its conversion | "
          "time own / vendor (us) | pays after |")
    print("| --- | --- | ---: | --- | ---: | ---: | ---: |")
    for m, k, a, c, vk, vc, t, vt, n in rows:
        ms = lambda v: "-" if v is None else f"{v * 1e3:.2f}"
        vt_us = "-" if vt is None else f"{vt * 1e6:.2f}"
        print(f"| {m} | {k} ({axes_text(a)}) | {ms(c)} | {vk or '-'} | {ms(vc)} | "
              f"{t * 1e6:.2f} / {vt_us} | {'never' if n is None else n} |")


main()
