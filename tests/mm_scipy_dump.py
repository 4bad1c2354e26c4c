#!/usr/bin/python3
"""mm_scipy_dump.py FILE — an independent reading of a Matrix Market file
(scipy.io.mmread, which already expands the symmetric kinds), printed for
tests/test_mm_read.c: "rows cols nnz" on the first line, then one
"row col value" line per stored entry (0-based, sorted by row then column,
duplicates summed, the real part of complex values, %.17g so the double
comes back bit-exact). Dense files list every entry, zeros included.
Runs under /usr/bin/python3 (Debian's python3-scipy)."""
import sys
import warnings

import numpy as np
import scipy.io
import scipy.sparse

warnings.simplefilter("ignore")
m = scipy.io.mmread(sys.argv[1])
if scipy.sparse.issparse(m):
    m = scipy.sparse.coo_matrix(m)
    m.sum_duplicates()
    order = np.lexsort((m.col, m.row))  # by row, then column
    rows, cols, vals = m.row[order], m.col[order], np.real(m.data[order])
else:
    m = np.asarray(m)
    r, c = np.indices(m.shape)      # row-major: sorted by row, then column
    rows, cols, vals = r.ravel(), c.ravel(), np.real(m).ravel()
out = sys.stdout
out.write("%d %d %d\n" % (m.shape[0], m.shape[1], len(vals)))
for i, j, v in zip(rows, cols, vals):
    out.write("%d %d %.17g\n" % (i, j, float(v)))
