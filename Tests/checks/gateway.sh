#!/usr/bin/env bash
# band gateway end to end: one gateway keeps six simulated devices synced — two BandKit bands
# (one with dropped and corrupted notifications and a reboot), an InfiniTime watch bonded with
# its passkey, a heart-rate strap, a band that is away at the start and comes back, one paired
# while the gateway runs and one forgotten while it runs. The gateway is SIGKILLed in the middle
# and restarted (every strap reading received before the kill is stored after it), and SIGTERMed
# at the end (exit 0 within 5 s). Afterwards each band's history in
# the store equals its --truth (Tests/checks/support/store_vs_truth.py, per device by sync_id),
# the watch's and the strap's heart rates are the ones they measured, the forgotten band gets
# nothing after it was forgotten, a second gateway on the keystore is refused naming the first
# one's PID, and a malformed keystore exits 65 naming the file. Every wait is for a condition
# with a deadline, never a fixed sleep.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${BANDKIT_BIN:-$root/.build/debug}"
for tool in band bandsim health; do
  [ -x "$bin/$tool" ] || { echo "gateway: $bin/$tool not built" >&2; exit 1; }
done
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ -n "${GATEWAY_CHECK_KEEP:-}" ]; then echo "gateway: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
export XDG_CONFIG_HOME="$work/config" XDG_RUNTIME_DIR="$work/run" BANDKIT_STORE="$work/health.sqlite"
mkdir -p "$XDG_RUNTIME_DIR"
keystore="$XDG_CONFIG_HOME/bandkit/keys.json"
log="$work/gateway.log"
start="$(date -u +%Y-%m-%dT%H:%M:%S+00:00)"

fail() {
  echo "gateway: $*" >&2
  echo "--- gateway log (last 40 lines)" >&2; tail -40 "$log" >&2 || true
  echo "--- band status" >&2; timeout 10 "$bin/band" status >&2 || true
  exit 1
}

# wait_for DESCRIPTION SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds.
wait_for() {
  local what="$1" seconds="$2"; shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || fail "timed out after ${seconds}s waiting for: $what"
    sleep 0.2
  done
}

# serve NAME ARGS...: a simulated device on $work/NAME.sock, its truth in $work/NAME.truth.
serve() {
  local name="$1"; shift
  "$bin/bandsim" serve --socket "$work/$name.sock" --truth "$work/$name.truth" "$@" 2>>"$work/$name.log" &
  pids+=($!)
  eval "pid_$name=$!"
  wait_for "$name listening" 60 test -S "$work/$name.sock"
}
band_args=(--start "$start" --speed 60 --history-days 1 --deterministic-secrets)
serve faulty "${band_args[@]}" --seed 11 --state "$work/faulty.state" --drop-rate 0.02 --corrupt-rate 0.01 --reboot-at 40m
serve steady "${band_args[@]}" --seed 12 --state "$work/steady.state"
serve away "${band_args[@]}" --seed 13 --state "$work/away.state"
serve doomed "${band_args[@]}" --seed 14 --state "$work/doomed.state"
serve watch --profile infinitime --seed 15 --passkey 024680
serve strap --profile hr-strap --seed 16

# device_id NAME: the store's device identifier of a paired device (its sync_id prefix):
# manufacturer/model/serial, or the address when it has no serial number.
device_id() {
  "$bin/band" devices --json | python3 -c '
import json, sys
for line in sys.stdin:
    d = json.loads(line)
    if d["address"] == sys.argv[1]:
        print("/".join(x for x in (d["manufacturer"], d["model"], d["serial"]) if x) if d["serial"] else d["address"])
' "sim:$work/$1.sock"
}
pair() { "$bin/band" pair "sim:$work/$1.sock" "${@:2}" >>"$work/pair.log" 2>&1 || fail "band pair $1: $(tail -3 "$work/pair.log")"; }
for name in faulty steady away doomed strap; do pair "$name"; done
pair watch --passkey 024680
for name in faulty steady away doomed watch strap; do eval "id_$name=\"\$(device_id $name)\""; done
ids="$(for name in faulty steady away doomed watch strap; do eval echo "\$id_$name"; done | sort -u | grep -c .)"
[ "$ids" -eq 6 ] || fail "six devices should have six store identifiers, not $ids"
# The away band leaves (its socket goes with it) before the gateway starts.
kill "$pid_away"; wait "$pid_away" 2>/dev/null || true
rm -f "$work/away.sock"

gateway_pid=""
start_gateway() {
  "$bin/band" gateway --keep-band-clock --sync-every 15s --reconnect-max 3s --metrics 127.0.0.1:0 "$@" 2>>"$log" &
  gateway_pid=$!
  pids+=("$gateway_pid")
  wait_for "the gateway serving" 30 grep -q "serving .* device" "$log"
}
logged() { grep -F -- "$1" "$log" | grep -qF -- "$2"; }
committed_since() {  # committed_since NAME LINE: a history commit of NAME logged after line LINE
  tail -n +"$2" "$log" | grep -F "sim:$work/$1.sock" | grep -q "history: .* committed"
}

