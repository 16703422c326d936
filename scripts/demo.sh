#!/usr/bin/env bash
# The main job (README, first command): a simulated band → the reader → the health store, then
# today's totals.
#
#   1. installs missing Debian packages (as root) or prints the apt-get line, then builds;
#   2. starts a simulated band (`bandsim serve`) with an accelerated clock and a day of history
#      already in its flash, on a socket in a fresh temporary directory;
#   3. pairs with it (`band pair`), streams live readings for a short while (`band stream`,
#      which syncs history first), syncs the history recorded meanwhile (`band sync`);
#   4. prints today's totals from the store (`health stats … --today`) next to the band's own
#      minute records (its --truth file) for the same day: they agree.
#
# Everything lives in the temporary directory it prints (socket, flash image, keystore, store),
# so the demo never touches your own keys or health store. Environment:
#   DEMO_SPEED    simulated seconds per real second (default 30)
#   DEMO_STREAM   how long to stream (default 20s)
#   DEMO_KEEP=1   keep the temporary directory afterwards
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/packages.sh
bash scripts/ensure-packages.sh "${BUILD_PACKAGES[@]}"
echo "==> swift build -c release"
swift build -c release 2>&1 | grep -Ev "^\[[0-9]+/[0-9]+\]|^Building|^Compiling|^Write" || true
bin=$(swift build -c release --show-bin-path)
for tool in bandsim band health; do
  [ -x "$bin/$tool" ] || { echo "demo: $bin/$tool was not built (see the build output above)" >&2; exit 1; }
done

speed=${DEMO_SPEED:-30}
stream_for=${DEMO_STREAM:-20s}
demo=$(mktemp -d "${TMPDIR:-/tmp}/bandkit-demo.XXXXXX")
socket="$demo/band.sock"
store="$demo/health.sqlite"
export XDG_CONFIG_HOME="$demo/config"   # the demo's keystore, not yours
sim_pid=""
cleanup() {
  if [ -n "$sim_pid" ]; then kill "$sim_pid" 2>/dev/null || true; wait "$sim_pid" 2>/dev/null || true; fi
  if [ "${DEMO_KEEP:-0}" = 1 ]; then echo "demo files kept in $demo"; else rm -rf "$demo"; fi
}
trap cleanup EXIT

# The band's clock starts at the host's local time and zone, then runs $speed× faster.
start=$(date +%Y-%m-%dT%H:%M:%S%:z)
# It stops after three connections (pair, stream, sync), so its truth file ends with the sync.
echo "==> bandsim serve: simulated band on $socket, clock ${speed}× from $start, one day of history"
"$bin/bandsim" serve --socket "$socket" --speed "$speed" --start "$start" --history-days 1 --exit-after 3 \
  --truth "$demo/truth.ndjson" --state "$demo/flash.img" >"$demo/bandsim.log" 2>&1 &
sim_pid=$!
for _ in $(seq 1 200); do
  [ -S "$socket" ] && break
  kill -0 "$sim_pid" 2>/dev/null || { echo "demo: bandsim exited:" >&2; cat "$demo/bandsim.log" >&2; exit 1; }
  sleep 0.05
done
[ -S "$socket" ] || { echo "demo: bandsim did not open $socket" >&2; exit 1; }

# The band's clock runs faster than the host's, so the reader must not set it back to host time
# (--keep-band-clock); against a real band it sets clock and zone on every connection.
echo "==> band pair sim:$socket"
"$bin/band" pair "sim:$socket"
echo "==> band stream sim:$socket --for $stream_for   (every 10th line shown)"
"$bin/band" stream "sim:$socket" --store "$store" --for "$stream_for" --keep-band-clock | awk 'NR % 10 == 1'
# Two band minutes later the band has recorded the minute the stream ended in; the sync stores its
# record in place of the provisional live one.
sleep $(( 120 / speed + 1 ))
echo "==> band sync sim:$socket"
"$bin/band" sync "sim:$socket" --store "$store" --keep-band-clock
wait "$sim_pid" 2>/dev/null || true
sim_pid=""

today=$(date +%Y-%m-%d)
echo "==> health stats … --today   (store: $store)"
for type in step-count distance-walking-running active-energy-burned; do
  printf '%-26s ' "$type"
  "$bin/health" stats "$type" --today --sum --store "$store" | awk '{ print $3, $4 }'
done
for stat in avg min max; do
  printf '%-26s ' "heart-rate --$stat"
  "$bin/health" stats heart-rate --today --"$stat" --store "$store" | awk '{ printf "%.1f %s\n", $3, $4 }'
done

# The band's own records for today (local midnight to midnight, as UTC bounds), summed from its
# --truth file, for comparison.
from=$(date -u -d "$today 00:00" +%Y-%m-%dT%H:%M:%SZ)
to=$(date -u -d "$today 00:00 + 1 day" +%Y-%m-%dT%H:%M:%SZ)
awk -v from="$from" -v to="$to" -v day="$today" '
  {
    match($0, /"minute":"[^"]+"/); t = substr($0, RSTART + 10, RLENGTH - 11)
    if (t < from || t >= to) next
    match($0, /"steps":[0-9]+/); steps += substr($0, RSTART + 8, RLENGTH - 8)
    match($0, /"distance_m":[0-9.]+/); metres += substr($0, RSTART + 13, RLENGTH - 13)
    match($0, /"energy_kcal":[0-9.]+/); kcal += substr($0, RSTART + 14, RLENGTH - 14)
    minutes++
  }
  END { printf "band truth for %s: %d minutes, %d steps, %.1f m, %.1f kcal\n", day, minutes, steps, metres, kcal }
' "$demo/truth.ndjson"

# The dashboard reads as the app bandkit.dashboard, which sees only what it is granted: grant the
# types it shows, so its first page has figures instead of "not allowed" on every row.
for type in step-count distance-walking-running active-energy-burned heart-rate sleep-analysis workout; do
  "$bin/health" grant bandkit.dashboard "$type" --read --store "$store" >/dev/null
done
echo "==> the dashboard: $bin/health serve --store $store   (then open the URL it prints)"
