#!/usr/bin/env bash
# Reader before/after in the same run: `band sync` of a simulated week (10 080 minutes) and a
# `band stream` at --speed 3000, each with two builds' `band` against the same `bandsim`, rounds
# alternating so load changes hit both. Prints reader CPU (user+sys) per sync and per 1 000 live
# readings; the ratio of the medians is the figure (a refactor must not make the reader slower).
#
#   bash bench/reader/ab.sh BEFORE_BIN AFTER_BIN [ROUNDS]
#
# BIN directories hold band (and, for AFTER_BIN, bandsim). Build BEFORE_BIN from the base commit
# in a worktree (swift build -c release --scratch-path …), or copy its binaries before building.
set -euo pipefail
before=${1:?usage: ab.sh BEFORE_BIN AFTER_BIN [ROUNDS]}
after=${2:?usage: ab.sh BEFORE_BIN AFTER_BIN [ROUNDS]}
rounds=${3:-3}
sim="$after/bandsim"
work=$(mktemp -d "${TMPDIR:-/tmp}/bandkit-ab.XXXXXX")
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
export XDG_CONFIG_HOME="$work/config"

start_band() {   # start_band SPEED EXTRA...
  local speed=$1; shift
  rm -rf "$work/r" "$work/config"; mkdir -p "$work/r"
  "$sim" serve --socket "$work/r/band.sock" --start 2026-11-30T07:00:00Z --speed "$speed" --seed 7 \
    --state "$work/r/flash.img" "$@" >"$work/r/sim.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 1200); do [ -S "$work/r/band.sock" ] && return 0; sleep 0.05; done
  echo "ab: bandsim did not start" >&2; cat "$work/r/sim.log" >&2; exit 1
}
stop_band() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""; }
cpu() { awk '{ printf "%.2f", $1 + $2 }' "$1"; }

: >"$work/results"
for round in $(seq 1 "$rounds"); do
  for side in before after; do
    if [ "$side" = before ]; then bin=$before; else bin=$after; fi
    start_band 1 --history-days 7 --history-capacity 12000
    "$bin/band" pair "sim:$work/r/band.sock" >/dev/null 2>&1
    /usr/bin/time -f "%U %S" -o "$work/r/t" "$bin/band" sync "sim:$work/r/band.sock" --store "$work/r/s.sqlite" --json >"$work/r/out" 2>&1
    minutes=$(grep -o '"event":"synced","minutes":[0-9]*' "$work/r/out" | grep -o '[0-9]*$')
    echo "$side sync $(cpu "$work/r/t")" >>"$work/results"
    echo "round $round $side: week sync $minutes minutes, reader CPU $(cpu "$work/r/t") s" >&2
    stop_band

    start_band 3000 --history-days 0
    "$bin/band" pair "sim:$work/r/band.sock" >/dev/null 2>&1
    /usr/bin/time -f "%U %S" -o "$work/r/t" "$bin/band" stream "sim:$work/r/band.sock" --store "$work/r/s.sqlite" \
      --for 20s --keep-band-clock --json >"$work/r/out" 2>&1 || true
    readings=$(grep -c '"event":"reading"' "$work/r/out" || true)
    per=$(awk -v n="$readings" '{ printf "%.4f", (n > 0 ? ($1 + $2) * 1000 / n : 0) }' "$work/r/t")
    echo "$side stream $per" >>"$work/results"
    echo "round $round $side: stream $readings readings, reader CPU $(cpu "$work/r/t") s, $per s per 1 000" >&2
    stop_band
  done
done

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
echo "| measure | before (median) | after (median) | after / before |"
echo "|---|---|---|---|"
for what in sync stream; do
  b=$(awk -v w=$what '$1 == "before" && $2 == w { print $3 }' "$work/results" | median)
  a=$(awk -v w=$what '$1 == "after" && $2 == w { print $3 }' "$work/results" | median)
  label=$([ $what = sync ] && echo "week sync: reader CPU (s)" || echo "stream: reader CPU per 1 000 readings (s)")
  echo "| $label | $b | $a | $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }') |"
done
