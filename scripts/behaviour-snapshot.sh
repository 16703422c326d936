#!/usr/bin/env bash
# Behaviour snapshot: every output whose bytes must not change across a refactor, written into one
# directory so that two builds can be compared with `diff -r` (scripts/behaviour-compare.sh does
# the whole before/after). Deterministic: fixed seeds, fixed band start time, the band clock at
# 1× so that no minute is recorded while the reader syncs, random sample UUIDs left out.
#
#   bash scripts/behaviour-snapshot.sh OUT_DIR [BIN_DIR]
#
# BIN_DIR holds bandsim, band and health (default: this checkout's release build, built if missing).
# Environment: SNAPSHOT_NOTIFICATIONS (default 1000000) for the generated bench-sized trace.
#
# What it records:
#   decode/    `bandsim decode` text and --json of the real captures (../shared/captures) in full,
#              and SHA-256 of both outputs for the 1M-notification generated trace and of the trace
#   replay/    `bandsim replay --into` of each capture and of a 10k generated trace: the store as
#              `health export` (sample ids left out: UUIDv7, new at every write)
#   e2e/       a simulated band (seed 5, one day of history) paired and synced by `band`: the
#              commands' stdout/stderr (temp paths and the host-dependent clock offset normalised),
#              the band's truth file, the store as `health export` NDJSON and CSV, and `health`
#              stats/query/sources/changes outputs over it
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out=${1:?usage: behaviour-snapshot.sh OUT_DIR [BIN_DIR]}
bin=${2:-}
if [ -z "$bin" ]; then
  (cd "$root" && swift build -c release 2>&1 | grep -E "error|Compiling|Build complete" | tail -2)
  bin="$(cd "$root" && swift build -c release --show-bin-path)"
fi
bin="$(cd "$bin" && pwd)"
for tool in bandsim band health; do
  [ -x "$bin/$tool" ] || { echo "behaviour-snapshot: $bin/$tool missing" >&2; exit 1; }
done
shared="$root/../shared/captures"
[ -d "$shared" ] || { echo "behaviour-snapshot: $shared missing (../shared beside the checkout)" >&2; exit 1; }

mkdir -p "$out"/{decode,replay,e2e}
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
sim_pid=""
cleanup() {
  if [ -n "$sim_pid" ]; then kill "$sim_pid" 2>/dev/null || true; wait "$sim_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# run NAME CMD...: stdout → NAME.out, stderr → NAME.err, exit status → NAME.status; temp paths
# replaced by a placeholder so two runs in different directories compare.
run() {
  local name=$1; shift
  local status=0
  "$@" >"$name.out" 2>"$name.err" || status=$?
  echo "$status" >"$name.status"
  sed -i "s|$work|\$WORK|g" "$name.out" "$name.err"
}
# Samples as exported, without the per-write UUID.
export_store() { sed -E 's/,"id":"[0-9a-f-]{36}"//' ; }

echo "==> decode"
cd "$out/decode"
for capture in "$shared"/*.log; do
  name=$(basename "$capture" .log)
  run "$name.text" "$bin/bandsim" decode "$capture"
  run "$name.json" "$bin/bandsim" decode "$capture" --json
done
notifications=${SNAPSHOT_NOTIFICATIONS:-1000000}
"$bin/bandsim" generate-trace "$work/big.log" --notifications "$notifications" >/dev/null
{
  echo "notifications $notifications"
  echo "trace $(sha256sum <"$work/big.log" | cut -d' ' -f1)"
  echo "text $("$bin/bandsim" decode "$work/big.log" | sha256sum | cut -d' ' -f1)"
  echo "json $("$bin/bandsim" decode "$work/big.log" --json | sha256sum | cut -d' ' -f1)"
  echo "monitor-trace $("$bin/bandsim" generate-trace /dev/stdout --notifications 2000 --datalink monitor --seed 9 | sha256sum | cut -d' ' -f1)"
} >generated.sha256
rm -f "$work/big.log"

echo "==> replay --into"
cd "$out/replay"
"$bin/bandsim" generate-trace "$work/small.log" --notifications 10000 --seed 3 >/dev/null
for trace in "$shared"/*.log "$work/small.log"; do
  name=$(basename "$trace" .log)
  run "$name" "$bin/bandsim" replay "$trace" --into "$work/$name.sqlite" --keep-going
  sed -i -E 's/^time: .*/time: (wall clock)/' "$name.out" "$name.err"
  run "$name.export" "$bin/health" export --store "$work/$name.sqlite"
  export_store <"$name.export.out" >"$name.samples.ndjson" && rm "$name.export.out"
done

echo "==> band ↔ simulated band"
cd "$out/e2e"
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" TZ=Europe/Berlin
store="$work/health.sqlite"
"$bin/bandsim" serve --socket "$work/band.sock" --start 2026-11-30T08:00:00+01:00 --speed 1 --seed 5 \
  --history-days 1 --state "$work/state.bin" --truth "$work/truth.ndjson" --exit-after 2 \
  --deterministic-secrets >"$work/serve.log" 2>&1 &
sim_pid=$!
for _ in $(seq 200); do [ -S "$work/band.sock" ] && break; sleep 0.05; done
run pair "$bin/band" pair "sim:$work/band.sock"
sed -i -E 's/this reader is [0-9a-f]+ on the band/this reader is READER on the band/' pair.out pair.err
run sync "$bin/band" sync "sim:$work/band.sock" --store "$store" --keep-band-clock
sed -i -E 's/band clock is [0-9]+ s (behind|ahead of) the host/band clock is N s \1 the host/' sync.out sync.err
wait "$sim_pid" || true
sim_pid=""
cp "$work/truth.ndjson" truth.ndjson
run export-json "$bin/health" export --store "$store"
export_store <export-json.out >samples.ndjson && rm export-json.out
run export-csv "$bin/health" export --format csv --store "$store"
sed -i -E 's/,[0-9a-f-]{36}$//' export-csv.out       # the per-write UUID, last column
range=(--from 2026-11-29T00:00:00+01:00 --to 2026-12-01T00:00:00+01:00)
for type in step-count distance-walking-running active-energy-burned; do
  run "stats-$type-day" "$bin/health" stats "$type" --sum --by day --tz Europe/Berlin "${range[@]}" --store "$store"
  run "stats-$type-hour-json" "$bin/health" stats "$type" --sum --by hour --json "${range[@]}" --store "$store"
done
for stat in avg min max; do
  run "stats-heart-rate-$stat" "$bin/health" stats heart-rate --"$stat" --by hour "${range[@]}" --store "$store"
done
run query-heart-rate "$bin/health" query heart-rate --limit 20 "${range[@]}" --store "$store"
run sources "$bin/health" sources --store "$store"
run devices "$bin/band" devices
sed -i -E 's/paired [0-9T:Z-]+/paired TIME/' devices.out
echo "behaviour snapshot written to $out"
