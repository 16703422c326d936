#!/usr/bin/env bash
# The chip's pace on this machine: how many band seconds a real second the firmware image records
# under `bandsim serve --firmware` (QEMU without -icount, so SysTick follows the host's clock) at
# each --speed given, with no reader connected. At a low speed the shortfall is SysTick interrupts
# QEMU delivered late; flat out (e.g. 3600) it is the emulated CPU's ceiling (× ≈ 92,300 ARM
# instructions per band second, docs/performance.md). The radio stage 25-firmware prints the same
# figure for the chip nested in the radio guest.
#
#   bash bench/firmware/pace.sh [SECONDS [SPEED...]]     # default: 20 s at 60 and at 3600
#
# Needs a release bandsim (swift build -c release) or BANDKIT_BIN. bandsim and QEMU are stopped on
# exit. Exit 0 ok, 1 failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
seconds=${1:-20}
shift || true
speeds=("$@")
[ ${#speeds[@]} -gt 0 ] || speeds=(60 3600)
bin="${BANDKIT_BIN:-$root/.build/release}"
[ -x "$bin/bandsim" ] || { echo "pace: $bin/bandsim not built (swift build -c release)" >&2; exit 1; }
work="$(mktemp -d)"
source "$root/Tests/checks/support/firmware-common.sh"
serve_pid=""
trap 'stop_process "$serve_pid"; rm -rf "$work"' EXIT
elf="$(firmware_image)"

echo "load average $(cut -d' ' -f1-3 /proc/loadavg); ${seconds} s per speed"
for speed in "${speeds[@]}"; do
  truth="$work/truth-$speed.ndjson"
  "$bin/bandsim" serve --firmware "$elf" --socket "$work/band-$speed.sock" --truth "$truth" --speed "$speed" \
    --seed 11 --start 2026-11-30T06:20:30+01:00 2>"$work/serve-$speed.log" &
  serve_pid=$!
  for _ in $(seq 600); do [ -s "$truth" ] && break; kill -0 "$serve_pid" 2>/dev/null || break; sleep 0.1; done
  [ -s "$truth" ] || { cat "$work/serve-$speed.log" >&2; echo "pace: no minute recorded at --speed $speed within 60 s" >&2; exit 1; }
  first=$(wc -l <"$truth"); since=$(date +%s.%N)
  sleep "$seconds"
  last=$(wc -l <"$truth"); until=$(date +%s.%N)
  stop_process "$serve_pid"; serve_pid=""
  echo "$speed $first $last $since $until" | awk '{ pace = ($3 - $2) * 60 / ($5 - $4);
    printf "--speed %5d: %5d band minutes in %.1f s: %7.1f band seconds a second (%.0f %% of --speed)\n", $1, $3 - $2, $5 - $4, pace, 100 * pace / $1 }'
done
