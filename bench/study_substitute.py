#!/usr/bin/env python3
"""study_substitute.py CONFIG INDEX [--mirror MIRROR_INDEX] [--real DIR] [--max-nnz N] [--db PATH]
— a study config for a machine without network, for one run only: every
`source = suitesparse:Group/Name` line that the mirror does not hold is
replaced by a random matrix of the same shape and nonzero count,
`gen:random?rows=R&cols=C&nnz=N&seed=1` (the study's own generator for its
random inputs: nonzeros spread uniformly, so the structure is NOT the
original's — only its size), with a comment naming the matrix it stands
for; a matrix the mirror holds (MIRROR_INDEX: the mirror's files/ssstats.csv,
served with SPSWEEP_SUITESPARSE_URL) is kept as it is, and one of which
DIR holds NAME.mtx.gz (a copy of the collection's file, e.g. shared/real/)
is read from there (`source = file:DIR/NAME.mtx.gz`); matrices of more
than N nonzeros are left out (with a comment) to fit a time budget. The
sizes come from INDEX, the collection's ssstats.csv (rows, cols, nnz of
the full matrix). Everything else of the config (kernels, axes, charts) is
copied unchanged; the database becomes PATH (default: the config's own with
-substitute before .db), so a substitute run never mixes with a real one.
Writes the new config on stdout and a summary on stderr. Standard library
only."""
import argparse
import csv
import os
import re
import sys


def read_index(path):
    """{(group, name): (rows, cols, nnz)} from an ssstats.csv (two header lines)."""
    out = {}
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    for r in rows[2:]:
        if len(r) >= 5:
            out[(r[0], r[1])] = (int(r[2]), int(r[3]), int(r[4]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config")
    ap.add_argument("index")
    ap.add_argument("--mirror", help="the mirror's files/ssstats.csv")
    ap.add_argument("--real", help="a folder of NAME.mtx.gz copies")
    ap.add_argument("--max-nnz", type=int, default=0)
    ap.add_argument("--db")
    a = ap.parse_args()
    index = read_index(a.index)
    mirror = read_index(a.mirror) if a.mirror else {}
    src = re.compile(r"^(\s*)source\s*=\s*suitesparse:([^/\s]+)/(\S+)\s*$")
    dbline = re.compile(r"^(\s*)database\s*=\s*(\S+)\s*$")
    kept = subst = dropped = real = 0
    out = [f"; SUBSTITUTE of {a.config} for one run without network "
           "(bench/study_substitute.py): the matrices\n"
           "; the mirror lacks are random matrices of the same rows, cols and nnz, "
           "not the originals\n"]
    with open(a.config) as f:
        for line in f:
            m = src.match(line)
            d = dbline.match(line)
            if d:
                db = a.db or re.sub(r"\.db$", "", d.group(2)) + "-substitute.db"
                out.append(f"{d.group(1)}database = {db}\n")
                continue
            if not m:
                out.append(line)
                continue
            ind, group, name = m.groups()
            key = (group, name)
            if key in mirror:
                kept += 1
                out.append(line)
                continue
            local = os.path.join(a.real, name + ".mtx.gz") if a.real else None
            if local and os.path.exists(local):
                real += 1
                out.append(f"{ind}; {group}/{name}, its copy in {a.real}\n")
                out.append(f"{ind}source = file:{local}\n")
                continue
            if key not in index:
                print(f"{group}/{name}: not in {a.index}; left as it is", file=sys.stderr)
                out.append(line)
                continue
            rows, cols, nnz = index[key]
            if a.max_nnz and nnz > a.max_nnz:
                dropped += 1
                out.append(f"{ind}; left out: {group}/{name} ({rows} x {cols}, {nnz} nonzeros) "
                           f"is above --max-nnz {a.max_nnz}\n")
                continue
            subst += 1
            out.append(f"{ind}; stands for {group}/{name} ({rows} x {cols}, {nnz} nonzeros)\n")
            out.append(f"{ind}source = gen:random?rows={rows}&cols={cols}&nnz={nnz}&seed=1\n")
    sys.stdout.write("".join(out))
    print(f"{a.config}: {kept} from the mirror, {real} from {a.real}, {subst} substituted, "
          f"{dropped} left out",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
