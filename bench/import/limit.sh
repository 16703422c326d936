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
cc -O2 -o "$work/baseline" bench/import/baseline.c -lsqlite3
python3 bench/import/generate.py "$records" "$work/export.xml" "$work/export.ndjson"
rm "$work/export.xml"

# The rows as the store keeps them (one import), and an empty minimal table to copy per run.
"$health" --store "$work/rows.sqlite" import "$work/export.ndjson" >/dev/null
sqlite3 -separator $'\t' -cmd '.nullvalue <null>' "$work/rows.sqlite" \
  "SELECT anchor, hex(uuid), type_id, start_us, end_us, value, app_id, app_version, device_id, zone, sync_id, sync_version, user_entered, metadata FROM sample ORDER BY anchor" \
  >"$work/rows.tsv"
rows=$(wc -l <"$work/rows.tsv")
sqlite3 "$work/minimal-empty.sqlite" "PRAGMA journal_mode = WAL;
  CREATE TABLE sample (anchor INTEGER PRIMARY KEY, uuid BLOB NOT NULL, type_id INTEGER NOT NULL, start_us INTEGER NOT NULL,
    end_us INTEGER NOT NULL, value REAL NOT NULL, app_id INTEGER NOT NULL, app_version TEXT NOT NULL, device_id INTEGER,
    zone TEXT, sync_id TEXT, sync_version INTEGER NOT NULL, user_entered INTEGER NOT NULL, metadata TEXT,
    person_id INTEGER NOT NULL DEFAULT 1);
  CREATE INDEX sample_time ON sample (person_id, type_id, start_us, end_us, app_id, value);
  CREATE UNIQUE INDEX sample_sync ON sample (person_id, app_id, type_id, sync_id) WHERE sync_id IS NOT NULL;" >/dev/null

cpu() {  # cpu COMMAND...: prints user + system seconds of the command
  /usr/bin/time -f '%U %S' -o "$work/time" "$@" >/dev/null
  awk '{printf "%.2f", $1 + $2}' "$work/time"
}
echo "==> $pairs pairs, $rows rows: C inserts into the minimal table, then health import (CPU seconds)"
ratios=()
for pair in $(seq "$pairs"); do
  rm -f "$work"/minimal.sqlite* "$work"/store.sqlite*
  cp "$work/minimal-empty.sqlite" "$work/minimal.sqlite"
  c=$(cpu "$work/baseline" "$work/minimal.sqlite" "$work/rows.tsv")
  h=$(cpu "$health" --store "$work/store.sqlite" import "$work/export.ndjson")
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
