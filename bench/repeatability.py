#!/usr/bin/env python3
"""repeatability.py RUN1.db RUN2.db [--compare CSV] [--md FILE] [--title TEXT]

Does a sweep's stated uncertainty predict a re-run? (issue 19, Evidence.)
RUN1 and RUN2 hold the same config swept twice (bench/repeatability.sh).
Each combination (matrix source, operation, kernel, axes) of the latest
sweep with successful runs of RUN1 is paired with the same one in RUN2 and,
per time scale of its median (< 20 us, 20 us - 1 ms, > 1 ms; the smaller of
the two medians: a run slowed down by a busy machine does not move a
microsecond kernel into the millisecond row) and overall, the table gives:
  combinations   the pairs;
  overlap        the fraction whose 95 % intervals [ci_lo, ci_hi] overlap
                 (a run with too few samples for an interval, ci_lo NULL,
                 uses the range of its samples here; run_stats and
                 `spsweep compare` call it noisy);
  half-width     the median over both runs of (ci_hi - ci_lo) / 2 / median;
  mean gap, max gap   |median2 - median1| / median1;
  flagged noisy  of the pairs that do not overlap, the fraction where either
                 run is marked noisy in run_stats (its `noisy` column) or was
                 measured on an unfit machine (its `flags`: throttled, busy or
                 a clock drop, which `spsweep compare` calls noisy too), or
                 "absent" when run_stats has no `noisy` column;
  compare calls  with --compare (the CSV of `spsweep compare RUN1 RUN2
                 --csv`): the pairs that compare called slower or faster —
                 on a re-run of the same config, every one is a false alarm —
                 and, of the pairs that do not overlap, those compare
                 called noisy (or same).
Only the standard library (sqlite3, statistics): the GPU machine may lack
pandas and scipy, and the sqlite3 shell. The databases are opened read-only.
"""
import argparse
import csv
import sqlite3
import statistics
import sys

SCALES = [("< 20 us", 0.0, 20e-6), ("20 us - 1 ms", 20e-6, 1e-3), ("> 1 ms", 1e-3, float("inf"))]
GOAL_S = 100e-6         # issue 19: median half-width <= 2 % for kernels over 100 us
WIDEST = 8              # how many of those the table names


def width(r):
    """A run's half-width relative to its median."""
    return (r["hi"] - r["lo"]) / 2 / r["median"]


def connect(path):
    try:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as e:
        sys.exit(f"repeatability.py: {path}: {e}")


def latest_sweep(con, path):
    row = con.execute("SELECT coalesce((SELECT MAX(sweep_id) FROM runs WHERE status = 'ok'),"
                      " (SELECT MAX(id) FROM sweeps))").fetchone()
    if not row or row[0] is None:
        sys.exit(f"repeatability.py: {path}: no sweep")
    return row[0]


def load(path):
    """{key: run} for the latest sweep's ok runs, and whether run_stats has `noisy`."""
    con = connect(path)
    try:
        cols = {r[1] for r in con.execute("PRAGMA table_info(run_stats)")}
        if not {"median", "ci_lo", "ci_hi", "n"} <= cols:
            sys.exit(f"repeatability.py: {path}: run_stats lacks median, ci_lo, ci_hi or n")
        sweep = latest_sweep(con, path)
        noisy = ", s.noisy" if "noisy" in cols else ", NULL"
        # SP_CMP_UNFIT_FLAGS (db/compare.h): throttled, busy, clock drop
        noisy += ", s.flags & 7" if "flags" in cols else ", 0"
        rows = con.execute(
            "SELECT m.source, s.operation, s.kernel, s.axes, s.median, s.ci_lo, s.ci_hi,"
            " s.n, x.lo, x.hi" + noisy + " FROM run_stats s"
            " JOIN matrices m ON m.id = s.matrix_id"
            " JOIN (SELECT run_id, MIN(seconds) AS lo, MAX(seconds) AS hi FROM samples"
            "       GROUP BY run_id) x ON x.run_id = s.run_id"
            " WHERE s.sweep_id = ?", (sweep,)).fetchall()
    except sqlite3.Error as e:
        sys.exit(f"repeatability.py: {path}: {e}")
    runs = {}
    for src, op, kernel, axes, med, lo, hi, n, smin, smax, nz, unfit in rows:
        ranged = lo is None or hi is None
        runs[(src, op, kernel, axes)] = {
            "median": med, "lo": smin if ranged else lo, "hi": smax if ranged else hi,
            "ranged": ranged, "noisy": bool(nz) or bool(unfit)}
    return runs, sweep, "noisy" in cols


def compare_calls(path):
    """{key: verdict} from `spsweep compare --csv`."""
    with open(path, newline="") as f:
        return {(r["source"], r["operation"], r["kernel"], r["axes"]): r["verdict"]
                for r in csv.DictReader(f)}


def pct(x):
    return "-" if x is None else f"{100 * x:.1f} %"


