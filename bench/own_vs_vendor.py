"""own_vs_vendor.py — what the GPU bench reports print from the views
own_vs_vendor and own_vs_vendor_geomean (db/views.sql), once for every
report: a ratio with its bounds and verdict, and the geomean lines of an
operation at one precision. Imported by bench/gpu_spmv_report.py and
bench/gpu_transpose_report.py (run from any folder: Python puts the
script's own folder first on the path). Standard library only."""


def ratio_text(r, lo, hi, verdict):
    """'1.46 [1.02, 2.37]', ' same' added when the intervals overlap."""
    iv = "" if lo is None or hi is None else f" [{lo:.2f}, {hi:.2f}]"
    return f"{r:.2f}{iv}{' same' if verdict == 'same' else ''}"


def geomean_lines(con, op, prec, label):
    """One line per scope (all matrices; those of >= 10^6 nonzeros)."""
    for scope, n, g, glo, ghi, worst, wm, fa, sa, sl in con.execute(
            "SELECT scope, matrices, geomean, geomean_lo, geomean_hi, worst, worst_matrix, "
            "faster, same, slower FROM own_vs_vendor_geomean WHERE operation = ? AND "
            "device = 'gpu' AND precision = ? ORDER BY scope", (op, prec)):
        br = "" if glo is None else f" [{glo:.2f}, {ghi:.2f}]"
        print(f"\ngeomean {label} ({prec}, {scope}) over {n} matrices: {g:.2f}{br}; "
              f"worst {worst:.2f} ({wm}); {fa} faster, {sa} same, {sl} slower")
