#!/usr/bin/env python3
"""gbench_check.py — check that a file is Google Benchmark's JSON output
as its JSON reporter writes it (src/json_reporter.cc, json_schema_version 1)
and as its tools/compare.py reads it: the context's keys and types, every
benchmark entry's keys and types, iteration entries before their
aggregates, aggregate names <run_name>_<aggregate_name>. Used by
tests/test_export.c on `spsweep export --gbench`.

usage: gbench_check.py FILE RUNS   (RUNS: the iteration entries expected)
Prints the first problem and exits 1, or prints "ok" and exits 0.
"""
import json
import sys

CONTEXT = {"date": str, "host_name": str, "executable": str, "num_cpus": int,
           "caches": list, "library_build_type": str, "json_schema_version": int}
CONTEXT_OPTIONAL = {"mhz_per_cpu": int, "cpu_scaling_enabled": bool, "aslr_enabled": bool,
                    "load_avg": list, "library_version": str}
ENTRY = {"name": str, "family_index": int, "per_family_instance_index": int,
         "run_name": str, "run_type": str, "repetitions": int, "threads": int,
         "iterations": int, "real_time": float, "cpu_time": float, "time_unit": str}
ITERATION = {"repetition_index": int}
AGGREGATE = {"aggregate_name": str, "aggregate_unit": str}


def fail(msg):
    print(msg)
    sys.exit(1)


def check_types(obj, spec, where, required=True):
    for key, typ in spec.items():
        if key not in obj:
            if required:
                fail(f"{where}: no key {key!r}")
            continue
        val = obj[key]
        ok = isinstance(val, typ) and not (typ is int and isinstance(val, bool))
        if typ is float:
            ok = isinstance(val, (int, float)) and not isinstance(val, bool)
        if not ok:
            fail(f"{where}: {key!r} is {type(val).__name__}, not {typ.__name__}")


def main():
    doc = json.load(open(sys.argv[1]))
    runs = int(sys.argv[2])
    if set(doc) != {"context", "benchmarks"}:
        fail(f"top-level keys {sorted(doc)}")
    ctx = doc["context"]
    check_types(ctx, CONTEXT, "context")
    check_types(ctx, CONTEXT_OPTIONAL, "context", required=False)
    if ctx["json_schema_version"] != 1:
        fail("json_schema_version is not 1")
    if ctx["library_build_type"] not in ("release", "debug"):
        fail(f"library_build_type {ctx['library_build_type']!r}")
    for key, val in ctx.items():
        if key not in CONTEXT and key not in CONTEXT_OPTIONAL and not isinstance(val, str):
            fail(f"context: custom key {key!r} is not a string")
    iterations = 0
    last_iteration = None
    for i, b in enumerate(doc["benchmarks"]):
        where = f"benchmarks[{i}] ({b.get('name')})"
        check_types(b, ENTRY, where)
        if b["time_unit"] not in ("ns", "us", "ms", "s"):
            fail(f"{where}: time_unit {b['time_unit']!r}")
        if b["real_time"] < 0 or b["iterations"] < 1 or b["repetitions"] < 1:
            fail(f"{where}: negative time or no iterations")
        fixed = set(ENTRY) | set(ITERATION) | set(AGGREGATE)
        for key, val in b.items():
            if key not in fixed and (isinstance(val, bool) or
                                     not isinstance(val, (int, float))):
                fail(f"{where}: counter {key!r} is not a number")
        if b["run_type"] == "iteration":
            check_types(b, ITERATION, where)
            if b["name"] != b["run_name"] or "aggregate_name" in b:
                fail(f"{where}: an iteration entry named apart from its run")
            iterations += 1
            last_iteration = b
        elif b["run_type"] == "aggregate":
            check_types(b, AGGREGATE, where)
            if "repetition_index" in b:
                fail(f"{where}: an aggregate with a repetition_index")
            if b["name"] != b["run_name"] + "_" + b["aggregate_name"]:
                fail(f"{where}: not named <run_name>_<aggregate_name>")
            if b["aggregate_unit"] not in ("time", "percentage"):
                fail(f"{where}: aggregate_unit {b['aggregate_unit']!r}")
            if not last_iteration or last_iteration["run_name"] != b["run_name"]:
                fail(f"{where}: an aggregate not right after its run's entries")
        else:
            fail(f"{where}: run_type {b['run_type']!r}")
    if iterations != runs:
        fail(f"{iterations} iteration entries, not {runs}")
    keys = [(b["name"], b.get("repetition_index")) for b in doc["benchmarks"]]
    if len(set(keys)) != len(keys):
        fail("two entries with one name and repetition_index")
    print("ok")


main()
