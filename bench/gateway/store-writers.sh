#!/usr/bin/env bash
# Store writes without a store-wide lock: GATEWAYS simulated gateway processes, each with PEOPLE
# people of DEVICES bands, every band writing a live minute per band minute through the reader's
# write path (`SampleWriter.writeLive`, bench/gateway/StoreWritersBench.swift) at SPEED times real
# time, all into one throwaway PostgreSQL cluster; once with a lock per person (the default) and
# once with the store-wide lock of before (BANDKIT_POSTGRES_WRITE_LOCK=store), in the same run;
# then the same load into one SQLite file. Afterwards every person's change feed is read from the
# start and each band's minutes are checked against what was written: 0 lost, 0 duplicated, 0 wrong.
# Not CI (minutes of both cores). One command, release build:
#
#   bash bench/gateway/store-writers.sh                      # 20 × 10 × 5 = 1,000 bands at 10×, 90 s
#   GATEWAYS=4 SECONDS_=30 bash bench/gateway/store-writers.sh   # smaller, while working on it
#
# Environment (defaults in brackets):
#   GATEWAYS  gateway processes [20]          PEOPLE   people per gateway, a store connection each [10]
#   DEVICES   bands per person [5]             SPEED    band seconds per real second [10]
#   SECONDS_  seconds of writing [90]          RUNS     which runs, in order ["postgresql-person postgresql-store sqlite"]
#   BIN       a release build's bin directory [a `swift build -c release --product band` of this checkout]
#   KEEP=1    keep the work directory (per-commit latencies) afterwards
#
# Per run it prints rows/s committed over the run's wall time (the offered load when the store keeps
# up), commit latency p50/p99/max (each `writeLive` call through COMMIT), how late the last writes
# started against their schedule (a store that cannot keep up falls behind), and the check.
# Exit status: 0 every run kept every minute, 1 a lost/duplicated/wrong minute or a failed gateway,
# 64 a bad setting. The gateways are killed and the cluster stopped on every way out.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
for setting in GATEWAYS PEOPLE DEVICES SPEED SECONDS_; do
  value="${!setting:-}"
  [ -z "$value" ] || [[ "$value" =~ ^[0-9]+$ && "$value" -gt 0 ]] \
    || { echo "store-writers: $setting='$value' must be a positive whole number" >&2; exit 64; }
done
gateways=${GATEWAYS:-20} people=${PEOPLE:-10} devices=${DEVICES:-5} speed=${SPEED:-10} seconds=${SECONDS_:-90}
runs="${RUNS:-postgresql-person postgresql-store sqlite}"
for run in $runs; do
  case "$run" in postgresql-person|postgresql-store|sqlite) ;; *) echo "store-writers: RUNS: unknown run '$run'" >&2; exit 64 ;; esac
done
minutes=$((seconds * speed / 60))
[ "$minutes" -gt 0 ] || { echo "store-writers: SECONDS_ × SPEED must cover at least one band minute" >&2; exit 64; }

source scripts/packages.sh
bash scripts/ensure-packages.sh "${BUILD_PACKAGES[@]}" postgresql >/dev/null
if [ -z "${BIN:-}" ]; then
  echo "==> swift build -c release (band)"
  nice swift build -c release --product band 2>&1 | grep -E "error|warning: unre" || true
  BIN="$(swift build -c release --show-bin-path)"
fi
bin="$BIN"
[ -f "$bin/band.product/Objects.LinkFileList" ] || { echo "store-writers: no release build of band in $bin (build it, or unset BIN)" >&2; exit 64; }
work="$(mktemp -d "${TMPDIR:-/tmp}/bandkit-store-writers.XXXXXX")"
pids=()
source Tests/support/postgres-cluster.sh
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  postgres_cluster_stop 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "store-writers: work files kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
driver="$work/StoreWritersBench"
# The driver links the release objects of the reader and what it imports (not `band`'s own).
nice swiftc -O -module-name StoreWritersBench bench/gateway/StoreWritersBench.swift -o "$driver" \
  -I "$bin/Modules" -Xcc -fmodule-map-file=Sources/C/CSQLite/module.modulemap \
  -Xcc -fmodule-map-file=Sources/C/CPostgres/module.modulemap -Xcc -fmodule-map-file=Sources/C/CBlueZ/module.modulemap \
  -Xcc -fmodule-map-file=Sources/C/CCrypto/module.modulemap \
  $(grep -v '/band.build/' "$bin/band.product/Objects.LinkFileList") -lsqlite3 -lpq -lbluetooth -lcrypto

