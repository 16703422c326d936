#!/usr/bin/env bash
# bench/replay: `bandsim replay --into` of a simulated week of heart-rate strap traffic.
#
# Generates (once, cached in $WORK) a week-long phone-side trace with BandTrace's generator:
# one Heart Rate Measurement a second (RR intervals, 8/16-bit values, fragmented ACL), RSC and
# Battery notifications mixed in, an advertising report every other second. Then, in the same
# run: the baseline `bandsim decode` of the file (same btsnoop/HCI/L2CAP/ATT decoding, no
# store) and `bandsim replay --into` an empty store with --speed max. Reports seconds,
# minutes/s and seconds per recorded day (target: ≤ 1 s per day), and the ratio to the
# baseline. Release build. DAYS=N changes the length.
set -euo pipefail
cd "$(dirname "$0")/../.."
days="${DAYS:-7}"
work="${WORK:-/tmp/bandkit-bench-replay}"
mkdir -p "$work"
[ -n "${NO_BUILD:-}" ] || swift build -c release --product bandsim 2>&1 | grep -E "error" || true
bin="$(swift build -c release --show-bin-path)"
trace="$work/week-$days.log"
notifications=$((days * 86400 * 1000 / 1075))  # the generator spaces them 1.075 s apart on average
if [ ! -s "$trace" ]; then
    "$bin/bandsim" generate-trace "$trace" --notifications "$notifications" >/dev/null 2>&1
fi
size=$(stat -c %s "$trace")

now() { date +%s.%N; }
t0=$(now)
"$bin/bandsim" decode "$trace" >/dev/null
t1=$(now)
rm -f "$work/store.sqlite" "$work/store.sqlite-wal" "$work/store.sqlite-shm"
"$bin/bandsim" replay "$trace" --into "$work/store.sqlite" --speed max >"$work/summary.txt"
t2=$(now)

minutes=$(sed -nE 's/^minutes written: ([0-9]+) .*/\1/p' "$work/summary.txt")
awk -v d0="$t0" -v d1="$t1" -v d2="$t2" -v minutes="$minutes" -v size="$size" -v n="$notifications" 'BEGIN {
    decode = d1 - d0; replay = d2 - d1; recorded_days = minutes / 1440
    printf "trace: %.1f MB, %d heart-rate notifications, %d minutes written (%.2f recorded days)\n", size / 1e6, n, minutes, recorded_days
    printf "baseline bandsim decode: %.2f s\n", decode
    printf "bandsim replay --into:   %.2f s  (%.0f minutes/s, %.3f s per recorded day, %.2fx the decode baseline)\n", replay, minutes / replay, replay / recorded_days, replay / decode
    if (replay / recorded_days > 1.0) { printf "ABOVE TARGET: more than 1 s per recorded day\n"; exit 1 }
}'
