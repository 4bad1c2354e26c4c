#!/usr/bin/env bash
# cpu.sh — the CPU kernel benchmark: every registered CPU SpMV and
# transposition kernel on the bench set, through bin/spsweep (so every run
# is checked and stored), plus STREAM triad; markdown tables.
#
#   bench/cpu.sh [-t THREADS] [-r REPS] [-w WARMUP] [-a NAME=VALUES]... [-x REGEX]
#                [-o DIR] [SOURCE...]
#   bench/cpu.sh -T [-o DIR]    the tables again from DIR's database (e.g. on
#                               a machine with the sqlite3 shell, when the
#                               benchmark ran on one without it)
#
#   -t THREADS   the `threads` axis (spsweep axis syntax; default 1..nproc:*2,nproc)
#   -r REPS      timed repetitions per combination (default 10)
#   -w WARMUP    untimed runs before them (default 2)
#   -a AXIS      extra axis override passed to spsweep, e.g. -a hack=16,32,64
#   -x REGEX     leave out the kernels whose name matches (grep -E)
#   -o DIR       where the database, the sweep log and the tables go
#                (default bench/work/cpu)
#   SOURCE       matrices (default: the bench set below and tests/data/ss/*.mtx.gz)
#
# The tables are written to DIR/cpu-results.md as soon as they can be: the
# machine and STREAM triad first, then, after each matrix's sweep, every
# table again with the matrices done so far — so a run cut short (a device
# call's time limit) still leaves complete rows. Tables: SpMV per matrix
# (serial CSR, the best CSR OpenMP kernel with its effective bandwidth as a
# fraction of the triad, the best kernel overall, librsb, speedups), the
# geomeans over librsb, transposition per matrix (Mnnz/s, speedups over
# serial), every kernel at every thread count, and the runs that did not
# measure (refused, skipped, failed).
set -euo pipefail
cd "$(dirname "$0")/.."

threads="1..nproc:*2,nproc" reps=10 warmup=2 out=bench/work/cpu axes=() exclude='^$' only_tables=0
while getopts "t:r:w:a:x:o:Th" o; do
  case $o in
    t) threads=$OPTARG ;;
    r) reps=$OPTARG ;;
    w) warmup=$OPTARG ;;
    a) axes+=(--axis "$OPTARG") ;;
    x) exclude=$OPTARG ;;
    o) out=$OPTARG ;;
    T) only_tables=1 ;;
    *) sed -n '2,30p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