base=$(( ($(date +%s) - 2 * 86400) / 60 * 60 ))   # two days ago: every minute is in the past
devices_total=$((gateways * people * devices))
echo "==> $gateways gateways × $people people × $devices bands = $devices_total bands at ${speed}× for ${seconds} s ($minutes band minutes each)"
echo "    offered: $((devices_total * speed)) band minutes per real minute, about $((devices_total * speed * 5 / 60)) rows/s"
if [[ " $runs " == *" postgresql-"* ]]; then
  export POSTGRES_CLUSTER_MAX_CONNECTIONS=$((gateways * (people + 1) + 20))
  postgres_cluster_start
  trap cleanup EXIT   # postgres_cluster_start installed its own; ours stops the cluster too
  echo "    $("$POSTGRES_CLUSTER_BIN/postgres" --version), max_connections $POSTGRES_CLUSTER_MAX_CONNECTIONS"
fi

status=0
printf '%-18s %10s %8s %30s %14s %s\n' run rows/s commits "commit p50 / p99 / max (ms)" "behind (s)" check
for run in $runs; do
  lock=""
  case "$run" in
    postgresql-*)
      schema="bench_${run#postgresql-}"
      TemporaryPsql() { psql --no-psqlrc --quiet --set=ON_ERROR_STOP=1 --dbname="$BANDKIT_TEST_POSTGRES_URL" --command="$1"; }
      TemporaryPsql "CREATE SCHEMA $schema"
      store="$BANDKIT_TEST_POSTGRES_URL&options=-csearch_path%3D$schema"
      [ "$run" = postgresql-store ] && lock=store ;;
    sqlite) store="$work/health.sqlite" ;;
  esac
  # One process creates the tables; the gateways then all open a migrated store.
  "$driver" verify "$store" 0 0 0 0 0 >/dev/null
  mkdir -p "$work/$run"
  pids=()
  started=$(date +%s.%N)
  for ((g = 0; g < gateways; g++)); do
    BANDKIT_POSTGRES_WRITE_LOCK="$lock" nice -n 5 "$driver" write "$store" "$g" "$people" "$devices" "$speed" "$seconds" "$base" \
      "$work/$run/gateway-$g.txt" 2>"$work/$run/gateway-$g.err" &
    pids+=($!)
  done
  failed=0
  for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
  pids=()
  ended=$(date +%s.%N)
  check="$("$driver" verify "$store" "$gateways" "$people" "$devices" "$minutes" "$base" 2>&1)" || status=1
  [ "$failed" -eq 0 ] || { status=1; check="$check; $failed gateway(s) failed: $(head -c 400 "$work/$run"/gateway-*.err)"; }
  python3 - "$work/$run" "$started" "$ended" "$run" "$check" <<'EOF'
import glob, sys
directory, started, ended, run, check = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
latencies, rows, behind = [], 0, 0
for name in glob.glob(directory + "/gateway-*.txt"):
    for line in open(name):
        latency, written, late = map(int, line.split())
        latencies.append(latency); rows += written; behind = max(behind, late)
latencies.sort()
def pick(q): return latencies[min(len(latencies) - 1, int(q * len(latencies)))] / 1000 if latencies else float("nan")
print(f"{run:<18} {rows / (ended - started):10.0f} {len(latencies):8d} {pick(0.5):9.1f} / {pick(0.99):7.1f} / {pick(1.0):8.1f} {behind / 1e6:14.1f} {check}")
EOF
done

echo "==> machine (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "    $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GB RAM"
echo "    $(uname -sr), commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (modified)'), $(date -u '+%Y-%m-%d %H:%M UTC')"
exit "$status"
