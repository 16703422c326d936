#!/usr/bin/env bash
# Many bands, one store (the gateway deployment of docs/deployment.md): N simulated bands (`bandsim
# serve`, one each), each with its own `band stream` gateway, write into one throwaway PostgreSQL
# cluster; then the same load
# into one SQLite file. Not CI (minutes of both cores). One command:
#
#   bash bench/postgres/load.sh                  # N=50 bands, release build
#   N=10 STREAM=30 bash bench/postgres/load.sh   # smaller, while working on it
#
# Environment (defaults in brackets):
#   N             bands and gateways [50]
#   SPEED         band seconds per real second, every band [120]
#   HISTORY_DAYS  days of minute history in each band's flash at start, synced first [0]
#   STREAM        seconds each gateway streams (`band stream --for`) [60]
#   SYNC_EVERY    history sync interval while streaming (`--sync-every`) [30]
#   ENGINES       which stores, in order ["postgresql sqlite"]
#   BIN           directory with band, bandsim and health [a `swift build -c release` of this checkout]
#   KEEP=1        keep the work directory (truth files, gateway logs) afterwards
#
# Per engine it prints rows/s committed, p50/p99/max commit latency (the `store_write` events of
# `band --json`: each committed batch's rows and the wall time of the writer's call through
# COMMIT), CPU per row (getrusage of every gateway, /proc of the PostgreSQL server's processes),
# and checks every band's minutes against its truth: 0 lost, 0 duplicated, every value the band's.
# Exit status: 0 all bands equal their truth, 1 a lost/duplicated/wrong minute, a failed process
# or a store that fell behind (gateways still running 5 minutes after their streams' end), 64 a
# bad setting. Every process and the cluster are stopped on every way out (the
# gateways and bands die with the driver: PR_SET_PDEATHSIG; the cluster by the EXIT trap).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
for setting in N SPEED HISTORY_DAYS STREAM SYNC_EVERY; do
  value="${!setting:-}"
  [ -z "$value" ] || [[ "$value" =~ ^[0-9]+$ && "$value" -gt 0 ]] \
    || { echo "load: $setting='$value' must be a positive whole number" >&2; exit 64; }
done
engines="${ENGINES:-postgresql sqlite}"
for engine in $engines; do
  case "$engine" in postgresql|sqlite) ;; *) echo "load: ENGINES: unknown engine '$engine' (postgresql, sqlite)" >&2; exit 64 ;; esac
done

source scripts/packages.sh
bash scripts/ensure-packages.sh "${BUILD_PACKAGES[@]}" postgresql >/dev/null
if [ -z "${BIN:-}" ]; then
  echo "==> swift build -c release (band, bandsim, health)"
  for product in band bandsim health; do
    nice swift build -c release --product "$product" 2>&1 | grep -E "error|warning: unre" || true
  done
  BIN="$(swift build -c release --show-bin-path)"
fi
for tool in band bandsim health; do
  [ -x "$BIN/$tool" ] || { echo "load: $BIN/$tool is missing (build it, or set BIN)" >&2; exit 64; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/bandkit-load.XXXXXX")"
source Tests/support/postgres-cluster.sh
cleanup() {
  postgres_cluster_stop 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "load: work files kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

status=0
for engine in $engines; do
  if [ "$engine" = postgresql ]; then
    postgres_cluster_start
    trap cleanup EXIT   # postgres_cluster_start installed its own; ours stops the cluster too
    store="$BANDKIT_TEST_POSTGRES_URL"
    server_pid="$(head -1 "$POSTGRES_CLUSTER_DIR/data/postmaster.pid")"
    server_version="$("$POSTGRES_CLUSTER_BIN/postgres" --version)"
  else
    store="$work/health.sqlite"
    server_pid=0
    server_version="SQLite $(sqlite3 --version 2>/dev/null | cut -d' ' -f1)"
  fi
  echo "==> $engine ($server_version): ${N:-50} bands × ${SPEED:-120}× speed, ${HISTORY_DAYS:-0} day(s) of history, ${STREAM:-60} s streaming"
  python3 bench/postgres/load.py --bin "$BIN" --work "$work/$engine" --store "$store" --engine "$engine" \
    --server-pid "$server_pid" --bands "${N:-50}" --speed "${SPEED:-120}" --history-days "${HISTORY_DAYS:-0}" \
    --stream "${STREAM:-60}" --sync-every "${SYNC_EVERY:-30}" || status=$?
  if [ "$engine" = postgresql ]; then postgres_cluster_stop; fi
  [ "$status" -eq 0 ] || break
done

echo "==> machine (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "    $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GB RAM"
echo "    $(uname -sr), commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (modified)')"
exit "$status"
