#!/usr/bin/env bash
# Examples/WorkoutTracker, a separate package that depends on BandKit by path and is written
# against HealthKit's API (OpenHealthKitShim), builds and runs against a temporary store: it
# records two sessions, lists them back newest first with their totals, the store's owner
# (`health workouts list`) sees the same two, bad usage exits 64 and a store that cannot be
# opened exits 1 saying why. The build goes to .build/examples (incremental across runs) and
# compiles only the store's modules, not the band's.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
"$root/scripts/ensure-packages.sh" >/dev/null
scratch="$root/.build/examples/WorkoutTracker"
mkdir -p "$(dirname "$scratch")"
if ! swift build --package-path "$root/Examples/WorkoutTracker" --scratch-path "$scratch" >"$scratch.log" 2>&1; then
  cat "$scratch.log" >&2; echo "examples: WorkoutTracker did not build" >&2; exit 1
fi
tracker="$scratch/debug/workout-tracker"
health="${HEALTH:-$root/.build/debug/health}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export BANDKIT_STORE="$work/health.sqlite" BANDKIT_APP_ID=com.example.prancercise

"$tracker" record prancercise --start 2026-12-06T18:00:00Z --minutes 30 --energy 240 --distance 3100 >/dev/null
"$tracker" record running --start 2026-12-07T07:00:00Z --minutes 20 --energy 200 >/dev/null
listed="$("$tracker" list)"
expected="2026-12-07T07:00:00Z  running  20 min  200 kcal  -
2026-12-06T18:00:00Z  prancercise  30 min  240 kcal  3.10 km
2 sessions"
[ "$listed" = "$expected" ] || { echo "examples: workout-tracker list printed:"$'\n'"$listed"$'\n'"expected:"$'\n'"$expected" >&2; exit 1; }

if [ -x "$health" ]; then
  count="$("$health" workouts list --from 2026-12-01T00:00:00Z --to 2026-12-31T00:00:00Z --json --store "$BANDKIT_STORE" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])')"
  [ "$count" = 2 ] || { echo "examples: health workouts list counts $count sessions, not 2" >&2; exit 1; }
fi

status=0; "$tracker" record moonwalk --start 2026-12-06T18:00:00Z --minutes 5 2>"$work/err" || status=$?
[ "$status" = 64 ] || { echo "examples: an unknown activity exited $status, not 64" >&2; exit 1; }
touch "$work/file"
status=0; BANDKIT_STORE="$work/file/health.sqlite" "$tracker" list 2>"$work/err" || status=$?
[ "$status" = 1 ] && grep -q "cannot open the health store" "$work/err" \
  || { echo "examples: an unopenable store exited $status: $(cat "$work/err")" >&2; exit 1; }
echo "examples: WorkoutTracker built, recorded 2 sessions and listed them back"
