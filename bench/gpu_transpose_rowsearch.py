#!/usr/bin/env python3
"""gpu_transpose_rowsearch.py — a serial replay of transpose_cuda_wintrans's
row search (wt_row_of in kernels/transpose/transpose_cuda_wintrans.cu) on the
matrices of the 2026-11-22 device calls. For each run it counts the warp
searches in which some but not all lanes end the binary search at n == 31:
the lanes that, before ea71da6, executed the last full-mask __shfl_sync alone
(undefined; the warp hung on the H100). It also checks that every position's
row is right. Usage: python3 bench/gpu_transpose_rowsearch.py (from the
repository root; about a minute)."""
import collections
import gzip

INT32_MAX = 2**31 - 1


def load_mtx(path):
    hdr = gzip.open(path, "rt").readline()
    lines = [l for l in gzip.open(path, "rt") if not l.startswith("%")]
    m = int(lines[0].split()[0])
    ent = set()
    for l in lines[1:]:
        i, j = map(int, l.split()[:2])
        ent.add((i - 1, j - 1))
        if "symmetric" in hdr:
            ent.add((j - 1, i - 1))
    return m, ent


def rowptr_of(m, ent):
    rows = collections.defaultdict(set)
    for i, j in ent:
        rows[i].add(j)
    rp = [0]
    for r in range(m):
        rp.append(rp[-1] + len(rows[r]))
    return rp


def row_start(rp, rows, chunk, chunks, c):
    """sp_wintrans_row_start: the first row r with rowptr[r] >= c * chunk."""
    if c <= 0:
        return 0
    if c >= chunks:
        return rows
    x, lo, hi = c * chunk, 0, rows
    while lo < hi:
        mid = (lo + hi) // 2
        if rp[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def replay(rp, rows, chunk, bs):
    """(warp searches with a partial n == 31, rows found wrong)"""
    nnz = rp[-1]
    chunks = max(1, (nnz + chunk - 1) // chunk)
    nw, partial, wrong = bs // 32, 0, 0
    for c in range(chunks):
        r0, r1 = row_start(rp, rows, chunk, chunks, c), row_start(rp, rows, chunk, chunks, c + 1)
        p0, p1 = rp[r0], rp[r1]
        row0 = [r0] * nw
        for base in range(p0, p1, bs):
            for w in range(nw):
                ks = [base + w * 32 + l for l in range(32)]
                ks = [k if k < p1 else -1 for k in ks]
                row, b = [-1] * 32, row0[w]
                while True:
                    starts = [rp[b + 1 + l] if b + 1 + l < r1 else INT32_MAX for l in range(32)]
                    ns = []
                    for l in range(32):
                        n = 0
                        for s in (16, 8, 4, 2, 1):
                            if starts[n + s - 1] <= ks[l]:
                                n += s
                        ns.append(n)
                    if 0 < sum(n == 31 for n in ns) < 32:
                        partial += 1
                    for l in range(32):
                        n = 32 if ns[l] == 31 and starts[31] <= ks[l] else ns[l]
                        if row[l] < 0 and n < 32:
                            row[l] = b + n
                    if all(r >= 0 for r in row):
                        break
                    b += 32
                for l in range(32):
                    if ks[l] >= 0 and not rp[row[l]] <= ks[l] < rp[row[l] + 1]:
                        wrong += 1
                row0[w] = max([row[l] if ks[l] >= 0 else row0[w] for l in range(32)])
    return partial, wrong


def main():
    cases = []
    for name in ("bcsstk06", "olm1000"):
        m, ent = load_mtx(f"tests/data/ss/{name}.mtx.gz")
        cases.append((name, m, rowptr_of(m, ent), [(16384, 256), (16384, 512), (16384, 1024)]))
    # tests/gpu/test_gpu_transpose.c: full_window (3001 x 600) and staircase (300 x 1000 of 700)
    ent = set()
    for i in range(3001 * 32):
        e = i % 32
        ent.add((i // 32, 0 if e == 0 else 599 if e == 1 else (i * 2654435761) % 600))
    cases.append(("full window 3001 x 600", 3001, rowptr_of(3001, ent),
                  [(ch, bs) for bs in (64, 256, 1024) for ch in (256, 1024)]))
    ent = set((i // 700, i // 700 + i % 700) for i in range(300 * 700))
    cases.append(("staircase 300 x 1000 of 700", 300, rowptr_of(300, ent),
                  [(ch, bs) for bs in (64, 1024) for ch in (256, 1024)]))
    for name, m, rp, runs in cases:
        for chunk, bs in runs:
            partial, wrong = replay(rp, m, chunk, bs)
            print(f"{name}: chunk {chunk}, {bs} threads: {partial} warp searches with a partial "
                  f"n == 31, {wrong} rows wrong")


if __name__ == "__main__":
    main()
