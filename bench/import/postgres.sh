#!/usr/bin/env bash
# `health import` into PostgreSQL against the same import into SQLite, and (optionally) against an
# older `health` binary on the same data in the same run: the batched write path's before/after.
# Never run in CI (minutes of CPU).
#
#   bash bench/import/postgres.sh                       # 525,600 records, this tree's release build
#   HEALTH_BEFORE=/path/to/old/health bash bench/import/postgres.sh
#   BENCH_RECORDS=100000 bash bench/import/postgres.sh
#
# A throwaway cluster (Tests/support/postgres-cluster.sh: a Unix socket in a temporary directory,
# stopped on EXIT also on failure), one schema per import. The data are bench/import/generate.py's
# NDJSON (two sources, two devices, per-minute samples with sync identifiers, workouts, sleep).
# Each import is checked: the same number of samples on every store.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
source scripts/packages.sh
bash scripts/ensure-packages.sh "${BUILD_PACKAGES[@]}" postgresql python3 time >/dev/null

records=${BENCH_RECORDS:-525600}
work=$(mktemp -d /tmp/bandkit-pg-import-bench.XXXXXX)
source Tests/support/postgres-cluster.sh
cleanup() { postgres_cluster_stop; rm -rf "$work"; }
trap cleanup EXIT
postgres_cluster_start
trap cleanup EXIT   # postgres_cluster_start set its own trap; keep both jobs
psql_run() { "$POSTGRES_CLUSTER_BIN/psql" -X -q -t -A "$BANDKIT_TEST_POSTGRES_URL" -c "$1"; }

echo "==> release build"
swift build -c release --product health 2>&1 | grep -E "error|Build" | tail -2
after=.build/release/health

echo "==> generating $records records"
python3 bench/import/generate.py "$records" "$work/export.xml" "$work/export.ndjson"
rm "$work/export.xml"
ls -l "$work/export.ndjson" | awk '{print "    " $5 " bytes, " }' | tr -d '\n'; wc -l <"$work/export.ndjson" | awk '{print $1 " lines"}'

# run NAME BINARY STORE: imports export.ndjson, prints wall/CPU and rows/s.
run() {
  local name=$1 binary=$2 store=$3
  /usr/bin/time -f '%e %U %S %M' -o "$work/$name.time" "$binary" --store "$store" import "$work/export.ndjson" >"$work/$name.out"
  read -r wall user sys rss <"$work/$name.time"
  python3 - "$name" "$wall" "$user" "$sys" "$rss" "$(sed -n 's/^imported \([0-9]*\) samples.*/\1/p' "$work/$name.out")" <<'PY'
import sys
name, wall, user, sys_, rss, rows = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
cpu = user + sys_
print(f"    {name:<24} {rows:,} rows: wall {wall:.1f} s ({rows / wall:,.0f} rows/s), client CPU {cpu:.1f} s, peak RSS {rss / 1024:.0f} MiB")
PY
}
pg_store() {  # pg_store SCHEMA: a fresh schema's URL
  psql_run "CREATE SCHEMA $1"
  echo "$BANDKIT_TEST_POSTGRES_URL&options=-csearch_path%3D$1"
}
count_pg() { psql_run "SELECT count(*) FROM $1.sample"; }

echo "==> health import export.ndjson"
run "SQLite (this tree)" "$after" "$work/sqlite.sqlite"
run "PostgreSQL (this tree)" "$after" "$(pg_store after)"
rows_after=$(count_pg after)
if [ -n "${HEALTH_BEFORE:-}" ]; then
  run "PostgreSQL (before)" "$HEALTH_BEFORE" "$(pg_store before)"
  [ "$(count_pg before)" = "$rows_after" ] || { echo "before and after stored different row counts" >&2; exit 1; }
fi
echo "    samples stored on PostgreSQL: $rows_after"

echo "==> machine (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "    $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $("$POSTGRES_CLUSTER_BIN/postgres" --version)"
cd "$root"
