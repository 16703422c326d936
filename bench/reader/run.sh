#!/usr/bin/env bash
# Reader benchmark: a simulated week of minute history synced at maximum speed, then a long live
# stream, measured on the `band` process alone.
#
#   1. `bandsim serve` with 7 days (10 080 minutes) of history in its flash;
#   2. `band pair`, then `band sync` under /usr/bin/time -v: minutes/s, reader CPU (user+sys),
#      peak RSS;
#   3. baseline in the same run: `health import` of the very samples the sync wrote (exported
#      with `health export`) into a fresh store — the store's own bulk-write path, so the ratio
#      is what the radio protocol, verification and mapping cost on top of storing;
#   4. `band stream` against the band at --speed STREAM_SPEED (default 3000) for STREAM_SECONDS
#      (default 60 s, i.e. 50 band hours of one-second heart rate, cadence and counters),
#      sampling the reader's RSS and its private dirty memory (heap and stacks: what the process
#      itself allocated, from /proc/PID/smaps_rollup) every second. Private memory grows while
#      SQLite's page cache (bounded: 2 MiB for the reader) fills, some 16–24 band hours; after
#      that it must stay flat: the largest value in the last third of the run may exceed the
#      largest in the middle third by 0.5 MB at most. At --speed 600 the cache would still be
#      filling after a minute, indistinguishable from a leak.
#
# RSS counts every page the process has mapped, its own and the clean pages of the code it
# runs: `band` links the Swift runtime and FoundationEssentials statically (Package.swift) and
# maps libc, libstdc++, OpenSSL's libcrypto, SQLite and libbluetooth; `band --help` alone is
# about 10 MB. The table splits the streaming reader's RSS into the band binary, the shared
# libraries and anonymous memory (heap, stacks), so the reader's own footprint is visible.
#
# Targets: a week in ≤ 2 s of reader CPU, peak RSS ≤ 30 MB, memory flat while
# streaming. Prints a Markdown table for docs/performance.md; exits 1 if a target is missed.
# Usage: bench/reader/run.sh [--debug]   (release build by default)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/packages.sh
bash scripts/ensure-packages.sh "${BUILD_PACKAGES[@]}" time
config=release
[ "${1:-}" = "--debug" ] && config=debug
echo "==> swift build -c $config" >&2
swift build -c "$config" --product band >&2 2>&1 | grep -E "error|warning: unre" >&2 || true
swift build -c "$config" --product bandsim >&2 2>&1 | grep -E "error" >&2 || true
swift build -c "$config" --product health >&2 2>&1 | grep -E "error" >&2 || true
bin=$(swift build -c "$config" --show-bin-path)
stream_seconds=${STREAM_SECONDS:-60}
stream_speed=${STREAM_SPEED:-3000}

