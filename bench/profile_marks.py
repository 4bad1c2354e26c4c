#!/usr/bin/env python3
"""profile_marks.py — where a sweep's time goes between runs.

Reads the `profile PID WHAT SECONDS` lines a sweep writes to stderr with
SPSWEEP_PROFILE=1 (runner/exec/progress.c sp_profile_mark; the worker marks the
start of each step of a run, the sweep process marks a run's report and
its store) from files or stdin, orders them in time, and adds up the time
from each mark to the next as "A -> B": the time spent in step A. Prints
the steps by total time, with their count and median.

    SPSWEEP_PROFILE=1 bin/spsweep sweep CONFIG --quiet 2>marks.txt
    bench/profile_marks.py marks.txt
"""
import collections
import fileinput
import statistics

marks = []
for line in fileinput.input():
    f = line.split()
    if len(f) == 4 and f[0] == "profile":
        marks.append((float(f[3]), f[2], f[1]))
marks.sort()
spans = collections.defaultdict(list)
for (t0, a, _), (t1, b, _) in zip(marks, marks[1:]):
    spans[f"{a} -> {b}"].append(t1 - t0)
total = sum(sum(v) for v in spans.values())
print(f"{len(marks)} marks over {total:.3f} s")
print(f"{'step':40s} {'count':>6s} {'total s':>9s} {'share':>6s} {'median ms':>10s}")
for k, v in sorted(spans.items(), key=lambda kv: -sum(kv[1])):
    print(f"{k:40s} {len(v):6d} {sum(v):9.3f} {sum(v) / total:6.1%} "
          f"{statistics.median(v) * 1e3:10.3f}")
