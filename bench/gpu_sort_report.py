#!/usr/bin/env python3
"""gpu_sort_report.py DB [DEVICE] — the table of `make bench-sort` (bench/gpu_sort.sh)
from the sweep database. Per key count, distribution, mode (keys or pairs)
and GPU sort kernel (its fastest axis combination): the median kernel time,
Gkeys/s, CUB's time over the kernel's (> 1: faster than CUB) and the
kernel's time over its own time on uniform keys of the same size and mode.
Then the goals of issue 8: the best own kernel against CUB pairs on the
largest uniform input, and each kernel's worst distribution against its
uniform time (at most 3x). DEVICE (default gpu) may be cpu, for the CPU
sorts of a sweep of configs/sort.ini. Standard library only."""
import json
import sqlite3
import sys

CUB = "sort_cub_radix"


def dist_of(source):
    # keys:DIST?n=N&seed=S... -> DIST
    return source[5:].split("?")[0] if source.startswith("keys:") else source


def load(con, device):
    """best[(n, dist, values, kernel)] = (median s, axes without values)."""
    best = {}
    for source, n, kernel, axes, median in con.execute(
            "SELECT m.source, m.nnz, r.kernel, r.axes, r.median FROM run_stats r "
            "JOIN matrices m ON m.id = r.matrix_id "
            "WHERE r.operation = 'sort' AND r.device = ?", (device,)):
        a = json.loads(axes)
        values = a.pop("values", 1)
        key = (n, dist_of(source), values, kernel)
        if key not in best or median < best[key][0]:
            best[key] = (median, ",".join(f"{k}={v}" for k, v in a.items()))
    return best


def rate(n, t):
    return f"{n / t / 1e9:.2f}" if t > 0 else "-"


def ratio(a, b):
    return f"{a / b:.2f}" if b > 0 else "-"


def main():
    con = sqlite3.connect(sys.argv[1])
    gpu = con.execute("SELECT gpu FROM sweeps ORDER BY id DESC LIMIT 1").fetchone()
    device = sys.argv[2] if len(sys.argv) > 2 else "gpu"
    best = load(con, device)
    if not best:
        print(f"no {device} sort runs in the database")
        return 1
    print(f"{device}: {gpu[0] if gpu and device == 'gpu' else 'host'}; kernel time, median of the "
          "repetitions; fastest axis combination per kernel\n")
    print("| keys | distribution | mode | kernel (axes) | ms | Gkeys/s | CUB / kernel "
          "| / own uniform |")
    print("| ---: | --- | --- | --- | ---: | ---: | ---: | ---: |")
    order = ["uniform", "sorted", "reverse", "equal", "few", "zipf"]
    sizes = sorted({k[0] for k in best}, reverse=True)
    kernels = sorted({k[3] for k in best}, key=lambda k: (k != CUB, k))
    worst = {}
    for n in sizes:
        dists = sorted({k[1] for k in best if k[0] == n},
                       key=lambda d: order.index(d) if d in order else 99)
        for d in dists:
            for values in (0, 1):
                cub = best.get((n, d, values, CUB))
                for kern in kernels:
                    b = best.get((n, d, values, kern))
                    if not b:
                        continue
                    uni = best.get((n, "uniform", values, kern))
                    vs_cub = ratio(cub[0], b[0]) if cub else "-"
                    vs_uni = ratio(b[0], uni[0]) if uni else "-"
                    if uni and uni[0] > 0:
                        w = worst.setdefault((n, values, kern), (0, ""))
                        if b[0] / uni[0] > w[0]:
                            worst[(n, values, kern)] = (b[0] / uni[0], d)
                    name = kern + (f" ({b[1]})" if b[1] else "")
                    print(f"| {n} | {d} | {'pairs' if values else 'keys'} | {name} | "
                          f"{b[0] * 1e3:.3f} | {rate(n, b[0])} | {vs_cub} | {vs_uni} |")
    n = sizes[0]
    print(f"\nGoals at {n} keys:")
    cub = best.get((n, "uniform", 1, CUB))
    own = [(b[0], k[3]) for k, b in best.items()
           if k[0] == n and k[1] == "uniform" and k[2] == 1 and k[3] != CUB]
    if cub and own:
        t, k = min(own)
        print(f"- best own pairs sort on uniform keys: {k}, {n / t / 1e9:.2f} Gkeys/s = "
              f"{cub[0] / t:.2f}x CUB pairs ({n / cub[0] / 1e9:.2f} Gkeys/s); goal >= 0.5x")
    elif cub:
        print(f"- CUB pairs on uniform keys: {n / cub[0] / 1e9:.2f} Gkeys/s; no own GPU sort "
              "in this database")
    for (m, values, kern), (slow, d) in sorted(worst.items()):
        if m == n:
            print(f"- {kern} {'pairs' if values else 'keys'}: slowest distribution {d}, "
                  f"{slow:.2f}x its uniform time; goal <= 3x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
