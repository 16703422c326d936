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
#   BEFORE_DRIVER  a StoreWritersBench built from another commit (KEEP=1 of a run there keeps it in the
#             work directory): RUNS may then name postgresql-before, that commit's per-person lock, as baseline
#   KEEP=1    keep the work directory (per-commit latencies) afterwards
#
# Per run it prints rows/s committed over the run's wall time (the offered load when the store keeps
# up), commit latency p50/p99/max (each `writeLive` call through COMMIT), how late the last writes
# started against their schedule (a store that cannot keep up falls behind), and the check; then
# the CPU per committed row of the gateways and (PostgreSQL) of the server, and what the server's
# writers were waiting for: pg_stat_activity's wait events sampled twice a second, as the mean
# number of writer connections in each (none: running or runnable; ClientRead: waiting for the gateway).
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
  case "$run" in postgresql-person|postgresql-store|sqlite) ;;
    postgresql-before) [ -x "${BEFORE_DRIVER:-}" ] || { echo "store-writers: RUNS: postgresql-before needs BEFORE_DRIVER" >&2; exit 64; } ;;
    *) echo "store-writers: RUNS: unknown run '$run'" >&2; exit 64 ;;
  esac
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
# The driver links the release objects of the reader and what it imports (not `band`'s own); the
# list quotes each path (a checkout's path may hold spaces).
eval "objects=( $(grep -v '/band.build/' "$bin/band.product/Objects.LinkFileList" | tr '\n' ' ') )"
nice swiftc -O -module-name StoreWritersBench bench/gateway/StoreWritersBench.swift -o "$driver" \
  -I "$bin/Modules" -Xcc -fmodule-map-file=Sources/C/CSQLite/module.modulemap \
  -Xcc -fmodule-map-file=Sources/C/CPostgres/module.modulemap -Xcc -fmodule-map-file=Sources/C/CBlueZ/module.modulemap \
  -Xcc -fmodule-map-file=Sources/C/CCrypto/module.modulemap \
  "${objects[@]}" -lsqlite3 -lpq -lbluetooth -lcrypto

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

# CPU ticks of the server so far: the postmaster, its live processes, and the backends it reaped.
server_ticks() {
  local postmaster pid total=0
  postmaster=$(head -n 1 "$POSTGRES_CLUSTER_DIR/data/postmaster.pid")
  for pid in $postmaster $(ps --ppid "$postmaster" -o pid= 2>/dev/null); do
    # Fields after the command's closing parenthesis: utime is the 12th, then stime, cutime, cstime.
    total=$((total + $(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | awk -v main="$([ "$pid" = "$postmaster" ] && echo 1)" \
      '{ t = $12 + $13 + (main ? $14 + $15 : 0) } END { print t + 0 }')))
  done
  echo "$total"
}
# Samples what the server's client backends wait for, twice a second, until killed.
sample_waits() {
  while sleep 0.5; do
    psql --no-psqlrc --quiet --tuples-only --no-align --field-separator=' ' --dbname="$BANDKIT_TEST_POSTGRES_URL" --command="
      SELECT coalesce(wait_event_type || ':' || wait_event, 'none'), count(*) FROM pg_stat_activity
      WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND state <> 'idle' GROUP BY 1" 2>/dev/null | sed 's/^/sample /'
    echo tick
  done
}

status=0
printf '%-18s %10s %8s %30s %14s %s\n' run rows/s commits "commit p50 / p99 / max (ms)" "behind (s)" check
for run in $runs; do
  lock=""
  case "$run" in
    postgresql-*)
      schema="bench_${run#postgresql-}"
      [ "$run" = postgresql-before ] && run_driver="$BEFORE_DRIVER" || run_driver="$driver"
      TemporaryPsql() { psql --no-psqlrc --quiet --set=ON_ERROR_STOP=1 --dbname="$BANDKIT_TEST_POSTGRES_URL" --command="$1"; }
      TemporaryPsql "CREATE SCHEMA $schema"
      store="$BANDKIT_TEST_POSTGRES_URL&options=-csearch_path%3D$schema"
      [ "$run" = postgresql-store ] && lock=store ;;
    sqlite) store="$work/health.sqlite"; run_driver="$driver" ;;
  esac
  # One process creates the tables; the gateways then all open a migrated store.
  "$run_driver" verify "$store" 0 0 0 0 0 >/dev/null
  mkdir -p "$work/$run"
  pids=()
  ticks_before=0 sampler=""
  if [ "$run" != sqlite ]; then
    sleep 0.5   # the verifying backend reaped
    ticks_before=$(server_ticks)
    sample_waits >"$work/$run/waits.txt" &
    sampler=$!
    pids+=("$sampler")
  fi
  started=$(date +%s.%N)
  for ((g = 0; g < gateways; g++)); do
    BANDKIT_POSTGRES_WRITE_LOCK="$lock" nice -n 5 "$run_driver" write "$store" "$g" "$people" "$devices" "$speed" "$seconds" "$base" \
      "$work/$run/gateway-$g.txt" 2>"$work/$run/gateway-$g.err" &
    pids+=($!)
  done
  failed=0
  for pid in "${pids[@]}"; do [ "$pid" = "$sampler" ] || wait "$pid" || failed=$((failed + 1)); done
  ended=$(date +%s.%N)
  server_cpu=""
  if [ -n "$sampler" ]; then
    kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true
    sleep 0.5   # the gateways' backends reaped
    server_cpu=$(( ($(server_ticks) - ticks_before) * 1000000 / $(getconf CLK_TCK) ))
  fi
  pids=()
  check="$("$run_driver" verify "$store" "$gateways" "$people" "$devices" "$minutes" "$base" 2>&1)" || status=1
  [ "$failed" -eq 0 ] || { status=1; check="$check; $failed gateway(s) failed: $(head -c 400 "$work/$run"/gateway-*.err)"; }
  python3 - "$work/$run" "$started" "$ended" "$run" "$check" "$server_cpu" <<'EOF'
import collections, glob, os, sys
directory, started, ended, run, check, server_cpu = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
latencies, rows, behind, client_cpu = [], 0, 0, 0
for name in glob.glob(directory + "/gateway-*.txt"):
    for line in open(name):
        latency, written, late = map(int, line.split())
        latencies.append(latency); rows += written; behind = max(behind, late)
    if os.path.exists(name + ".cpu"): client_cpu += int(open(name + ".cpu").read())
latencies.sort()
def pick(q): return latencies[min(len(latencies) - 1, int(q * len(latencies)))] / 1000 if latencies else float("nan")
print(f"{run:<18} {rows / (ended - started):10.0f} {len(latencies):8d} {pick(0.5):9.1f} / {pick(0.99):7.1f} / {pick(1.0):8.1f} {behind / 1e6:14.1f} {check}")
per_row = lambda us: f"{int(us) / max(rows, 1):.0f} µs" if us else "-"
line = f"{'':18} CPU per row: gateways {per_row(client_cpu)}, server {per_row(server_cpu)}"
waits, ticks = collections.Counter(), 0
if os.path.exists(directory + "/waits.txt"):
    for sample in open(directory + "/waits.txt"):
        fields = sample.split()
        if fields == ["tick"]: ticks += 1
        elif len(fields) == 3: waits[fields[1]] += int(fields[2])
if ticks:
    line += "; writers waiting (mean): " + ", ".join(f"{event} {count / ticks:.1f}" for event, count in waits.most_common(6))
print(line)
EOF
done

echo "==> machine (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "    $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GB RAM"
echo "    $(uname -sr), commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (modified)'), $(date -u '+%Y-%m-%d %H:%M UTC')"
exit "$status"