def summarize(pairs, has_noisy, calls):
    """One row of the table for a list of (run1, run2, key)."""
    if not pairs:
        return None
    overlap = [a["lo"] <= b["hi"] and b["lo"] <= a["hi"] for a, b, _ in pairs]
    widths = [width(r) for a, b, _ in pairs for r in (a, b)]
    gaps = [abs(b["median"] - a["median"]) / a["median"] for a, b, _ in pairs]
    apart = [(a, b) for (a, b, _), o in zip(pairs, overlap) if not o]
    if not has_noisy:
        flagged = "absent"
    elif not apart:
        flagged = "-"
    else:
        n = sum(a["noisy"] or b["noisy"] for a, b in apart)
        flagged = f"{n} of {len(apart)} ({100 * n / len(apart):.0f} %)"
    row = [str(len(pairs)), f"{sum(overlap)} ({pct(sum(overlap) / len(pairs))})",
           pct(statistics.median(widths)), pct(statistics.fmean(gaps)), pct(max(gaps)), flagged]
    if calls is not None:
        called = sum(calls.get(k) in ("slower", "faster") for _, _, k in pairs)
        row.append(f"{called} ({pct(called / len(pairs))})")
        keys = [k for (_, _, k), o in zip(pairs, overlap) if not o]
        quiet = sum(calls.get(k) == "noisy" for k in keys)
        row.append(f"{quiet} of {len(keys)} noisy, {sum(calls.get(k) == 'same' for k in keys)}"
                   " same" if keys else "-")
    return row


def table(run1, run2, has_noisy, calls):
    keys = sorted(set(run1) & set(run2))
    pairs = [(run1[k], run2[k], k) for k in keys]
    head = ["time scale", "combinations", "overlap", "median half-width", "mean gap",
            "max gap", "non-overlapping flagged noisy"]
    if calls is not None:
        head += ["compare: slower/faster (false alarms)", "compare on non-overlapping"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, lo, hi in SCALES:
        sel = [p for p in pairs if lo <= min(p[0]["median"], p[1]["median"]) < hi]
        row = summarize(sel, has_noisy, calls)
        lines.append("| " + " | ".join([name] + (row or ["0"] + ["-"] * (len(head) - 2))) + " |")
    row = summarize(pairs, has_noisy, calls)
    lines.append("| " + " | ".join(["**all**"] + (row or ["0"] + ["-"] * (len(head) - 2))) + " |")
    # the goal is stated on this scale: median half-width <= 2 %
    sel = [p for p in pairs if min(p[0]["median"], p[1]["median"]) >= GOAL_S]
    row = summarize(sel, has_noisy, calls)
    lines.append("| " + " | ".join(["> 100 us (goal)"] + (row or ["0"] + ["-"] * (len(head) - 2)))
                 + " |")
    # the widest of them, by name: what keeps that median up
    wide = sorted(sel, key=lambda p: -max(width(p[0]), width(p[1])))[:WIDEST]
    if wide:
        lines += ["", f"Widest over 100 us (half-width in run 1 / run 2, median of run 1):", "",
                  "| matrix | kernel | axes | median | half-width |", "|---|---|---|---|---|"]
        for a, b, (src, _, kernel, axes) in wide:
            lines.append(f"| {src} | {kernel} | {axes} | {a['median'] * 1e6:.1f} us | "
                         f"{pct(width(a))} / {pct(width(b))} |")
    ranged = sum(a["ranged"] or b["ranged"] for a, b, _ in pairs)
    notes = []
    if ranged:
        notes.append(f"{ranged} combinations had too few samples for an interval: the range "
                     "of their samples stands in for the overlap; they are noisy.")
    only = len(set(run1) ^ set(run2))
    if only:
        notes.append(f"{only} combinations were measured in one run only (not counted).")
    if not has_noisy:
        notes.append("run_stats has no `noisy` column in these databases: the flag is absent.")
    return "\n".join(lines), notes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run1")
    ap.add_argument("run2")
    ap.add_argument("--compare", help="the CSV of `spsweep compare RUN1 RUN2 --csv`")
    ap.add_argument("--md", help="also write the Markdown here")
    ap.add_argument("--title", default="", help="a line above the table")
    a = ap.parse_args()
    run1, sweep1, noisy1 = load(a.run1)
    run2, sweep2, noisy2 = load(a.run2)
    calls = compare_calls(a.compare) if a.compare else None
    tab, notes = table(run1, run2, noisy1 and noisy2, calls)
    text = (f"{a.title}\n\n" if a.title else "") + \
        f"Run 1: {a.run1} (sweep {sweep1}); run 2: {a.run2} (sweep {sweep2}). " \
        "Half-width: of the 95 % interval of the median, in % of the median; gap: " \
        "|median 2 - median 1| / median 1.\n\n" + tab + "\n" + \
        "".join(f"\n- {n}" for n in notes) + ("\n" if notes else "")
    print(text, end="")
    if a.md:
        with open(a.md, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