start_gateway
for name in faulty steady doomed; do
  wait_for "$name's history committed" 120 logged "sim:$work/$name.sock" "history:"
done
wait_for "the away band logged as not reachable" 30 logged "sim:$work/away.sock" "not reachable"
wait_for "the watch connected" 60 logged "sim:$work/watch.sock" "connected"
wait_for "the strap connected" 60 logged "sim:$work/strap.sock" "connected"

# A second gateway on the same keystore is refused, naming the first one's PID.
set +e
"$bin/band" gateway 2>"$work/second.err"; second=$?
set -e
[ "$second" -eq 1 ] || fail "a second gateway exited $second, not 1: $(cat "$work/second.err")"
grep -q "another gateway (PID $gateway_pid)" "$work/second.err" || fail "the refusal does not name PID $gateway_pid: $(cat "$work/second.err")"

# A gateway on another keystore whose --metrics port is taken exits 1 naming the port.
port="$(grep -o 'metrics at http://127.0.0.1:[0-9]*' "$log" | tail -1 | sed 's/.*://')"
set +e
"$bin/band" gateway --keystore "$work/other/keys.json" --control-socket "$work/other.sock" --metrics "127.0.0.1:$port" 2>"$work/port.err"; taken=$?
set -e
[ "$taken" -eq 1 ] || fail "a gateway on a taken metrics port exited $taken, not 1: $(cat "$work/port.err")"
grep -q "port $port" "$work/port.err" || fail "the refusal does not name port $port: $(cat "$work/port.err")"

# The away band comes back; a new band is paired; one is forgotten — all while it runs.
# Its clock went on while it was away (a restart at the same --start would record the same
# minutes twice): three hours on, far past the few simulated minutes it ran before.
serve away --start "$(date -u -d "$start + 3 hours" +%Y-%m-%dT%H:%M:%S+00:00)" "${band_args[@]:2}" --seed 13 --state "$work/away.state"
serve late "${band_args[@]}" --seed 17 --state "$work/late.state"
pair late
id_late="$(device_id late)"
wait_for "the away band back" 60 logged "sim:$work/away.sock" "history:"
wait_for "the band paired while running picked up" 60 logged "sim:$work/late.sock" "history:"
"$bin/band" forget "sim:$work/doomed.sock" >/dev/null
wait_for "the forgotten band dropped" 30 logged "sim:$work/doomed.sock" "session ended; device dropped"
doomed_rows_at_forget="$("$bin/health" export | grep -cF "\"sync_id\":\"$id_doomed|" || true)"

# SIGKILL in the middle of everything, then a restart. Killed at least 10 s into a minute (so
# a gateway that kept only committed minutes would lose that many of the strap's readings),
# right after /metrics said how many the strap had sent: the store must get every one of them.
until second="$(date -u +%S)"; [ "${second#0}" -ge 10 ] && [ "${second#0}" -le 50 ]; do sleep 0.5; done
port="$(grep -o 'metrics at http://127.0.0.1:[0-9]*' "$log" | tail -1 | sed 's/.*://')"
strap_received="$(python3 -c '
import re, sys, urllib.request
text = urllib.request.urlopen(sys.argv[1], timeout=5).read().decode()
line = "bandkit_gateway_readings_received_total{device=\"%s\"} " % sys.argv[2]
print(next(int(l[len(line):]) for l in text.splitlines() if l.startswith(line)))
' "http://127.0.0.1:$port/metrics" "sim:$work/strap.sock")" || fail "no strap readings in /metrics before the kill"
lines_before_kill="$(wc -l <"$log")"
restarted_at="$(date -u +%Y-%m-%dT%H:%M:%S)"
kill -KILL "$gateway_pid"; wait "$gateway_pid" 2>/dev/null || true
killed_at_ms="$(date +%s%3N)"
start_gateway
for name in faulty steady away late; do
  wait_for "$name synced again after the restart" 120 committed_since "$name" "$lines_before_kill"
done
# The faulty band reboots 40 simulated minutes in (40 s at 60×): let it, then sync once more.
wait_for "the faulty band rebooted" 120 grep -q "band rebooted" "$work/faulty.log"
lines_after_reboot="$(wc -l <"$log")"
wait_for "the faulty band synced after its reboot" 120 committed_since faulty "$lines_after_reboot"

