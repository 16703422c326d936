#!/usr/bin/env bash
# A firmware reset in the middle of a history transfer loses nothing and duplicates nothing (the band
# erases only what a reader acknowledged), under QEMU with the real reader: `bandsim serve
# --firmware IMAGE --speed 3600
# --fault reboot-mid-history` lets the chip record a few band hours, then
#   - `band pair` pairs;
#   - `band sync` starts the history transfer; right after History Data packet 2 of the connection
#     the bridge resets the chip (link 0x0A, SYSRESETREQ) and drops the reader's link, as a band's
#     reset drops its radio link; the packets the chip had already queued die with it. The check
#     fails unless bandsim's log shows that reset and the chip booting again with its minutes
#     recovered from flash, and the reader's log shows the transfer it cut holding more than 2
#     packets' worth of minutes (so the reset really fell inside it), the link lost during the
#     history sync, and a second fetch from the same record; the reader reconnects,
#     authenticates again and resumes from its cursor: exit 0;
#   - the store (`health export`) equals the firmware's truth minute by minute, each minute once
#     (Tests/checks/support/store_vs_truth.py), across both boots;
#   - a second `band sync` fetches only what the band recorded since (its fetch starts at the
#     cursor the first acknowledged: the acknowledged position is consistent), the two syncs
#     together bring no more minutes than the band recorded, and the store still equals the truth;
#   - a reset with `--fault reboot-at` while a reader is connected (`band stream` at ×60, its link
#     up when the band has run 30 minutes): bandsim's log shows the reset dropping the reader's
#     link and boot 2; the reader saw the link go, connected again and fetched history from the
#     cursor it had acknowledged (every fetch after the first starts at the cursor committed
#     before it); the store equals the firmware's truth across both boots, each minute once;
#   - in both runs the firmware's truth is continuous across the reset (support/truth_continuous.py:
#     each minute starts where the one before ended, sequence numbers count up by one): after a
#     reset the bridge configures the chip at the end of its last recorded minute, its own clock,
#     not the host's wall time × speed, which runs ahead of an emulated chip; the bridge's log
#     says so and reports no gap nor time going back;
#   - bandsim and QEMU are gone afterwards (trap on EXIT also when a step fails);
#   - bad `reboot-mid-history` usage (without --firmware, a count that is not 1–10000, twice) exits 64.
# The image is built once (support/firmware-common.sh). Exit 0 ok, 1 failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/scripts/packages.sh"
bash "$root/scripts/ensure-packages.sh" "${FIRMWARE_PACKAGES[@]}"
source "$root/Tests/checks/support/firmware-common.sh"
firmware_check_begin firmware-reset bandsim band health

# Bad usage first (no QEMU needed): exit 64 saying what is wrong.
usage() {
  local expect=$1; shift
  set +e; "$bin/bandsim" serve --socket "$work/bad.sock" "$@" >/dev/null 2>"$work/bad.err"; local status=$?; set -e
  (( status == 64 )) || fail "bandsim serve $* exited $status, not 64"
  grep -q -- "$expect" "$work/bad.err" || fail "bandsim serve $*: the refusal does not say '$expect': $(cat "$work/bad.err")"
}
usage "applies only to --firmware" --fault reboot-mid-history
usage "the packet count must be 1–10000" --firmware /nonexistent.elf --fault reboot-mid-history=0
usage "the packet count must be 1–10000" --firmware /nonexistent.elf --fault reboot-mid-history=two
usage "is given once" --firmware /nonexistent.elf --fault reboot-mid-history --fault reboot-mid-history=3

elf="$(firmware_image)"
started=$(date +%s)
sock="$work/band.sock"
reader=(--keystore "$work/keys.json")
store=(--store "$work/health.sqlite")
# Records per History Data packet at the reader's ATT_MTU 247 (HistoryDataPacket: 2-byte header
# after the 3-byte notification header, 16-byte records).
per_packet=$(( (247 - 3 - 2) / 16 ))
minutes_before=180
"$bin/bandsim" serve --firmware "$elf" --socket "$sock" --truth "$work/truth.ndjson" --speed 3600 --seed 11 \
  --start 2026-11-30T06:20:30+01:00 --fault reboot-mid-history 2>>"$work/serve.log" &