work=$(mktemp -d "${TMPDIR:-/tmp}/bandkit-bench.XXXXXX")
sim_pid=""
cleanup() {
  [ -n "$sim_pid" ] && { kill "$sim_pid" 2>/dev/null || true; wait "$sim_pid" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT
export XDG_CONFIG_HOME="$work/config"

start_band() {   # start_band SPEED EXTRA...
  local speed=$1; shift
  rm -f "$work/band.sock"
  "$bin/bandsim" serve --socket "$work/band.sock" --start 2026-11-30T07:00:00Z --speed "$speed" --seed 7 \
    --state "$work/flash.img" "$@" >"$work/bandsim.log" 2>&1 &
  sim_pid=$!
  for _ in $(seq 1 1200); do [ -S "$work/band.sock" ] && return 0; sleep 0.05; done
  echo "bench: bandsim did not start" >&2; cat "$work/bandsim.log" >&2; exit 1
}
stop_band() { kill "$sim_pid"; wait "$sim_pid" 2>/dev/null || true; sim_pid=""; }

# Field from GNU time -v output.
field() { grep -F "$1" "$2" | sed -E 's/.*: //'; }

help_rss_kb=$( { /usr/bin/time -f "%M" "$bin/band" --help >/dev/null; } 2>&1 | tail -1)

echo "==> simulated band with a week of history" >&2
start_band 1 --history-days 7 --history-capacity 12000
"$bin/band" pair "sim:$work/band.sock" >/dev/null 2>&1

echo "==> band sync (a week)" >&2
/usr/bin/time -v -o "$work/sync.time" "$bin/band" sync "sim:$work/band.sock" --store "$work/reader.sqlite" --json >"$work/sync.out" 2>"$work/sync.err"
minutes=$(grep -o '"event":"synced","minutes":[0-9]*' "$work/sync.out" | grep -o '[0-9]*$')
sync_user=$(field "User time" "$work/sync.time"); sync_sys=$(field "System time" "$work/sync.time")
sync_wall=$(field "Elapsed (wall clock)" "$work/sync.time"); sync_rss_kb=$(field "Maximum resident set size" "$work/sync.time")
sync_cpu=$(awk -v u="$sync_user" -v s="$sync_sys" 'BEGIN { printf "%.2f", u + s }')
wall_s=$(echo "$sync_wall" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }')
per_cpu_s=$(awk -v m="$minutes" -v c="$sync_cpu" 'BEGIN { printf "%.0f", (c > 0 ? m / c : 0) }')
per_wall_s=$(awk -v m="$minutes" -v w="$wall_s" 'BEGIN { printf "%.0f", (w > 0 ? m / w : 0) }')
samples=$("$bin/health" export --store "$work/reader.sqlite" | tee "$work/week.ndjson" | wc -l)

echo "==> baseline: health import of the same $samples samples" >&2
/usr/bin/time -v -o "$work/import.time" "$bin/health" import "$work/week.ndjson" --store "$work/baseline.sqlite" >/dev/null 2>&1
import_cpu=$(awk -v u="$(field "User time" "$work/import.time")" -v s="$(field "System time" "$work/import.time")" 'BEGIN { printf "%.2f", u + s }')
import_rss_kb=$(field "Maximum resident set size" "$work/import.time")
ratio=$(awk -v a="$sync_cpu" -v b="$import_cpu" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
stop_band

echo "==> band stream for ${stream_seconds} s at --speed ${stream_speed}" >&2
start_band "$stream_speed"
"$bin/band" stream "sim:$work/band.sock" --store "$work/reader.sqlite" --for "${stream_seconds}s" --keep-band-clock --json \
  >"$work/stream.out" 2>"$work/stream.err" &
stream_pid=$!
: >"$work/rss.txt"
: >"$work/private.txt"
echo "0 0 0" >"$work/split.txt"
band_file=$(readlink -f "$bin/band")
# The closing history sync at --for's deadline (a history transfer after "streaming") is sync
# work, measured above: private memory is followed until it starts, RSS to the end.
closing_sync() { awk '/"event":"streaming"/ { s = 1 } s && /"event":"history_transfer"/ { found = 1 } END { exit !found }' "$work/stream.out"; }
while kill -0 "$stream_pid" 2>/dev/null; do
  awk '/^Rss:/ { print $2 }' "/proc/$stream_pid/smaps_rollup" 2>/dev/null >>"$work/rss.txt" || true
  if ! closing_sync; then
    awk '/^Private_Dirty:/ { print $2 }' "/proc/$stream_pid/smaps_rollup" 2>/dev/null >>"$work/private.txt" || true
    # RSS by kind of mapping, kept from the last sample: the band binary, other files (shared
    # libraries), anonymous memory (heap, stacks, the runtime's allocations).
    awk -v band="$band_file" '
      /^[0-9a-f]+-[0-9a-f]+ / { kind = ($6 == band) ? "binary" : ($6 ~ /^\// ? "libraries" : "anonymous") }
      /^Rss:/ { kb[kind] += $2 }
      END { if (length(kb)) print kb["binary"] + 0, kb["libraries"] + 0, kb["anonymous"] + 0 }' \
      "/proc/$stream_pid/smaps" 2>/dev/null >"$work/split.next" && [ -s "$work/split.next" ] && mv "$work/split.next" "$work/split.txt" || true
  fi
  sleep 1
done
wait "$stream_pid"
readings=$(grep -c '"event":"reading"' "$work/stream.out" || true)
# The largest value in each third of the run (and overall). Private memory grows in the first
# third while SQLite's page cache (2 MiB for the reader) fills; flat means the last third holds
# no more than the middle one.
thirds() { awk '{ v[NR] = $1; if ($1 > m) m = $1 } END {
  a = int(NR / 3); if (a < 1) a = 1; b = NR - a + 1; if (b < 1) b = 1
  early = 0; for (i = 1; i <= a; i++) if (v[i] > early) early = v[i]
  middle = 0; for (i = a + 1; i < b; i++) if (v[i] > middle) middle = v[i]
  late = 0; for (i = b; i <= NR; i++) if (v[i] > late) late = v[i]
  print early, middle, late, m }' "$1"; }
read -r rss_early rss_middle rss_late rss_max < <(thirds "$work/rss.txt")
read -r private_early private_middle private_late private_max < <(thirds "$work/private.txt")
growth_kb=$((private_late - private_middle))
read -r split_binary split_libraries split_anonymous < "$work/split.txt"

mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
cat <<TABLE
| measurement | value | target |
|---|---|---|
| week synced | $minutes minutes, $samples samples | 10 080 minutes |
| reader CPU (user + sys) | ${sync_cpu} s | ≤ 2 s |
| reader wall time | ${wall_s} s | |
| minutes/s | ${per_cpu_s} per CPU second, ${per_wall_s} per wall second | |
| reader peak RSS, sync | $(mb "$sync_rss_kb") MB | ≤ 30 MB |
| baseline: health import of the same samples | ${import_cpu} s CPU, $(mb "$import_rss_kb") MB | |
| sync CPU / import CPU | ${ratio} | |
| stream | ${stream_seconds} s at ${stream_speed}× ($(awk -v s="$stream_seconds" -v x="$stream_speed" 'BEGIN { printf "%.0f", s * x / 3600 }') band hours), ${readings} readings | |
| reader RSS while streaming (largest in each third, overall) | $(mb "$rss_early") → $(mb "$rss_middle") → $(mb "$rss_late") MB, max $(mb "$rss_max") MB | ≤ 30 MB |
| reader private dirty memory while streaming (largest in each third) | $(mb "$private_early") → $(mb "$private_middle") → $(mb "$private_late") MB | flat: last ≤ middle + 0.5 MB |
| streaming RSS by mapping at the end: band binary, shared libraries, anonymous | $(mb "$split_binary"), $(mb "$split_libraries"), $(mb "$split_anonymous") MB | |
| \`band --help\` RSS (runtime and libraries, no work) | $(mb "$help_rss_kb") MB | |
TABLE
fail=0
awk -v c="$sync_cpu" 'BEGIN { exit !(c <= 2.0) }' || { echo "MISSED: week sync took ${sync_cpu} s CPU (target ≤ 2 s)" >&2; fail=1; }
[ "$sync_rss_kb" -le 30720 ] || { echo "MISSED: sync peak RSS $(mb "$sync_rss_kb") MB (target ≤ 30 MB)" >&2; fail=1; }
[ "$rss_max" -le 30720 ] || { echo "MISSED: stream RSS $(mb "$rss_max") MB (target ≤ 30 MB)" >&2; fail=1; }
[ "$growth_kb" -le 512 ] || { echo "MISSED: private memory grew $growth_kb kB between the middle and last third of the stream" >&2; fail=1; }
[ "$minutes" -ge 10080 ] || { echo "MISSED: only $minutes minutes synced" >&2; fail=1; }
exit $fail
