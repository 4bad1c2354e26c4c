#!/usr/bin/env python3
"""gpu_spmv_report.py DB — the table of `make bench-gpu` from the sweep
database, per precision the sweep ran: per matrix, our best GPU run against
the strongest vendor run at the same precision (every cuSPARSE algorithm),
read from the `own_vs_vendor` view: the ratio (vendor time / own time: > 1
means ours is faster) with its conservative interval and verdict ("same"
when the two intervals overlap), and our run's fraction of the device's
memory roof (the operation's byte model at the sweep's measured device
copy bandwidth); then the geomean from `own_vs_vendor_geomean` (with the
geomeans of the per-matrix bounds: a bracket, not a confidence interval).
The same rows are the report's spmv-own-vs-vendor tables: the rule lives in
db/views.sql, once. Standard library only."""
import sqlite3
import sys

from own_vs_vendor import geomean_lines, ratio_text


def axes_text(axes):
    return axes.replace('"', '').replace('{', '').replace('}', '').replace(':', '=')


def table(con, prec):
    print(f"\n{prec} precision:\n")
    print("| matrix | rows | nnz | best own kernel (axes) | GFLOPS | strongest cuSPARSE (axes) "
          "| GFLOPS | own / cuSPARSE [bounds] | own % of roof |")
    print("| --- | ---: | ---: | --- | ---: | --- | ---: | ---: | ---: |")
    for (name, rows, nnz, ok, oa, orate, vk, va, vrate, r, lo, hi, verdict,
         roof) in con.execute(
            "SELECT matrix, rows, nnz, own_kernel, own_axes, own_rate, vendor_kernel, "
            "vendor_axes, vendor_rate, ratio, ratio_lo, ratio_hi, verdict, own_roof_ratio "
            "FROM own_vs_vendor WHERE operation = 'spmv' AND device = 'gpu' AND "
            "precision = ? ORDER BY matrix_id", (prec,)):
        roof_s = "-" if roof is None else f"{100 * roof:.0f} %"
        if vk is None:
            print(f"| {name} | {rows} | {nnz} | {ok} ({axes_text(oa)}) | {orate:.1f} | - | | "
                  f"| {roof_s} |")
            continue
        print(f"| {name} | {rows} | {nnz} | {ok} ({axes_text(oa)}) | {orate:.1f} | "
              f"{vk} ({axes_text(va)}) | {vrate:.1f} | {ratio_text(r, lo, hi, verdict)} | "
              f"{roof_s} |")
    geomean_lines(con, 'spmv', prec, 'own / cuSPARSE')


def main():
    con = sqlite3.connect(sys.argv[1])
    gpu, bw = con.execute("SELECT gpu, device_copy_gbs FROM sweeps ORDER BY id DESC "
                          "LIMIT 1").fetchone() or (None, None)
    bw_s = "not measured" if bw is None else f"{bw:.0f} GB/s (read + write)"
    print(f"GPU: {gpu or '?'}; device copy bandwidth {bw_s}; kernel time, median of the "
          "samples")
    for (prec,) in con.execute("SELECT DISTINCT precision FROM run_stats ORDER BY 1"):
        table(con, prec)
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
        "q.precision = 'double' "
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
