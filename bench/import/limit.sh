#!/usr/bin/env bash
# The import limit figure, repeated: `health import` of NDJSON against the same rows inserted by the
# raw C program (baseline.c) into the minimal two-index table, run in alternated pairs so that a
# machine whose speed drifts moves both sides of a pair alike. One run (run.sh, step 6) is too noisy
# on a shared machine to say whether the rate is reliably above a target; the median of pairs is.
#
#   bash bench/import/limit.sh                        # 518,400 records (360 days of minutes), 7 pairs
#   BENCH_PAIRS=11 BENCH_RECORDS=100000 bash bench/import/limit.sh
#   BENCH_HEALTH=/tmp/health-main bash bench/import/limit.sh   # another build's health instead
#
# Prints each pair's CPU seconds (user + system) and ratio, then the median, min and max ratio.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/packages.sh
bash scripts/ensure-packages.sh "${BUILD_PACKAGES[@]}" sqlite3 python3 time

records=${BENCH_RECORDS:-518400}
pairs=${BENCH_PAIRS:-7}
work=$(mktemp -d /tmp/bandkit-import-limit.XXXXXX)
trap 'rm -rf "$work"' EXIT

if [ -z "${BENCH_HEALTH:-}" ]; then
  swift build -c release --product health 2>&1 | grep -E "error|Build" | tail -2
fi
health=${BENCH_HEALTH:-.build/release/health}
source bench/import/common.sh
cc -O2 -o "$work/baseline" bench/import/baseline.c -lsqlite3
python3 bench/import/generate.py "$records" "$work/export.xml" "$work/export.ndjson"
rm "$work/export.xml"

# The rows as the store keeps them (one import), and an empty minimal table to copy per run.
"$health" --store "$work/rows.sqlite" import "$work/export.ndjson" >/dev/null
dump_rows "$work/rows.sqlite" "$work/rows.tsv"
rows=$(wc -l <"$work/rows.tsv")
minimal_table "$work/minimal-empty.sqlite"

echo "==> $pairs pairs, $rows rows: C inserts into the minimal table, then health import (CPU seconds)"
ratios=()
for pair in $(seq "$pairs"); do
  rm -f "$work"/minimal.sqlite* "$work"/store.sqlite*
  cp "$work/minimal-empty.sqlite" "$work/minimal.sqlite"
  measure c "$work/baseline" "$work/minimal.sqlite" "$work/rows.tsv"
  measure h "$health" --store "$work/store.sqlite" import "$work/export.ndjson"
  printf -v c '%.2f' "$c_cpu"
  printf -v h '%.2f' "$h_cpu"
  ratio=$(python3 -c "import sys; print(f'{100 * float(sys.argv[1]) / float(sys.argv[2]):.1f}')" "$c" "$h")
  ratios+=("$ratio")
  echo "    pair $pair: C $c s, health $h s: $ratio %"
done
python3 - "${ratios[@]}" <<'PY'
import statistics, sys
r = sorted(map(float, sys.argv[1:]))
print(f"  health import = {statistics.median(r):.1f} % of the minimal table's rate by CPU (median; min {r[0]:.1f}, max {r[-1]:.1f})")
PY
echo "==> machine (load average: $(cut -d' ' -f1-3 /proc/loadavg)), $(nproc) cores, SQLite $(sqlite3 --version | cut -d' ' -f1)"
