#!/usr/bin/env python3
"""gpu_spmv_report.py DB COPY_GBS — the table of `make bench-gpu` from the
sweep database, per precision the sweep ran: per matrix, the best own CUDA
kernel (backend 'cuda', by median) against the strongest vendor run at the
same precision (every cuSPARSE algorithm), from the `speedup` view's
best_vendor_* columns: the ratio (vendor time / own time: > 1 means ours is
faster) with its conservative interval, "same" when the two intervals
overlap; the geomean of the ratios with the geomeans of the per-matrix
bounds (a bracket, not a confidence interval); the best own kernel's
fraction of the min-bytes bound: (nnz*(4+v) + rows*(4+v) + cols*v) bytes at
the measured device copy bandwidth, v the value's bytes. Standard library
only."""
import math
import sqlite3
import sys

PREC = "coalesce(json_extract(axes, '$.precision'), 'double')"


def axes_text(axes):
    return axes.replace('"', '').replace('{', '').replace('}', '').replace(':', '=')


def geo(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def table(con, bw, prec):
    v = 4 if prec == "single" else 8
    print(f"\n{prec} precision:\n")
    print("| matrix | rows | nnz | best own kernel (axes) | GFLOPS | strongest cuSPARSE (axes) "
          "| GFLOPS | own / cuSPARSE [bounds] | own % of bound |")
    print("| --- | ---: | ---: | --- | ---: | --- | ---: | ---: | ---: |")
    ratios, los, his = [], [], []
    for mid, name, rows, cols, nnz in con.execute(
            "SELECT id, name, rows, cols, nnz FROM matrices ORDER BY id").fetchall():
        own = con.execute(
            f"SELECT run_id, kernel, axes, median, gflops FROM run_stats WHERE matrix_id = ? "
            f"AND backend = 'cuda' AND {PREC} = ? ORDER BY median LIMIT 1",
            (mid, prec)).fetchone()
        if not own:
            continue
        s = con.execute(
            "SELECT best_vendor_kernel, best_vendor_axes, best_vendor_median, "
            "best_vendor_speedup, best_vendor_speedup_lo, best_vendor_speedup_hi, "
            "best_vendor_same FROM speedup WHERE run_id = ?", (own[0],)).fetchone()
        bound = (nnz * (4 + v) + rows * (4 + v) + cols * v) / (bw * 1e9)
        if not s or s[0] is None:
            print(f"| {name} | {rows} | {nnz} | {own[1]} ({axes_text(own[2])}) | "
                  f"{own[4]:.1f} | - | | | {100 * bound / own[3]:.0f} % |")
            continue
        vk, va, vm, r, lo, hi, same = s
        ratios.append(r)
        if lo is not None and hi is not None:
            los.append(lo)
            his.append(hi)
        iv = "" if lo is None or hi is None else f" [{lo:.2f}, {hi:.2f}]"
        print(f"| {name} | {rows} | {nnz} | {own[1]} ({axes_text(own[2])}) | {own[4]:.1f} | "
              f"{vk} ({axes_text(va)}) | {own[4] * own[3] / vm:.1f} | {r:.2f}{iv}"
              f"{' same' if same == 1 else ''} | {100 * bound / own[3]:.0f} % |")
    if ratios:
        br = (f" [{geo(los):.2f}, {geo(his):.2f}]" if len(los) == len(ratios) else "")
        print(f"\ngeomean own / cuSPARSE ({prec}) over {len(ratios)} matrices: "
              f"{geo(ratios):.2f}{br}; worst {min(ratios):.2f}")


def main():
    db, bw = sys.argv[1], float(sys.argv[2])
    con = sqlite3.connect(db)
    gpu = con.execute("SELECT gpu FROM sweeps ORDER BY id DESC LIMIT 1").fetchone()
    print(f"GPU: {gpu[0] if gpu else '?'}; device copy bandwidth {bw:.0f} GB/s "
          "(read + write); kernel time, median of the samples")
    for (prec,) in con.execute(f"SELECT DISTINCT {PREC} FROM run_stats ORDER BY 1"):
        table(con, bw, prec)
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
        "q.backend = 'cuda' AND t.matrix_id = s.matrix_id AND "
        "coalesce(json_extract(t.axes, '$.precision'), 'double') = 'double' "
        "ORDER BY t.median LIMIT 1) "
        "ORDER BY s.matrix_id").fetchall()
    if not rows:
        return
    print("\nWhen the conversion pays (the `speedup` view): the best own run's conversion "
          "(prepare + analyse) against the vendor baseline's, in ms, and the products after "
          "which it is ahead, conversion included (double precision):\n")
    print("| matrix | best own | conversion | vendor baseline | its conversion | "
          "time own / vendor (us) | pays after |")
    print("| --- | --- | ---: | --- | ---: | ---: | ---: |")
    for m, k, a, c, vk, vc, t, vt, n in rows:
        ms = lambda v: "-" if v is None else f"{v * 1e3:.2f}"
        vt_us = "-" if vt is None else f"{vt * 1e6:.2f}"
        print(f"| {m} | {k} ({axes_text(a)}) | {ms(c)} | {vk or '-'} | {ms(vc)} | "
              f"{t * 1e6:.2f} / {vt_us} | {'never' if n is None else n} |")


main()