serve_pid=$!
for _ in $(seq 600); do [ -S "$sock" ] && break; kill -0 "$serve_pid" 2>/dev/null || fail "bandsim ended before listening"; sleep 0.1; done
[ -S "$sock" ] || fail "bandsim never listened on $sock"
# A few band hours on the chip before the reader comes (at most 180 s under load).
for _ in $(seq 1800); do [[ -f "$work/truth.ndjson" && $(wc -l <"$work/truth.ndjson") -ge $minutes_before ]] && break; sleep 0.1; done
(( $(wc -l <"$work/truth.ndjson") >= minutes_before )) || fail "fewer than $minutes_before minutes of truth after 180 s"

timeout 60 "$bin/band" pair "sim:$sock" "${reader[@]}" >"$work/pair.out" 2>"$work/pair.log" || fail "band pair exited $?"
grep -q "key stored" "$work/pair.out" || fail "band pair: $(cat "$work/pair.out")"
recorded_at_sync=$(wc -l <"$work/truth.ndjson")
timeout 120 "$bin/band" sync "sim:$sock" "${reader[@]}" "${store[@]}" --keep-band-clock >"$work/sync.out" 2>"$work/sync.log" \
  || fail "band sync across the reset exited $?"

# The reset happened, in the middle of the transfer, and the chip came back with its ring.
grep -q "reboot-mid-history: after history data packet 2 of this connection: resetting the firmware (link 0x0A); dropping the reader's link" "$work/serve.log" \
  || fail "bandsim never reset the firmware during the sync"
grep -q "reader's link dropped by the firmware" "$work/serve.log" || fail "the reader's link was not dropped with the reset"
grep -q "firmware: booted (boot 2 seen by this bridge)" "$work/serve.log" || fail "the firmware did not boot again after the reset"
grep -q "bridge: the band resumes at [0-9]* (Unix s, [0-9:]* after its start): the end of its last recorded minute" "$work/serve.log" \
  || fail "after the reset the band did not resume at its own last minute: $(grep 'resumes' "$work/serve.log")"
recovered="$(grep -o 'flash: boot 2, [0-9]* damaged boot-record page(s), [0-9]* minute(s) recovered' "$work/serve.log" | grep -o '[0-9]* minute(s)' | grep -o '^[0-9]*' || true)"
[ -n "$recovered" ] || fail "no flash report of boot 2"
(( recovered >= recorded_at_sync )) || fail "boot 2 recovered $recovered minutes, the band had recorded $recorded_at_sync before the sync"
# The reader's side: its first fetch held more than 2 packets, the link went during it, it came back
# and fetched again from the same record (nothing of the cut transfer was acknowledged).
cut="$(grep -o 'history: fetching [0-9]* minutes from record [0-9]*' "$work/sync.log" | head -1)"
[ -n "$cut" ] || fail "band sync never started a history transfer: $(cat "$work/sync.log")"
cut_minutes=$(echo "$cut" | awk '{print $3}'); cut_from=$(echo "$cut" | awk '{print $7}')
(( cut_minutes > 2 * per_packet )) || fail "the cut transfer held $cut_minutes minutes, not more than 2 packets of $per_packet: the reset was not mid-transfer"
grep -q "disconnected: syncing history" "$work/sync.log" || fail "the reader did not lose its link during the history transfer: $(cat "$work/sync.log")"
(( $(grep -c 'history: fetching' "$work/sync.log") == 2 )) || fail "expected two fetches (cut, then resumed): $(grep 'history:' "$work/sync.log")"
grep 'history: fetching' "$work/sync.log" | tail -1 | grep -q "from record $cut_from\$" \
  || fail "the resumed fetch does not start where the cut one did (record $cut_from): $(grep 'history: fetching' "$work/sync.log" | tail -1)"