# The strap and the watch keep no history: what the gateway stores of them is what it received
# live, filed by the host's minute. Two whole minutes of each after the restart, then stop.
truth_minutes_after() {  # truth_minutes_after NAME COUNT: COUNT minutes measured since the restart
  [ "$(awk -v since="$restarted_at" -F'"minute":"' 'NF > 1 { split($2, a, "\""); if (a[1] > since) n++ } END { print n + 0 }' "$work/$1.truth")" -ge "$2" ]
}
for name in strap watch; do wait_for "two minutes of the $name after the restart" 200 truth_minutes_after "$name" 2; done

# band status and /metrics against what happened: six devices (the forgotten one gone), all
# connected; a control-socket client sending garbage or nothing is dropped, the gateway unaffected.
connected_count() {
  "$bin/band" status --json | python3 -c 'import json, sys; sys.exit(0 if json.load(sys.stdin)["devices_connected"] == int(sys.argv[1]) else 1)' "$1"
}
wait_for "six devices connected in band status" 60 connected_count 6
python3 - "$XDG_RUNTIME_DIR/bandkit/gateway.sock" <<'PY'
import socket, sys
for payload in (b"\x00\xff garbage\n", b"", b"x" * 100000):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(sys.argv[1])
    try:
        s.sendall(payload)
        s.shutdown(socket.SHUT_WR)
        answer = s.recv(100)
    except (ConnectionResetError, BrokenPipeError):
        answer = b""
    if answer: sys.exit("gateway: the control socket answered garbage: %r" % answer)
    s.close()
PY
# SIGHUP reloads the keystore (unchanged here: nothing happens) and never ends the gateway.
kill -HUP "$gateway_pid"
connected_count 6 || fail "band status after SIGHUP"
kill -0 "$gateway_pid" 2>/dev/null || fail "SIGHUP ended the gateway"
"$bin/band" status --json >"$work/status.json"
"$bin/band" status >"$work/status.txt"
grep -q "^6/6 devices connected, last commit " "$work/status.txt" || fail "band status: $(cat "$work/status.txt")"
port="$(grep -o 'metrics at http://127.0.0.1:[0-9]*' "$log" | tail -1 | sed 's/.*://')"
python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' \
  "http://127.0.0.1:$port/metrics" >"$work/metrics.txt" || fail "no /metrics on port $port"
python3 "$root/Tests/checks/support/gateway_status_check.py" "$work/status.json" "$work/metrics.txt" "sim:$work/doomed.sock" \
  "bandkit=sim:$work/faulty.sock" "bandkit=sim:$work/steady.sock" "bandkit=sim:$work/away.sock" "bandkit=sim:$work/late.sock" \
  "infinitime=sim:$work/watch.sock" "hr-strap=sim:$work/strap.sock" || fail "band status or /metrics disagree with what happened"

# SIGTERM: exit 0 within 5 s.
stop_started=$SECONDS
kill -TERM "$gateway_pid"
for _ in $(seq 60); do kill -0 "$gateway_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$gateway_pid" 2>/dev/null && fail "still running 6 s after SIGTERM"
set +e; wait "$gateway_pid"; status=$?; set -e
[ "$status" -eq 0 ] || fail "the gateway exited $status after SIGTERM"
stop_took=$((SECONDS - stop_started))
[ "$stop_took" -le 6 ] || fail "SIGTERM took $stop_took s"
grep -q "stopped" "$log" || fail "no 'stopped' line"

# Store = each device's truth.
for name in faulty steady away late doomed watch strap; do kill "$(eval echo "\$pid_$name")" 2>/dev/null || true; done
wait 2>/dev/null || true
pids=()
"$bin/health" export >"$work/export.ndjson"
for name in faulty steady away late doomed; do
  grep -F "\"sync_id\":\"$(eval echo "\$id_$name")|" "$work/export.ndjson" >"$work/$name.export" || true
  python3 "$root/Tests/checks/support/store_vs_truth.py" "$work/$name.export" "$work/$name.truth" 30 \
    || fail "$name: the store differs from its truth"
done
doomed_rows_now="$(grep -c . "$work/doomed.export" || true)"
[ "$doomed_rows_now" -eq "$doomed_rows_at_forget" ] || fail "the forgotten band got $((doomed_rows_now - doomed_rows_at_forget)) more rows after 'band forget'"
python3 "$root/Tests/checks/support/gateway_live_vs_truth.py" "$work/export.ndjson" \
  "$id_watch=$work/watch.truth" "$id_strap=$work/strap.truth" || fail "live minutes differ from the devices' truth"
python3 "$root/Tests/checks/support/gateway_readings_kept.py" "$work/export.ndjson" "$id_strap" "$killed_at_ms" "$strap_received" "$work/strap.truth" \
  || fail "strap readings received before the SIGKILL are missing from the store"

# A malformed keystore: exit 65 naming the file and the place.
malformed() {  # malformed TEXT PLACE
  printf '%s' "$1" >"$keystore"
  set +e; "$bin/band" gateway 2>"$work/bad.err"; local bad=$?; set -e
  [ "$bad" -eq 65 ] || fail "a malformed keystore exited $bad, not 65: $(cat "$work/bad.err")"
  grep -qF "$keystore" "$work/bad.err" || fail "the error does not name $keystore: $(cat "$work/bad.err")"
  grep -qF "$2" "$work/bad.err" || fail "the error does not name the place ($2): $(cat "$work/bad.err")"
}
malformed $'{"version": 1, "bands": [\n  {"address": 5}\n]}\n' "bands[0].address"
malformed $'{"version": 1, "bands": [\n  {"address": "sim:/x",,}\n]}\n' "line 2, column 24"
echo "gateway: 7 devices, a SIGKILL and restart, exit after SIGTERM within ${stop_took} s; every store equals its truth"
