#!/usr/bin/env bash
# One band gateway keeping 50 simulated devices of mixed kinds synced at real time: 30 BandKit
# bands (a day of history each, then live minutes), 10 InfiniTime watches bonded with a passkey and
# 10 heart-rate straps, every one its own `bandsim serve` process. After every device is connected
# and every band's first history sync is stored, the gateway's CPU over BENCH_SECONDS (default 600)
# from /proc/PID/stat (utime + stime) and its RSS (VmRSS now, VmHWM the peak since it started, the
# first syncs included) from /proc/PID/status, in total and per device. The simulators' own CPU is
# printed beside it (they are the devices, not the cost). Goal: ≤ 2 % of one core, ≤ 64 MB.
#     bash bench/gateway/fifty-devices.sh          (release build in .build/release unless BANDKIT_BIN is set)
#     BENCH_SECONDS=60 bash bench/gateway/fifty-devices.sh
# BANDSIM_BIN takes bandsim from another build (the simulators' own speed is not measured).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${BANDKIT_BIN:-$root/.build/release}"
simbin="${BANDSIM_BIN:-$bin}"
seconds="${BENCH_SECONDS:-600}"
bands="${BENCH_BANDS:-30}" watches="${BENCH_WATCHES:-10}" straps="${BENCH_STRAPS:-10}"
[ -x "$bin/band" ] || { echo "fifty-devices: $bin/band not built (swift build -c release)" >&2; exit 1; }
[ -x "$simbin/bandsim" ] || { echo "fifty-devices: $simbin/bandsim not built" >&2; exit 1; }
work="$(mktemp -d)"; pids=(); gateway=""
cleanup() {
  [ -z "$gateway" ] || kill -TERM "$gateway" 2>/dev/null || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export XDG_CONFIG_HOME="$work/config" XDG_RUNTIME_DIR="$work/run" BANDKIT_STORE="$work/health.sqlite"
mkdir -p "$XDG_RUNTIME_DIR"
fail() { echo "fifty-devices: $*" >&2; tail -20 "$work/gateway.log" >&2 2>/dev/null || true; exit 1; }
wait_for() {  # wait_for DESCRIPTION SECONDS COMMAND...
  local what="$1" deadline=$((SECONDS + $2)); shift 2
  until "$@" >/dev/null 2>&1; do [ "$SECONDS" -lt "$deadline" ] || fail "timed out waiting for $what"; sleep 0.5; done
}

names=()
serve() {  # serve NAME ARGS...
  "$simbin/bandsim" serve --socket "$work/$1.sock" "${@:2}" 2>>"$work/$1.log" & pids+=($!); names+=("$1")
}
for i in $(seq 1 "$bands"); do serve "band$i" --seed "$i" --history-days 1 --deterministic-secrets; done
for i in $(seq 1 "$watches"); do serve "watch$i" --profile infinitime --seed $((100 + i)) --passkey 024680; done
for i in $(seq 1 "$straps"); do serve "strap$i" --profile hr-strap --seed $((200 + i)); done
devices=${#names[@]}
for name in "${names[@]}"; do wait_for "$name listening" 120 test -S "$work/$name.sock"; done
for name in "${names[@]}"; do
  extra=(); [[ "$name" == watch* ]] && extra=(--passkey 024680)
  "$bin/band" pair "sim:$work/$name.sock" "${extra[@]}" >>"$work/pair.log" 2>&1 || fail "band pair $name: $(tail -2 "$work/pair.log")"
done

"$bin/band" gateway 2>"$work/gateway.log" & gateway=$!
# Steady state: every device connected and every band's day of history stored.
steady() {
  "$bin/band" status --json | python3 -c '
import json, sys
s = json.load(sys.stdin); n = int(sys.argv[1])
ok = s["devices_connected"] == n and all(d["kind"] != "bandkit" or (d["last_sync"] and d["minutes_today"] > 0) for d in s["devices"])
sys.exit(0 if ok else 1)' "$devices"
}
started=$SECONDS
wait_for "$devices devices connected and synced" 900 steady
settle=$((SECONDS - started))
sleep 5

ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
simulators() { local sum=0; for pid in "${pids[@]}"; do sum=$((sum + $(cpu "$pid"))); done; echo $sum; }
g1=$(cpu "$gateway"); s1=$(simulators); t1=$(date +%s.%N)
sleep "$seconds"
g2=$(cpu "$gateway"); s2=$(simulators); t2=$(date +%s.%N)
steady || fail "not every device stayed connected through the run"
rss=$(awk '/^VmRSS/ {print $2}' "/proc/$gateway/status"); hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$gateway/status")
threads=$(awk '/^Threads/ {print $2}' "/proc/$gateway/status")
"$bin/band" status | head -1
python3 - "$g1" "$g2" "$s1" "$s2" "$t1" "$t2" "$ticks" "$devices" "$rss" "$hwm" "$threads" "$settle" "$bands" "$watches" "$straps" <<'PY'
import sys
g1, g2, s1, s2, t1, t2, ticks = map(float, sys.argv[1:8])
devices, rss, hwm, threads, settle, bands, watches, straps = map(int, sys.argv[8:16])
elapsed = t2 - t1
core = 100 * (g2 - g1) / ticks / elapsed
print("gateway, %d devices (%d bands, %d InfiniTime, %d hr-straps) at real time, %.0f s after %d s of connecting and first syncs:"
      % (devices, bands, watches, straps, elapsed, settle))
print("  CPU %.3f %% of one core (%.4f %% per device); goal <= 2 %%: %s" % (core, core / devices, "met" if core <= 2 else "MISSED"))
print("  RSS %.1f MB now, %.1f MB peak (%.2f MB per device); %d threads; goal <= 64 MB: %s"
      % (rss / 1024, hwm / 1024, hwm / 1024 / devices, threads, "met" if hwm <= 64 * 1024 else "MISSED"))
print("  the %d simulators together: %.2f %% of one core" % (devices, 100 * (s2 - s1) / ticks / elapsed))
PY
kill -TERM "$gateway"; wait "$gateway" || true; gateway=""
