"""test_spsweep_results.py — python/spsweep_results.py on a database that
bin/spsweep (or $SPSWEEP_BIN) makes from a tiny generated config: records
with the axes spread into columns, any view, sweep selection, the read-only
open, the command line's summary and CSV; the DataFrame tests skip when
pandas is not installed. Run by `make test` (python3 -m unittest)."""
import csv
import io
import os
import pathlib
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
import spsweep_results as sr  # noqa: E402

try:
    import pandas  # noqa: F401
    HAVE_PANDAS = True
except ImportError:
    HAVE_PANDAS = False

# three kernels, two axes: the serial kernel has none, csr_omp threads,
# hll_omp_static threads and hack; 1 + 2 + 2 = 5 runs per sweep
CONFIG = """; a tiny sweep for tests/python/test_spsweep_results.py
[sweep]
repetitions = 3
warmup = 0

[matrices]
source = gen:laplace2d?n=16

[kernel spmv_csr_serial]

[kernel spmv_csr_omp]
threads = 1,2

[kernel spmv_hll_omp_static]
threads = 1
hack = 8,32
"""
RUNS = 5


def spsweep(*args):
    binary = os.environ.get("SPSWEEP_BIN") or str(ROOT / "bin" / "spsweep")
    return subprocess.run([binary, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


class Loader(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="spsweep-py-")
        cls.config = os.path.join(cls.dir, "tiny.ini")
        cls.db = os.path.join(cls.dir, "tiny.db")
        with open(cls.config, "w") as f:
            f.write(CONFIG)
        for extra in ([], ["--new"]):       # two sweeps: 1 and 2
            r = spsweep("sweep", cls.config, "--db", cls.db, "--quiet", *extra)
            if r.returncode != 0:
                raise RuntimeError(f"spsweep sweep failed ({r.returncode}):\n{r.stdout}{r.stderr}")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_records_have_one_column_per_axis(self):
        recs = sr.load(self.db)
        self.assertEqual(len(recs), RUNS)
        self.assertEqual({r["sweep_id"] for r in recs}, {2}, "the latest sweep by default")
        self.assertEqual(sr.axis_names(recs), ["threads", "hack"])
        for r in recs:
            self.assertIsInstance(r["axes"], dict)
            self.assertEqual(list(r)[:3], ["run_id", "sweep_id", "matrix_id"])
            self.assertEqual(list(r), list(recs[0]), "every record has the same columns")
            for axis in ("threads", "hack"):
                self.assertEqual(r[axis], r["axes"].get(axis))
        cols = list(recs[0])
        self.assertEqual(cols[cols.index("axes") + 1], "threads", "axis columns follow axes")
        self.assertEqual(cols.index("hack"), cols.index("axes") + 2)
        by_kernel = {}
        for r in recs:
            by_kernel.setdefault(r["kernel"], []).append(r)
        self.assertEqual([r["threads"] for r in by_kernel["spmv_csr_serial"]], [None])
        self.assertEqual(sorted(r["threads"] for r in by_kernel["spmv_csr_omp"]), [1, 2])
        self.assertEqual(sorted(r["hack"] for r in by_kernel["spmv_hll_omp_static"]), [8, 32])
        self.assertTrue(all(r["hack"] is None for r in by_kernel["spmv_csr_omp"]))
        self.assertTrue(all(r["rate"] > 0 and r["rate_unit"] == "GFLOPS" for r in recs))

    def test_without_expansion_the_view_as_it_is(self):
        recs = sr.load(self.db, expand_axes=False)
        self.assertNotIn("hack", recs[0])
        self.assertIsInstance(recs[0]["axes"], dict)

    def test_sweeps_selected(self):
        self.assertEqual(len(sr.load(self.db, sweep="all")), 2 * RUNS)
        self.assertEqual({r["sweep_id"] for r in sr.load(self.db, sweep=1)}, {1})
        self.assertEqual({r["sweep_id"] for r in sr.load(self.db, sweep="1")}, {1})
        self.assertEqual([s["id"] for s in sr.sweeps(self.db)], [1, 2])
        with self.assertRaisesRegex(ValueError, "no sweep 7"):
            sr.load(self.db, sweep=7)
        with self.assertRaisesRegex(ValueError, "integer id"):
            sr.load(self.db, sweep="latest")

    def test_any_view(self):
        self.assertIn("run_stats", sr.views(self.db))
        runs = sr.load(self.db, view="runs")
        self.assertEqual(len(runs), RUNS)
        self.assertEqual(sorted(r["hack"] for r in runs if r["hack"]), [8, 32])
        samples = sr.load(self.db, view="samples")
        self.assertEqual(len(samples), RUNS * 3)
        self.assertEqual({s["run_id"] for s in samples}, {r["id"] for r in runs})
        self.assertEqual(len(sr.load(self.db, view="run_modes")), 3 * RUNS)
        speedup = sr.load(self.db, view="speedup")
        self.assertEqual(len(speedup), RUNS)
        self.assertIn("threads", speedup[0])
        self.assertEqual(len(sr.load(self.db, view="matrices")), 1)
        self.assertEqual(sr.load(self.db, view="failures"), [])
        with self.assertRaisesRegex(ValueError, "no table or view 'bogus'"):
            sr.load(self.db, view="bogus")
        with self.assertRaisesRegex(ValueError, "no table or view"):
            sr.load(self.db, view="run_stats; DROP TABLE runs")

    def test_read_only_file_is_read_and_left_alone(self):
        copy = os.path.join(self.dir, "ro.db")
        shutil.copy(self.db, copy)
        os.chmod(copy, stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        before = pathlib.Path(copy).read_bytes()
        self.assertEqual(len(sr.load(copy)), RUNS)
        self.assertEqual(pathlib.Path(copy).read_bytes(), before)
        with self.assertRaisesRegex(OSError, "no such database"):
            sr.load(os.path.join(self.dir, "missing.db"))

    def test_command_line_summary_and_csv(self):
        module = str(ROOT / "python" / "spsweep_results.py")
        r = subprocess.run([sys.executable, module, self.db], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"{RUNS} ok runs of 3 kernels on 1 matrices", r.stdout)
        self.assertIn("axis hack: 32, 8", r.stdout)
        self.assertIn("spmv_hll_omp_static", r.stdout)
        r = subprocess.run([sys.executable, module, self.db, "--csv", "--sweep", "all"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        self.assertEqual(len(rows), 2 * RUNS)
        self.assertIn('"threads":', rows[1]["axes"])
        self.assertEqual(sorted(x["hack"] for x in rows if x["hack"]), ["32", "32", "8", "8"])
        r = subprocess.run([sys.executable, module, self.db, "--view", "nope"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no table or view 'nope'", r.stderr)

    @unittest.skipUnless(HAVE_PANDAS, "pandas is not installed")
    def test_dataframe_one_column_per_axis(self):
        df = sr.to_dataframe(self.db)
        self.assertEqual(len(df), RUNS)
        for col in ("threads", "hack", "rate", "kernel", "matrix"):
            self.assertIn(col, df.columns)
        self.assertEqual(str(df["hack"].dtype), "Int64", "integer axes stay integers")
        self.assertEqual(sorted(df["hack"].dropna()), [8, 32])
        self.assertEqual(int(df["threads"].isna().sum()), 1, "the serial kernel has no threads")
        best = df.groupby("kernel")["rate"].max()
        self.assertEqual(len(best), 3)
        self.assertEqual(len(sr.to_dataframe(sr.load(self.db, sweep="all"))), 2 * RUNS)

    @unittest.skipIf(HAVE_PANDAS, "pandas is installed")
    def test_dataframe_without_pandas_says_so(self):
        with self.assertRaisesRegex(ImportError, "needs pandas"):
            sr.to_dataframe(self.db)


if __name__ == "__main__":
    unittest.main()