cursor=$(grep -o 'stored, cursor [0-9]*, acknowledged' "$work/sync.log" | grep -o '[0-9]*')
[ -n "$cursor" ] || fail "band sync did not acknowledge the resumed transfer: $(cat "$work/sync.log")"

"$bin/health" export "${store[@]}" >"$work/export.ndjson" || fail "health export exited $?"
python3 "$root/Tests/checks/support/store_vs_truth.py" "$work/export.ndjson" "$work/truth.ndjson" "$recorded_at_sync" >"$work/compare.out" \
  || fail "after the reset the store differs from the firmware's truth"

# Again: the band sends only what came since (the first sync's acknowledgement holds), no duplicate.
timeout 90 "$bin/band" sync "sim:$sock" "${reader[@]}" "${store[@]}" --keep-band-clock --json >"$work/sync2.out" 2>"$work/sync2.log" \
  || fail "the second band sync exited $?"
first_synced=$(grep -o 'synced [0-9]* minutes' "$work/sync.out" | grep -o '[0-9]*' || true)
[ -n "$first_synced" ] || fail "band sync did not say how many minutes it synced: $(cat "$work/sync.out")"
second_synced=$(python3 -c 'import json,sys; print([e for e in map(json.loads, open(sys.argv[1])) if e.get("event") == "synced"][-1]["minutes"])' "$work/sync2.out") \
  || fail "the second sync's JSON has no synced event: $(cat "$work/sync2.out")"
second_first=$(python3 -c 'import json,sys; print([e for e in map(json.loads, open(sys.argv[1])) if e.get("event") == "history_transfer"][-1]["first"])' "$work/sync2.out") \
  || fail "the second sync's JSON has no history_transfer event: $(cat "$work/sync2.out")"
(( second_first == cursor )) || fail "the second sync fetched from record $second_first, the first acknowledged up to $cursor"
now_recorded=$(wc -l <"$work/truth.ndjson")
(( first_synced + second_synced <= now_recorded )) \
  || fail "the two syncs brought $first_synced + $second_synced minutes, the band recorded only $now_recorded: a minute came twice"
"$bin/health" export "${store[@]}" >"$work/export2.ndjson" || fail "health export exited $?"
python3 "$root/Tests/checks/support/store_vs_truth.py" "$work/export2.ndjson" "$work/truth.ndjson" "$(( first_synced + second_synced ))" >"$work/compare2.out" \
  || fail "after the second sync the store differs from the firmware's truth"
python3 "$root/Tests/checks/support/truth_continuous.py" "$work/truth.ndjson" >"$work/continuous.out" \
  || fail "the band's minutes are not continuous across the reset"
! grep -q "a gap in the band's minutes\|the band's time went back" "$work/serve.log" || fail "the bridge saw minutes that do not follow: $(grep 'gap\|went back' "$work/serve.log")"

stop_process "$serve_pid"
serve_pid=""
qemu="$(grep -o 'running in QEMU (pid [0-9]*)' "$work/serve.log" | tail -1 | grep -o '[0-9]*')"
[ -n "$qemu" ] || fail "no QEMU pid in bandsim's banner"
! kill -0 "$qemu" 2>/dev/null || fail "QEMU $qemu still running after bandsim ended"
echo "firmware-reset: reboot-mid-history: reset after history packet 2 of a $cut_minutes-minute transfer," \
     "$recovered minutes recovered; $(cat "$work/compare.out"); after a second sync ($second_synced new): $(cat "$work/compare2.out");" \
     "truth: $(cat "$work/continuous.out")"

# reboot-at with a reader connected: the reset takes the reader's link with it; the reader comes back.
sock2="$work/band2.sock"
reader2=(--keystore "$work/keys2.json")
store2=(--store "$work/health2.sqlite")
reboot_minute=30
"$bin/bandsim" serve --firmware "$elf" --socket "$sock2" --truth "$work/truth2.ndjson" --speed 60 --seed 12 \
  --start 2026-11-30T06:20:30+01:00 --fault reboot-at=${reboot_minute}m 2>>"$work/serve2.log" &
