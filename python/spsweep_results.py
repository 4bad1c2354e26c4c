#!/usr/bin/env python3
"""spsweep_results.py — load an spsweep results database into Python.

Standard library only (sqlite3, json); pandas is optional and needed only by
to_dataframe(). The rows of a table or view (run_stats by default, the
views and tables of docs/database.md) come back as records, one dict per
row, with the JSON-valued columns parsed (axes, kernel_info) and the axes
spread into columns of their own: one key per axis name (threads,
blocksize, hack, ...), None where a row's kernel has no such axis.

    import spsweep_results as sr
    runs = sr.load("results/results.db")                 # latest sweep, run_stats
    best = sr.load("results/results.db", view="best_runs", sweep=3)
    df = sr.to_dataframe("results/results.db")           # pandas.DataFrame
    df.groupby(["kernel", "threads"])["rate"].max()

    python3 python/spsweep_results.py results/results.db [--view V] [--sweep N|all] [--csv]

prints a summary of a sweep (or, with --csv, its expanded rows as CSV).

The database is opened read-only: loading never writes it.
"""
import argparse
import csv
import json
import pathlib
import sqlite3
import sys

__all__ = ["load", "to_dataframe", "axis_names", "views", "sweeps", "summary"]

# Columns holding JSON text (the schema checks them with json_valid).
JSON_COLUMNS = ("axes", "kernel_info", "state_before", "state_after")

# How each table or view is narrowed to one sweep (? = the sweep id); a
# table or view that is not listed and has a sweep_id column is filtered
# by it, any other is read whole.
_SWEEP_FILTER = {
    "sweeps": "id = ?",
    "samples": "run_id IN (SELECT id FROM runs WHERE sweep_id = ?)",
    "run_rounds": "run_id IN (SELECT id FROM runs WHERE sweep_id = ?)",
    "energy_windows": "run_id IN (SELECT id FROM runs WHERE sweep_id = ?)",
    "matrices": "id IN (SELECT matrix_id FROM runs WHERE sweep_id = ?)",
}

# Row order per table or view (else SQLite's).
_ORDER = {
    "run_stats": "run_id", "runs": "id", "speedup": "run_id", "run_modes": "run_id, mode",
    "best_runs": "matrix_id, operation", "samples": "run_id, rep", "matrices": "id",
    "sweeps": "id",
}


def _connect(db):
    """A read-only connection to the database file db. A WAL database in a
    directory this user cannot write (no -shm can be made) is read as
    immutable, as `spsweep export` reads it."""
    path = pathlib.Path(db)
    if not path.is_file():
        raise OSError(f"{db}: no such database file")
    uri = path.resolve().as_uri()
    error = None
    for query in ("?mode=ro", "?mode=ro&immutable=1"):
        try:
            con = sqlite3.connect(uri + query, uri=True)
            con.execute("SELECT 1 FROM sqlite_master LIMIT 1")
            return con
        except sqlite3.Error as e:
            error = error or e
    raise OSError(f"{db}: cannot open as an spsweep database: {error}")


def views(db):
    """The names of the database's tables and views, sorted."""
    con = _connect(db)
    try:
        return sorted(r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
            " AND name NOT LIKE 'sqlite_%'"))
    finally:
        con.close()


def sweeps(db):
    """The database's sweeps as records (id, config_path, started_at, status, host...)."""
    return load(db, view="sweeps", sweep="all", expand_axes=False)


def _resolve_sweep(con, db, sweep):
    """The sweep id to filter by: None -> the latest, "all" -> None (every sweep)."""
    if sweep == "all":
        return None
    ids = [r[0] for r in con.execute("SELECT id FROM sweeps ORDER BY id")]
    if sweep is None:
        if not ids:
            raise ValueError(f"{db}: no sweep in the database")
        return ids[-1]
    try:
        sweep = int(sweep)
    except (TypeError, ValueError):
        raise ValueError(f"sweep must be an integer id, None (the latest) or 'all', not {sweep!r}") from None
    if sweep not in ids:
        raise ValueError(f"{db}: no sweep {sweep} (sweeps: {', '.join(map(str, ids)) or 'none'})")
    return sweep


def _parse_json(value):
    """JSON text as Python values; anything else (NULL, not JSON) as it is."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def axis_names(records):
    """The axis names of the records' axes dicts, in first-seen order."""
    names = []
    for r in records:
        axes = r.get("axes")
        if isinstance(axes, dict):
            names.extend(k for k in axes if k not in names)
    return names


def _expand(records, columns):
    """Put every axis into a key of its own, after "axes"; None where
    a record has no such axis. An axis whose name is a column holding other
    values (not this axis's copy, as run_stats' threads and blocksize are)
    is named axis_<name> instead."""
    names = axis_names(records)
    key = {}
    for name in names:
        clash = name in columns and any(
            r.get(name) is not None and isinstance(r.get("axes"), dict)
            and r[name] != r["axes"].get(name) for r in records)
        key[name] = f"axis_{name}" if clash else name
    at = columns.index("axes") + 1 if "axes" in columns else len(columns)
    while at < len(columns) and columns[at] in names:   # run_stats' copies (threads)
        at += 1
    new_cols = [key[n] for n in names if key[n] not in columns]
    order = columns[:at] + new_cols + columns[at:]
    out = []
    for r in records:
        axes = r.get("axes") if isinstance(r.get("axes"), dict) else {}
        row = dict(r)
        for name in names:
            if key[name] not in columns or name in axes:
                row[key[name]] = axes.get(name)
        out.append({c: row.get(c) for c in order})
    return out


