#!/usr/bin/env bash
# Dashboard benchmark: one command, release build. Never run in CI (minutes of CPU, ~1.5 GB of temp files).
#
#   bash bench/dashboard/run.sh        # a year of minute data: 3 sources × 4 types = 6,307,200 samples
#
# Builds the year store with bench/store's driver (library import), grants bandkit.dashboard, starts
# `health serve` (release) on it and measures, per request (curl's time_total against a warm server,
# loopback; the server computes everything per request, nothing is cached):
#   day view (/day), week view (/week), month view (/month), the day's chart (/chart.svg?view=day);
# each over RUNS different dates (best, median, worst), and `health chart --day` as a whole process
# (wall and CPU, including the process start). Targets: day ≤ 50 ms, week ≤ 150 ms,
# chart per day ≤ 100 ms. Figures go to docs/performance.md ("Dashboard") by hand.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/packages.sh
bash scripts/ensure-packages.sh "${BUILD_PACKAGES[@]}" curl

work=$(mktemp -d /tmp/bandkit-dashboard-bench.XXXXXX)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

echo "==> release build"
swift build -c release --product health 2>&1 | grep -E "error|Compiling|Build" | tail -3
# The objects of this build only (the link list): a *.o glob would also pick up those of moved files.
swiftc -O -module-name StoreBench bench/store/StoreBench.swift -o "$work/StoreBench" \
  -I .build/release/Modules -Xcc -fmodule-map-file=Sources/C/CSQLite/module.modulemap \
  -Xcc -fmodule-map-file=Sources/C/CPostgres/module.modulemap \
  $(grep -E '/(BandKitSystem|JSONOutput|CivilTime|HealthModel|HealthStore)\.build/' .build/release/health.product/Objects.LinkFileList) -lsqlite3 -lpq
health=.build/release/health
export BENCH_DAYS=${BENCH_DAYS:-365}
runs=${RUNS:-15}

echo "==> the store: $BENCH_DAYS days × 1440 minutes × 3 sources × 4 types (library import)"
start=$(date +%s)
"$work/StoreBench" library-import "$work/year.sqlite"
echo "    built in $(( $(date +%s) - start )) s, $(du -m "$work/year.sqlite" | cut -f1) MB"
for type in step-count heart-rate active-energy-burned distance-walking-running sleep-analysis workout; do
  "$health" --store "$work/year.sqlite" grant bandkit.dashboard "$type" --read >/dev/null
done

"$health" --store "$work/year.sqlite" serve --port 0 --tz Europe/Berlin >"$work/serve.out" 2>"$work/serve.log" &
server=$!
for _ in $(seq 200); do grep -q "http://" "$work/serve.out" 2>/dev/null && break; sleep 0.05; done
url="http://$(grep -o '127.0.0.1:[0-9]*' "$work/serve.out")"

# dates spread over the year (the store starts 2025-01-01)
dates=$(python3 -c "
import datetime, sys
days = int('$BENCH_DAYS'); runs = int('$runs')
start = datetime.date(2025, 1, 1)
for i in range(runs): print(start + datetime.timedelta(days=min(days - 8, 3 + i * max(1, (days - 10) // runs))))")

measure() {  # NAME PATH-PREFIX (date appended)
  local name=$1 prefix=$2
  curl -sf "$url$prefix$(head -1 <<<"$dates")" -o /dev/null   # warm-up
  for date in $dates; do curl -sf -o /dev/null -w '%{time_total}\n' "$url$prefix$date"; done >"$work/$name.times"
  python3 - "$name" "$work/$name.times" <<'PY'
import statistics, sys
times = sorted(float(t) * 1000 for t in open(sys.argv[2]))
print(f"    {sys.argv[1]:<10} best {times[0]:7.1f} ms  median {statistics.median(times):7.1f} ms  worst {times[-1]:7.1f} ms  ({len(times)} dates)")
PY
}
echo "==> server time per request (curl time_total, warm server)"
measure day "/day?date="
measure week "/week?date="
measure month "/month?date="
measure chart-day "/chart.svg?view=day&date="
measure chart-week "/chart.svg?view=week&date="

echo "==> health chart --day as a process (5 runs: wall, CPU)"
for date in $(head -5 <<<"$dates"); do
  { TIMEFORMAT='%R %U %S'; time "$health" --store "$work/year.sqlite" chart --day "$date" --tz Europe/Berlin -o "$work/day.svg"; } 2>&1 | tail -1
done | python3 -c "
import sys, statistics
rows = [list(map(float, line.split())) for line in sys.stdin if line.strip()]
walls = sorted(1000 * r[0] for r in rows); cpus = sorted(1000 * (r[1] + r[2]) for r in rows)
print(f'    wall best {walls[0]:.0f} ms, median {statistics.median(walls):.0f} ms; CPU best {cpus[0]:.0f} ms, median {statistics.median(cpus):.0f} ms')"

echo "==> machine (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "    $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GB RAM"
echo "    $(uname -sr), $(swift --version 2>&1 | head -1), commit $(git rev-parse --short HEAD)"