serve_pid=$!
for _ in $(seq 600); do [ -S "$sock2" ] && break; kill -0 "$serve_pid" 2>/dev/null || fail "bandsim (reboot-at) ended before listening"; sleep 0.1; done
[ -S "$sock2" ] || fail "bandsim (reboot-at) never listened on $sock2"
timeout 60 "$bin/band" pair "sim:$sock2" "${reader2[@]}" >"$work/pair2.out" 2>"$work/pair2.log" || fail "band pair (reboot-at) exited $?"
ran=$(wc -l <"$work/truth2.ndjson")
(( ran < reboot_minute - 10 )) || fail "the band had run $ran minutes after pairing: too late to be connected across the reset at $reboot_minute (machine too slow?)"
# Streams from now until about 15 band minutes (real seconds at ×60) after the reset.
timeout 150 "$bin/band" stream "sim:$sock2" "${reader2[@]}" "${store2[@]}" --keep-band-clock --json --for "$(( reboot_minute - ran + 15 ))s" \
  >"$work/stream2.out" 2>"$work/stream2.log" || fail "band stream across the reboot-at reset exited $?: $(tail -5 "$work/stream2.log")"
grep -q "reboot-at: the band has run [0-9]* min: resetting the firmware (link 0x0A); dropping the reader's link" "$work/serve2.log" \
  || fail "the reboot-at reset did not find a reader connected (or did not happen): $(grep -i 'reboot-at\|reader' "$work/serve2.log")"
grep -q "reader's link dropped by the firmware" "$work/serve2.log" || fail "bandsim did not close the reader's link with the reset"
grep -q "firmware: booted (boot 2 seen by this bridge)" "$work/serve2.log" || fail "the firmware did not boot again after the reboot-at reset"
python3 "$root/Tests/checks/support/truth_continuous.py" "$work/truth2.ndjson" "$(( reboot_minute + 5 ))" >"$work/continuous2.out" \
  || fail "the band's minutes are not continuous across the reboot-at reset"
! grep -q "a gap in the band's minutes\|the band's time went back" "$work/serve2.log" || fail "the bridge saw minutes that do not follow: $(grep 'gap\|went back' "$work/serve2.log")"
python3 - "$work/stream2.out" <<'PY' || fail "the reader did not come back across the reset as it should"
import json, sys
events = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
names = [e["event"] for e in events]
connected, disconnected = names.count("connected"), names.count("disconnected")
if connected < 2 or disconnected < 1:
    sys.exit("firmware-reset: the stream connected %d time(s) and lost its link %d time(s); expected the reset's drop and a reconnection" % (connected, disconnected))
cursor = None
for event in events:
    if event["event"] == "history_transfer" and cursor is not None and event["first"] != cursor:
        sys.exit("firmware-reset: a fetch started at record %d, the reader had committed up to %d" % (event["first"], cursor))
    if event["event"] == "history_committed" and event.get("acknowledged"):
        cursor = event["cursor"]
if cursor is None:
    sys.exit("firmware-reset: the stream never committed and acknowledged history")
print("reconnected %d time(s), history resumed from the cursor each time" % (connected - 1))
PY
"$bin/health" export "${store2[@]}" >"$work/export3.ndjson" || fail "health export exited $?"
python3 "$root/Tests/checks/support/store_vs_truth.py" "$work/export3.ndjson" "$work/truth2.ndjson" "$reboot_minute" >"$work/compare3.out" \
  || fail "after the reboot-at reset with a reader connected the store differs from the firmware's truth"
stop_process "$serve_pid"
serve_pid=""
qemu="$(grep -o 'running in QEMU (pid [0-9]*)' "$work/serve2.log" | tail -1 | grep -o '[0-9]*')"
! kill -0 "$qemu" 2>/dev/null || fail "QEMU $qemu still running after bandsim ended"
echo "firmware-reset: reboot-at with a reader connected: link dropped with the reset, the reader back; $(cat "$work/compare3.out"); truth: $(cat "$work/continuous2.out")"
echo "firmware-reset: ok ($(( $(date +%s) - started )) s)"