def load(db, view="run_stats", sweep=None, expand_axes=True):
    """The rows of a table or view of the database file db, as a list of dicts.

    view         run_stats (default), runs, speedup, best_runs, run_modes,
                 failures, samples, matrices, sweeps, or any other table or
                 view of the database (views(db) lists them)
    sweep        None: the latest sweep; an id; "all": every sweep
    expand_axes  one key per axis (threads, blocksize, ...) besides "axes"

    JSON-valued columns (axes, kernel_info) come back parsed (dicts).
    """
    con = _connect(db)
    try:
        names = {r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
        if view not in names:
            raise ValueError(f"{db}: no table or view {view!r} (views: {', '.join(sorted(n for n in names if not n.startswith('sqlite_')))})")
        sweep_id = _resolve_sweep(con, db, sweep)
        quoted = '"' + view.replace('"', '""') + '"'
        columns = [r[1] for r in con.execute(f"PRAGMA table_info({quoted})")]
        sql, params = f"SELECT * FROM {quoted}", ()
        where = _SWEEP_FILTER.get(view, "sweep_id = ?" if "sweep_id" in columns else None)
        if sweep_id is not None and where:
            sql, params = f"{sql} WHERE {where}", (sweep_id,)
        if view in _ORDER:
            sql += f" ORDER BY {_ORDER[view]}"
        cur = con.execute(sql, params)
        columns = [d[0] for d in cur.description]
        records = []
        for row in cur:
            rec = dict(zip(columns, row))
            for c in JSON_COLUMNS:
                if c in rec:
                    rec[c] = _parse_json(rec[c])
            records.append(rec)
    finally:
        con.close()
    return _expand(records, columns) if expand_axes else records


def to_dataframe(db_or_records, view="run_stats", sweep=None, expand_axes=True):
    """load(...) as a pandas DataFrame (one column per axis), or a list of
    records already loaded as one. Needs pandas."""
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("to_dataframe needs pandas (pip install pandas, or apt-get install "
                          "python3-pandas); load() gives the same rows as dicts") from None
    if isinstance(db_or_records, list):
        records = db_or_records
    else:
        records = load(db_or_records, view=view, sweep=sweep, expand_axes=expand_axes)
    columns = list(records[0]) if records else None
    df = pd.DataFrame.from_records(records, columns=columns)
    # integer axes stay integers where a kernel has no such axis (pandas'
    # nullable Int64 rather than floats with NaN)
    for name in axis_names(records):
        col = name if name in df.columns else f"axis_{name}"
        values = [v for v in df[col] if v is not None and v == v]
        if col in df.columns and values and all(
                isinstance(v, int) and not isinstance(v, bool) or
                isinstance(v, float) and v.is_integer() for v in values):
            df[col] = df[col].astype("Int64")
    return df


def _fmt(v):
    return "-" if v is None else f"{v:.4g}" if isinstance(v, float) else str(v)


def summary(db, sweep=None, view="run_stats"):
    """A few lines about a sweep: its runs, matrices, kernels, axes and
    their values, and each kernel's best rate (for another view: its row
    count and columns)."""
    sw = load(db, view="sweeps", sweep=sweep, expand_axes=False)
    lines = []
    for s in sw:
        lines.append(f"sweep {s['id']}: {s.get('config_path') or '-'}, started "
                     f"{s.get('started_at')}, {s.get('status')}, host {s.get('host') or '-'}")
    if view != "run_stats":
        recs = load(db, view=view, sweep=sweep)
        lines.append(f"{len(recs)} rows of {view}")
        if recs:
            lines.append(f"columns: {', '.join(recs[0])}")
        return "\n".join(lines)
    recs = load(db, sweep=sweep)
    kernels = list(dict.fromkeys(r["kernel"] for r in recs))
    matrices = list(dict.fromkeys(r["matrix"] for r in recs))
    lines.append(f"{len(recs)} ok runs of {len(kernels)} kernels on {len(matrices)} matrices")
    for name in axis_names(recs):
        col = name if name in recs[0] else f"axis_{name}"
        values = sorted({r[col] for r in recs if r[col] is not None}, key=str)
        lines.append(f"axis {col}: {', '.join(map(str, values))}")
    if recs:
        lines.append("")
        lines.append(f"{'kernel':<28} {'runs':>5} {'best rate':>12}  unit     on matrix, axes")
        for k in kernels:
            mine = [r for r in recs if r["kernel"] == k]
            best = max(mine, key=lambda r: r["rate"] if r["rate"] is not None else float("-inf"))
            axes = json.dumps(best["axes"], separators=(",", ":")) if best["axes"] else "-"
            lines.append(f"{k:<28} {len(mine):>5} {_fmt(best['rate']):>12}  "
                         f"{best['rate_unit']:<8} {best['matrix']}, {axes}")
    return "\n".join(lines)


def _csv_value(v):
    return json.dumps(v, separators=(",", ":")) if isinstance(v, (dict, list)) else v


def main(argv=None):
    p = argparse.ArgumentParser(description="Summarise an spsweep results database, or "
                                "write a table or view with one column per axis as CSV.")
    p.add_argument("db", help="results database (e.g. results/results.db)")
    p.add_argument("--view", default="run_stats", help="table or view (default run_stats)")
    p.add_argument("--sweep", default=None, help="sweep id or 'all' (default: the latest)")
    p.add_argument("--csv", action="store_true", help="the rows as CSV instead of a summary")
    a = p.parse_args(argv)
    try:
        if a.csv:
            recs = load(a.db, view=a.view, sweep=a.sweep)
            if recs:
                w = csv.DictWriter(sys.stdout, fieldnames=list(recs[0]), lineterminator="\n")
                w.writeheader()
                for r in recs:
                    w.writerow({k: _csv_value(v) for k, v in r.items()})
        else:
            print(summary(a.db, sweep=a.sweep, view=a.view))
    except (OSError, ValueError) as e:
        print(f"spsweep_results: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
