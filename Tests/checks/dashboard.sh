#!/usr/bin/env bash
# The dashboard as a person sees it: two simulated bands' history (a normal day and the DST day
# 2026-10-25 in Europe/Berlin) synced into a store by `band`, `health serve` on it, headless
# Chromium loading the pages: the day's numbers on the page equal `health stats`/`health sleep`,
# a type the dashboard may not read shows "not allowed", a live update arrives in the open page
# while `band stream` writes, the chart SVG validates. Screenshots of the day, the DST day and a
# night of sleep go to .ci/artifacts/dashboard/ (CI keeps the folder). Everything started here is
# stopped on EXIT, also on failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
"$root/scripts/ensure-packages.sh" >/dev/null
bin="${BANDKIT_BIN:-$root/.build/debug}"
for tool in bandsim band health; do [ -x "$bin/$tool" ] || { echo "dashboard: $bin/$tool not built" >&2; exit 1; }; done
chromium="$(command -v chromium || command -v chromium-browser || true)"
[ -n "$chromium" ] || { echo "dashboard: chromium not installed" >&2; exit 1; }
artifacts="$root/.ci/artifacts/dashboard"
mkdir -p "$artifacts"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "dashboard: $*" >&2; for log in "$work"/*.log; do [ -s "$log" ] && { echo "--- $log" >&2; tail -20 "$log" >&2; }; done; exit 1; }

export BANDKIT_STORE="$work/health.sqlite" XDG_CONFIG_HOME="$work/config" XDG_RUNTIME_DIR="$work/run" TZ=Europe/Berlin
mkdir -p "$XDG_RUNTIME_DIR"

# A band at START with DAYS of history in flash; waits for its socket.
start_band() {  # name start speed days seed
  "$bin/bandsim" serve --socket "$work/$1.sock" --start "$2" --speed "$3" --history-days "$4" --seed "$5" \
    --state "$work/$1.flash" >>"$work/$1.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 200); do [ -S "$work/$1.sock" ] && return 0; sleep 0.05; done
  fail "band $1 never listened"
}
stop_last_band() { kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true; unset 'pids[-1]'; rm -f "$work"/*.sock; }

# 1. History: a normal day (the night of 11-30 closes at noon on 12-01) and the DST day.
start_band normal 2026-12-01T12:30:00+01:00 600 3 7
"$bin/band" pair "sim:$work/normal.sock" >>"$work/band.log" 2>&1 || fail "band pair (normal) failed"
"$bin/band" sync "sim:$work/normal.sock" --keep-band-clock >>"$work/band.log" 2>&1 || fail "band sync (normal) failed"
stop_last_band
start_band dst 2026-10-26T12:30:00+01:00 600 3 11
"$bin/band" pair "sim:$work/dst.sock" >>"$work/band.log" 2>&1 || fail "band pair (dst) failed"
"$bin/band" sync "sim:$work/dst.sock" --keep-band-clock >>"$work/band.log" 2>&1 || fail "band sync (dst) failed"
stop_last_band
# The bands' walks and runs are workouts now (minute-record sessions); one added by hand beside them,
# on a day the band was off the wrist at that hour.
"$bin/health" workouts add cycling --start 2026-11-30T20:00:00+01:00 --end 2026-11-30T20:30:00+01:00 >/dev/null

# 2. Grants: everything but active energy, which must show "not allowed".
for type in step-count distance-walking-running heart-rate sleep-analysis workout; do
  "$bin/health" grant bandkit.dashboard "$type" --read >/dev/null
done

# 3. The server.
"$bin/health" serve --port 0 --tz Europe/Berlin >"$work/serve.out" 2>"$work/serve.log" &
pids+=($!)
for _ in $(seq 100); do grep -q "http://" "$work/serve.out" 2>/dev/null && break; sleep 0.05; done
port="$(grep -o '127.0.0.1:[0-9]*' "$work/serve.out" | cut -d: -f2)"
[ -n "$port" ] || fail "health serve printed no address"
url="http://127.0.0.1:$port"

browse() {  # URL [extra chromium flags…] → DOM on stdout
  local target="$1"; shift
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --user-data-dir="$work/chromium" "$@" --dump-dom "$target" 2>>"$work/chromium.log"
}
shoot() {  # URL FILE
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --user-data-dir="$work/chromium" --hide-scrollbars --window-size=1280,1000 --screenshot="$2" "$1" 2>>"$work/chromium.log" >/dev/null
  [ -s "$2" ] || fail "no screenshot of $1"
}

# 4. The page's numbers equal the commands'.
browse "$url/day?date=2026-11-30" >"$work/day.html"
python3 - "$work/day.html" "$bin/health" <<'PY' || fail "day page numbers differ from health stats/sleep"
import json, re, subprocess, sys
page = open(sys.argv[1]).read()
health = sys.argv[2]
def cell(name):
    m = re.search(r'id="%s"([^>]*)>([^<]*)<' % name, page)
    if not m: sys.exit("no cell %s" % name)
    value = re.search(r'data-value="([^"]*)"', m.group(1))
    return (float(value.group(1)) if value and value.group(1) != "null" else None), m.group(2)
def stats(*args):
    out = subprocess.run([health, "stats", *args, "--day", "2026-11-30", "--tz", "Europe/Berlin", "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)[0]["value"]
checks = [("steps", stats("step-count", "--sum")), ("distance", stats("distance-walking-running", "--sum")),
          ("hr-avg", stats("heart-rate", "--avg")), ("hr-min", stats("heart-rate", "--min")), ("hr-max", stats("heart-rate", "--max"))]
sleep = json.loads(subprocess.run([health, "sleep", "--night", "2026-11-29", "--tz", "Europe/Berlin", "--json"], check=True, capture_output=True, text=True).stdout)
checks += [("asleep", sleep["asleep_s"]), ("in-bed", sleep["in_bed_s"]), ("awakenings", sleep["awakenings"])]
for name, expected in checks:
    value, text = cell(name)
    if expected is None or value is None or abs(value - expected) > 1e-9 * max(1, abs(expected)):
        sys.exit(f"{name}: page {value} ({text!r}), command {expected}")
    print(f"dashboard: {name} = {value} on the page and from the command")
if cell("energy")[1] != "not allowed": sys.exit("energy should be 'not allowed': %r" % (cell("energy"),))
if "health grant bandkit.dashboard active-energy-burned --read" not in page: sys.exit("the page does not say which grant shows energy")
listed = json.loads(subprocess.run([health, "workouts", "list", "--day", "2026-11-30", "--tz", "Europe/Berlin", "--json"], check=True, capture_output=True, text=True).stdout)
value, text = cell("workouts")
if value != listed["count"] or listed["count"] < 5: sys.exit("workouts: page %r, health workouts list %s" % ((value, text), listed["count"]))
activities = sorted(w["activity"] for w in listed["workouts"])
if activities.count("walking") != 3 or activities.count("running") != 1 or "cycling" not in activities:
    sys.exit("the band's day has 3 walks and a run, plus the added ride: %s" % activities)
print(f"dashboard: workouts = {value:g} on the page and from health workouts list ({text}: {', '.join(activities)})")
if sleep["asleep_s"] < 5 * 3600: sys.exit("the scored night is too short: %s" % sleep)
PY

# 5. The chart SVG the page shows validates; screenshots of the day, the DST day and a night.
curl -sf "$url/chart.svg?view=day&date=2026-11-30" -o "$work/day.svg" || fail "no chart"
xmllint --noout "$work/day.svg" || fail "the day's SVG does not validate"
curl -sf "$url/chart.svg?view=day&date=2026-10-25" -o "$work/dst.svg" || fail "no DST chart"
ticks="$(grep -o 'class="tick"' "$work/dst.svg" | wc -l)"
[ "$ticks" -eq 25 ] || fail "the DST day has $ticks hour ticks, not 25"
shoot "$url/day?date=2026-11-30" "$artifacts/day.png"
shoot "$url/day?date=2026-10-25" "$artifacts/dst-day.png"
shoot "$url/chart.svg?view=night&date=2026-11-30" "$artifacts/night.png"
cp "$work/day.svg" "$artifacts/day.svg"

# 6. Live: the page is open in Chromium (driven over the DevTools pipe) while a band streams;
#    the server-sent event arrives and the page swaps in the new figures.
start_band normal 2026-12-01T13:00:00+01:00 60 0 7
( sleep 3; "$bin/band" stream "sim:$work/normal.sock" --keep-band-clock --for 20s >>"$work/stream.log" 2>&1 ) &
pids+=($!)
python3 "$root/Tests/checks/support/chromium-watch.py" "$chromium" "$url/day?date=2026-12-01" \
  "document.getElementById('live').className === 'updated'" 40 "$work/chromium-live" >"$work/live.out" 2>>"$work/chromium.log" \
  || fail "no live update reached the open page: $(cat "$work/live.out")"
echo "dashboard: live update arrived in the open page: $(cat "$work/live.out")"
echo "dashboard: screenshots in $artifacts"
