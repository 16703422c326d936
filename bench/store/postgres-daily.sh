#!/usr/bin/env bash
# Daily merged step totals for one person over a year of minute data, PostgreSQL next to SQLite in
# the same run (target: ≤ 100 ms on PostgreSQL too, as on SQLite). Release build; not CI.
#
#   bash bench/store/postgres-daily.sh      # a year: 3 overlapping sources × 525,600 minutes of steps
#
# The same rows go into a fresh SQLite store and a throwaway PostgreSQL cluster
# (Tests/support/postgres-cluster.sh, stopped on every way out) through the library
# (StoreBench library-import, BENCH_TYPES=step-count, one transaction each); then
# StoreBench daily-steps (HealthStore.statistics, 365 Europe/Berlin days, best and median of 5)
# and the `health stats … --by day` process on each, and the PostgreSQL/SQLite ratio.
# BENCH_DAYS=N fills fewer days (the query still spans the year). Loading PostgreSQL is the slow
# part (one round trip per row): about 10 minutes for the year here.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/packages.sh
bash scripts/ensure-packages.sh "${BUILD_PACKAGES[@]}" postgresql >/dev/null

work=$(mktemp -d /tmp/bandkit-pg-daily.XXXXXX)
source Tests/support/postgres-cluster.sh
cleanup() { postgres_cluster_stop; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "==> release build"
nice swift build -c release --product health 2>&1 | grep -E "error|warning: unre" || true
swiftc -O -module-name StoreBench bench/store/StoreBench.swift -o "$work/StoreBench" \
  -I .build/release/Modules -Xcc -fmodule-map-file=Sources/C/CSQLite/module.modulemap \
  -Xcc -fmodule-map-file=Sources/C/CPostgres/module.modulemap \
  $(grep -E '/(BandKitSystem|JSONOutput|CivilTime|HealthModel|HealthStore)\.build/' .build/release/health.product/Objects.LinkFileList) -lsqlite3 -lpq
health=.build/release/health
export BENCH_TYPES=step-count BENCH_DAYS="${BENCH_DAYS:-365}"

postgres_cluster_start
trap cleanup EXIT
url="$BANDKIT_TEST_POSTGRES_URL"
sqlite="$work/year.sqlite"

for engine in sqlite postgresql; do
  store=$sqlite; [ "$engine" = sqlite ] || store=$url
  echo "==> $engine: loading $((BENCH_DAYS * 1440 * 3)) step samples (library, one transaction)"
  "$work/StoreBench" library-import "$store" | sed 's/^/    /'
  echo "==> $engine: daily merged step totals for the year"
  "$work/StoreBench" daily-steps "$store" 5 | tee "$work/$engine.daily" | sed 's/^/    /'
  times=$( { TIMEFORMAT='%R %U %S'; time "$health" --store "$store" stats step-count --from 2025-01-01T00:00:00+01:00 \
    --to 2026-01-01T00:00:00+01:00 --by day --tz Europe/Berlin --json >"$work/$engine.stats"; } 2>&1 )
  read -r wall user sys <<<"$(tail -1 <<<"$times")"
  echo "    health stats --by day, whole process: wall $(python3 -c "print(f'{1000 * $wall:.0f}')") ms, CPU $(python3 -c "print(f'{1000 * ($user + $sys):.0f}')") ms, $(grep -c '"start"' "$work/$engine.stats") days"
done

cmp -s "$work/sqlite.stats" "$work/postgresql.stats" \
  || { echo "postgres-daily: health stats differs between the engines:" >&2; diff "$work/sqlite.stats" "$work/postgresql.stats" | head >&2; exit 1; }
echo "    health stats output: byte for byte the same on both engines"
python3 - "$work/sqlite.daily" "$work/postgresql.daily" <<'PY'
import sys
def figures(path):
    return dict(part.split("=") for part in open(path).read().split()[1:])
sqlite, pg = figures(sys.argv[1]), figures(sys.argv[2])
if sqlite["merged_total"] != pg["merged_total"]:
    sys.exit(f"postgres-daily: merged totals differ: SQLite {sqlite['merged_total']}, PostgreSQL {pg['merged_total']}")
for key in ("best_ms", "median_ms"):
    print(f"    {key[:-3]}: PostgreSQL {float(pg[key]):.2f} ms, SQLite {float(sqlite[key]):.2f} ms, ratio {float(pg[key]) / float(sqlite[key]):.1f}×")
PY
echo "==> machine (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "    $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $("$POSTGRES_CLUSTER_BIN/postgres" --version); commit $(git rev-parse --short HEAD)"
