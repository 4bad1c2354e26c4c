#!/usr/bin/python3
"""mm_scipy_dump.py FILE — an independent reading of a Matrix Market file
(scipy.io.mmread), printed for tests/test_mm_read.c: "rows cols" on the first
line, then one "row col value" line (0-based, repr-exact value, real part)
per stored entry, duplicates summed; dense files list every entry."""
import sys
import warnings

import numpy as np
import scipy.io
import scipy.sparse

warnings.simplefilter("ignore")
m = scipy.io.mmread(sys.argv[1])
out = sys.stdout
if scipy.sparse.issparse(m):
    m = scipy.sparse.coo_matrix(m)
    m.sum_duplicates()
    rows, cols, vals = m.row, m.col, np.real(m.data)
else:
    m = np.asarray(m)
    r, c = np.indices(m.shape)
    rows, cols, vals = r.ravel(), c.ravel(), np.real(m).ravel()
out.write("%d %d\n" % m.shape)
for i, j, v in zip(rows, cols, vals):
    out.write("%d %d %r\n" % (i, j, float(v)))
