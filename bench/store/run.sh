#!/usr/bin/env bash
# Health store benchmark: one command, release build. Never run in CI (minutes of CPU, ~2 GB of temp files).
#
#   bash bench/store/run.sh            # a year of minute data: 3 sources × 4 types = 6,307,200 samples
#
# Measures, in one run on the same machine:
#   1. sqlite3 CLI (the baseline): the same rows as batched INSERTs into the same schema, one transaction;
#   2. `health import FILE` (NDJSON parsing + validation + the store's write path), one transaction;
#   3. the library API (QuantitySample → WriteTransaction.save), one transaction;
#   4. daily merged step totals for the year (365 calendar days, Europe/Berlin): library, best and median
#      of 5, and the `health stats` command end to end.
# Figures go to docs/performance.md ("Health store") by hand, with the machine line printed at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/packages.sh
bash scripts/ensure-packages.sh "${BUILD_PACKAGES[@]}" sqlite3

work=$(mktemp -d /tmp/bandkit-store-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "==> release build"
swift build -c release --product health 2>&1 | grep -E "error|warning: unre|Compiling|Build" | tail -3
# The driver links the release objects of HealthModel and HealthStore (no extra package target).
# The objects of this build only (the link list): a *.o glob would also pick up those of moved files.
swiftc -O -module-name StoreBench bench/store/StoreBench.swift -o "$work/StoreBench" \
  -I .build/release/Modules -Xcc -fmodule-map-file=Sources/C/CSQLite/module.modulemap \
  -Xcc -fmodule-map-file=Sources/C/CPostgres/module.modulemap \
  $(grep -E '/(BandKitSystem|JSONOutput|CivilTime|HealthModel|HealthStore)\.build/' .build/release/health.product/Objects.LinkFileList) -lsqlite3 -lpq
health=.build/release/health
days=${BENCH_DAYS:-365}
export BENCH_DAYS=$days
rows=$((days * 1440 * 12))

# measure NAME COMMAND...: runs it, sets NAME_wall and NAME_cpu (user + system seconds of the command).
# On a shared machine wall time includes waiting for a core; CPU time does not, so both are reported.
measure() {
  local name=$1; shift
  local times; times=$( { TIMEFORMAT='%R %U %S'; time "$@" >"$work/$name.out"; } 2>&1 )
  read -r wall user sys <<<"$(tail -1 <<<"$times")"
  printf -v "${name}_wall" '%s' "$wall"
  printf -v "${name}_cpu" '%s' "$(python3 -c "print($user + $sys)")"
}
report() {  # report NAME
  local wall="${1}_wall" cpu="${1}_cpu"
  python3 - "${!wall}" "${!cpu}" "$rows" <<'PY'
import sys
wall, cpu, rows = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
print(f"    wall {wall:.2f} s ({rows / wall:,.0f} rows/s), CPU {cpu:.2f} s ({rows / cpu:,.0f} rows/s)")
PY
}
ratio() {  # ratio NAME: rate relative to the baseline, by wall and by CPU time
  local wall="${1}_wall" cpu="${1}_cpu"
  python3 -c "import sys; b_w, b_c, w, c = map(float, sys.argv[1:]); print(f'    = {100 * b_w / w:.0f}% of the sqlite3 CLI rate by wall time, {100 * b_c / c:.0f}% by CPU time')" \
    "$baseline_wall" "$baseline_cpu" "${!wall}" "${!cpu}"
}

echo "==> generating $rows rows (NDJSON and SQL)"
"$work/StoreBench" generate-ndjson "$work/year.ndjson"
"$health" --store "$work/baseline.sqlite" sources >/dev/null   # creates the schema
type_ids=$(sqlite3 "$work/baseline.sqlite" "SELECT group_concat(identifier || '=' || id) FROM sample_type")
"$work/StoreBench" generate-sql "$work/year.sql" "$type_ids"
ls -l "$work"/year.* | awk '{print "    " $5 " bytes  " $9}'

echo "==> 1. sqlite3 CLI baseline"
measure baseline sqlite3 "$work/baseline.sqlite" ".read $work/year.sql"
count=$(sqlite3 "$work/baseline.sqlite" "SELECT count(*) FROM sample")
[ "$count" -eq "$rows" ] || { echo "baseline stored $count rows, expected $rows" >&2; exit 1; }
report baseline

echo "==> 2. health import (NDJSON)"
measure import "$health" --store "$work/import.sqlite" import "$work/year.ndjson"
cat "$work/import.out" | sed 's/^/    /'
report import; ratio import

echo "==> 3. library API"
measure library "$work/StoreBench" library-import "$work/library.sqlite"
report library; ratio library

echo "==> 4. daily merged step totals for a year"
"$work/StoreBench" daily-steps "$work/import.sqlite" 5 | sed 's/^/    /'
measure stats "$health" --store "$work/import.sqlite" stats step-count --from 2025-01-01T00:00:00+01:00 \
  --to 2026-01-01T00:00:00+01:00 --by day --tz Europe/Berlin --json
echo "    health stats --by day, whole process: wall $(python3 -c "print(f'{1000 * $stats_wall:.0f}')") ms, CPU $(python3 -c "print(f'{1000 * $stats_cpu:.0f}')") ms, $(grep -c '"start"' "$work/stats.out") days"
ls -l "$work"/*.sqlite | awk '{print "    " $5 " bytes  " $9}'

echo "==> machine (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "    $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GB RAM"
echo "    $(uname -sr), $(swift --version 2>&1 | head -1), SQLite $(sqlite3 --version | cut -d' ' -f1)"