sources=("$@")
if [ ${#sources[@]} -eq 0 ]; then
  # small and goal-bearing matrices first: a run cut short keeps them
  for f in tests/data/ss/*.mtx.gz; do sources+=("file:$f"); done
  sources+=(gen:laplace2d?n=3000 "gen:rmat?scale=22&ef=16&seed=1"
            "gen:laplace3d?n=160&points=27" "gen:uniform?rows=4000000&per_row=8&seed=1"
            "gen:banded?n=2000000&bw=16")
fi

db=$out/cpu-bench.db log=$out/cpu-sweep.log md=$out/cpu-results.md
q() { sqlite3 -markdown -header "$db" "$1"; }
tables() {
echo
echo "SpMV (GFLOPS = 2 nnz / median; GB/s from the byte model: CSR once, x once, y once)"
echo
q "WITH s AS (SELECT * FROM run_stats WHERE operation = 'spmv'),
 csr AS (SELECT matrix, kernel, threads, gflops, gbps,
           ROW_NUMBER() OVER (PARTITION BY matrix ORDER BY median) AS p
         FROM s WHERE format = 'csr' AND backend = 'openmp'),
 best AS (SELECT matrix, kernel, axes, gflops,
           ROW_NUMBER() OVER (PARTITION BY matrix ORDER BY median) AS p
          FROM s WHERE backend NOT IN ('librsb', 'mkl')),
 rsb AS (SELECT matrix, MAX(gflops) AS gf FROM s WHERE kernel = 'spmv_librsb' GROUP BY matrix),
 ser AS (SELECT matrix, MAX(gflops) AS gf FROM s WHERE kernel = 'spmv_csr_serial' GROUP BY matrix)
 SELECT m.name AS matrix, m.nnz, m.size_class AS class, printf('%.2f', ser.gf) AS serial,
   csr.kernel || ' t=' || csr.threads AS best_csr_omp, printf('%.2f', csr.gflops) AS gflops,
   printf('%.1f', csr.gbps) AS gb_s, printf('%.0f%%', 100 * csr.gbps / $best) AS of_triad,
   best.kernel || ' ' || best.axes AS best_overall, printf('%.2f', best.gflops) AS best_gflops,
   printf('%.2f', rsb.gf) AS librsb, printf('%.2f', csr.gflops / rsb.gf) AS csr_vs_rsb,
   printf('%.2f', best.gflops / rsb.gf) AS best_vs_rsb
 FROM csr JOIN best USING (matrix) JOIN matrices m ON m.name = csr.matrix
 LEFT JOIN rsb USING (matrix) LEFT JOIN ser USING (matrix)
 WHERE csr.p = 1 AND best.p = 1 GROUP BY m.name ORDER BY m.nnz DESC"
echo
q "WITH s AS (SELECT * FROM run_stats WHERE operation = 'spmv'),
 per AS (SELECT matrix,
   MAX(CASE WHEN format = 'csr' AND backend = 'openmp' THEN gflops END) AS csr,
   MAX(CASE WHEN backend NOT IN ('librsb', 'mkl') THEN gflops END) AS best,
   MAX(CASE WHEN kernel = 'spmv_librsb' THEN gflops END) AS rsb FROM s GROUP BY matrix)
 SELECT COUNT(*) AS matrices,
   printf('%.2f', exp(AVG(ln(csr / rsb)))) AS geomean_best_csr_omp_vs_librsb,
   printf('%.2f', exp(AVG(ln(best / rsb)))) AS geomean_best_kernel_vs_librsb
 FROM per WHERE rsb > 0"
echo
echo "Ours against each vendor library (db/views.sql own_vs_each_vendor: our fastest run of any"
echo "kernel and axes against each backend's fastest, MKL and librsb (its tuned run where"
echo "tune = 0,1 ran), same precision; ratio = vendor median / own median, > 1 ours faster,"
echo "[lo, hi] the conservative bound of the two 95 % intervals; verdict 'same' where they overlap)"
echo
q "SELECT operation, precision, matrix, nnz, own_kernel || ' ' || own_axes AS own,
   vendor_kernel || ' ' || vendor_axes AS vendor,
   printf('%.2f [%.2f, %.2f]', ratio, ratio_lo, ratio_hi) AS ratio, verdict
 FROM own_vs_each_vendor WHERE ratio IS NOT NULL ORDER BY operation, precision, vendor_backend, nnz DESC"
echo
echo "Geomeans of those ratios over every matrix of the run (vendor 'strongest': the fastest"
echo "vendor run on each matrix, own_vs_vendor; [lo, hi] the geomeans of the bounds, not a"
echo "confidence interval). The views' own geomean (own_vs_each_vendor_geomean) is per sweep,"
echo "and this script runs one sweep per matrix, so the same formula is applied across them here."
echo
q "WITH e AS (SELECT operation, precision, vendor_backend AS vendor, matrix, nnz, ratio, ratio_lo,
              ratio_hi, verdict FROM own_vs_each_vendor WHERE ratio IS NOT NULL
            UNION ALL
            SELECT operation, precision, 'strongest', matrix, nnz, ratio, ratio_lo, ratio_hi,
              verdict FROM own_vs_vendor WHERE ratio IS NOT NULL),
 s AS (SELECT 'all' AS scope, * FROM e UNION ALL SELECT 'nnz >= 1e6', * FROM e WHERE nnz >= 1000000),
 w AS (SELECT s.*, ROW_NUMBER() OVER (PARTITION BY operation, precision, vendor, scope
                                      ORDER BY ratio) AS p FROM s)
 SELECT operation, precision, vendor, scope, COUNT(*) AS matrices,
   printf('%.2f [%.2f, %.2f]', exp(AVG(ln(ratio))), exp(AVG(ln(ratio_lo))),
          exp(AVG(ln(ratio_hi)))) AS geomean,
   printf('%.2f', MIN(ratio)) AS worst, MAX(CASE WHEN p = 1 THEN matrix END) AS worst_matrix,
   SUM(verdict = 'faster') AS faster, SUM(verdict = 'same') AS same, SUM(verdict = 'slower') AS slower
 FROM w GROUP BY operation, precision, vendor, scope ORDER BY operation, precision, vendor, scope"
echo
echo "ScanTrans against MKL's transposition (transpose_scantrans / transpose_mkl, each at its"
echo "best thread count, double), matrices of >= 10^6 nonzeros: the published ratio is 2.8"
echo
q "WITH b AS (SELECT matrix, kernel, MIN(median) AS median FROM run_stats
            WHERE operation = 'transpose' AND precision = 'double'
              AND kernel IN ('transpose_scantrans', 'transpose_mkl') GROUP BY matrix, kernel),
 r AS (SELECT m.name AS matrix, m.nnz, k.median / s.median AS ratio
       FROM b s JOIN b k ON k.matrix = s.matrix AND k.kernel = 'transpose_mkl'
       JOIN matrices m ON m.name = s.matrix WHERE s.kernel = 'transpose_scantrans')
 SELECT COUNT(*) AS matrices, printf('%.2f', exp(AVG(ln(ratio)))) AS geomean_scantrans_vs_mkl,
   printf('%.2f', MIN(ratio)) AS worst, printf('%.2f', MAX(ratio)) AS best
 FROM r WHERE nnz >= 1000000"
echo
echo "Transposition (Mnnz/s = nnz / median / 1e6; GB/s from the byte model: CSR read once, CSC written once)"
echo
q "WITH s AS (SELECT * FROM run_stats WHERE operation = 'transpose'),
 k AS (SELECT matrix, kernel, threads, median, rate * 1000 AS mnnz, gbps,
         ROW_NUMBER() OVER (PARTITION BY matrix, kernel ORDER BY median) AS p FROM s)
 SELECT m.name AS matrix, m.nnz,
   printf('%.0f', MAX(CASE WHEN kernel = 'transpose_serial' THEN mnnz END)) AS serial,
   printf('%.0f (t=%s)', MAX(CASE WHEN kernel = 'transpose_scantrans' THEN mnnz END),
          MAX(CASE WHEN kernel = 'transpose_scantrans' THEN threads END)) AS scantrans,
   printf('%.0f (t=%s)', MAX(CASE WHEN kernel = 'transpose_mergetrans' THEN mnnz END),
          MAX(CASE WHEN kernel = 'transpose_mergetrans' THEN threads END)) AS mergetrans,
   printf('%.2f', MAX(CASE WHEN kernel = 'transpose_scantrans' THEN mnnz END) /
                  MAX(CASE WHEN kernel = 'transpose_serial' THEN mnnz END)) AS scan_vs_serial,
   printf('%.2f', MAX(CASE WHEN kernel = 'transpose_mergetrans' THEN mnnz END) /
                  MAX(CASE WHEN kernel = 'transpose_serial' THEN mnnz END)) AS merge_vs_serial,
   printf('%.1f', MAX(CASE WHEN kernel = 'transpose_scantrans' THEN gbps END)) AS scan_gb_s
 FROM k JOIN matrices m ON m.name = k.matrix WHERE p = 1 GROUP BY m.name ORDER BY m.nnz DESC"
echo
echo "Every kernel by thread count (GFLOPS; transposition Mnnz/s), best over the other axes"
echo
cols=$(sqlite3 "$db" "SELECT DISTINCT CAST(threads AS INTEGER) FROM run_stats WHERE threads IS NOT NULL ORDER BY 1")
sel=""
for t in $cols; do
  sel="$sel, IIF(MAX(threads = $t), printf('%.2f', MAX(CASE WHEN threads = $t THEN rate END)), '') AS t$t"
done
q "WITH s AS (SELECT matrix, kernel, threads,
                CASE WHEN operation = 'transpose' THEN rate * 1000 ELSE rate END AS rate
              FROM run_stats)
 SELECT matrix, kernel,
   IIF(MAX(threads IS NULL), printf('%.2f', MAX(CASE WHEN threads IS NULL THEN rate END)), '') AS serial
   $sel FROM s GROUP BY matrix, kernel ORDER BY matrix, kernel"
echo
echo "Runs that did not measure (refused, skipped, failed)"
echo
q "SELECT matrix, kernel, axes, status, substr(error, 1, 160) AS error FROM run_failures"
}

if [ "$only_tables" = 1 ]; then
  [ -f "$db" ] || { echo "cpu.sh: no $db" >&2; exit 1; }
  best=$(sed -n 's|^STREAM triad.*: \([0-9.]*\) GB/s best.*|\1|p' "$md")
  [ -n "$best" ] || { echo "cpu.sh: no STREAM triad line in $md" >&2; exit 1; }
  { grep -E '^(Machine:|Threads axis:|STREAM triad)' "$md"; tables; } >"$md.tmp" && mv "$md.tmp" "$md"
  cat "$md"
  exit 0
fi
have_sqlite=1
command -v sqlite3 >/dev/null || {
  have_sqlite=0
  echo "cpu.sh: no sqlite3 shell here: measuring only; tables later with bench/cpu.sh -T -o $out" >&2
}

mkdir -p "$out"
make --no-print-directory all build/bench/stream_triad >/dev/null
export OMP_PROC_BIND=${OMP_PROC_BIND:-close} OMP_PLACES=${OMP_PLACES:-cores}
cfgdir=$(mktemp -d)
trap 'rm -rf "$cfgdir"' EXIT

# Every CPU kernel of the spmv and transpose operations that is built.
kernels=$(bin/spsweep list | awk 'NR > 1 && ($2 == "spmv" || $2 == "transpose") &&
          $4 != "cuda" && $4 != "cusparse" && $4 != "cub" && !/not built/ {print $1}' |
          grep -Ev "$exclude")
rm -f "$db" "$db-wal" "$db-shm" "$log"

maxt=$(nproc)
triad=$(build/bench/stream_triad "$maxt" 1024 20)
triad1=$(build/bench/stream_triad 1 1024 5)
field() { awk -F': ' -v k="$2" '$1 == k {print $2}' <<<"$1"; }
best=$(field "$triad" best_gb_s)
cpu=$(lscpu | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}')
llc=$(lscpu | awk -F: '/L3 cache/ {gsub(/^ +/, "", $2); print $2; exit}')
header() {
  echo "Machine: $cpu, $(nproc) cores, L3 $llc; $(gcc --version | head -1); $(date -u +%F)."
  echo "Threads axis: $threads; median of $reps repetitions after $warmup warm-up;" \
       "OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES."
  echo "STREAM triad (build/bench/stream_triad, 3 x 1 GiB): $best GB/s best" \
       "($(field "$triad" median_gb_s) median) at $maxt threads;" \
       "$(field "$triad1" best_gb_s) GB/s best at 1."
}
header >"$md"
cat "$md"

# One sweep per matrix into the same database, the tables after each.
n=0
for s in "${sources[@]}"; do
  n=$((n + 1))
  cfg=$cfgdir/matrix-$n.ini
  {
    echo "[sweep]"
    echo "description = bench/cpu.sh: CPU SpMV and transposition kernels, matrix $n"
    echo "repetitions = $reps"
    echo "warmup = $warmup"
    echo "[matrices]"
    echo "source = $s"
    for k in $kernels; do echo "[kernel $k]"; done
  } >"$cfg"
  t0=$SECONDS
  # A combination that does not measure (a layout past 32-bit offsets, one
  # that does not fit in memory) is stored with its reason and makes the
  # exit status nonzero; the last table lists those.
  bin/spsweep sweep "$cfg" --db "$db" --axis "threads=$threads" "${axes[@]}" >>"$log" 2>&1 ||
    echo "cpu.sh: $s: some runs did not measure (see the last table)" >&2
  echo "cpu.sh: $s done in $((SECONDS - t0)) s" >&2
  if [ "$have_sqlite" = 1 ]; then
    { header; tables; } >"$md.tmp" && mv "$md.tmp" "$md"
  fi
done
cat "$md"
