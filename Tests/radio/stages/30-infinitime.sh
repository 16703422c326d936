#!/bin/sh
# Stage 30: a PineTime's pairing through the kernel's SMP. `bandsim serve --profile infinitime
# --hci` declares DisplayOnly, so the kernel on the watch's side chooses a passkey (mgmt Passkey
# Notify, which bandsim prints as the watch's screen) and `band pair` on the reader's side, with
# a keyboard, gets User Passkey Request and answers with User Passkey Reply (BandBlueZ's agent).
#   1. a wrong passkey (--passkey 000000): exit 1, "refused the passkey", nothing stored;
#   2. the passkey typed at band's terminal prompt (a pseudo-terminal, type-passkey.py reading
#      the watch's screen off bandsim's log): bonded, the kernel's LTK kept in smp-keys;
#   3. a short `band stream` (12–72 s, to just before a minute boundary) that re-encrypts with
#      the bond (no passkey shown again); the store must be the watch's truth for the connected
#      minutes (check-watch.py).
set -u
here=$(dirname "$0")
. "$here/../lib.sh"
if [ -n "${RADIO_BAND_ADDRESS:-}" ]; then echo "infinitime stage skipped: it needs bandsim's truth"; exit 0; fi
band=$RADIO_BIN/band
B=$RADIO_BAND_HCI
R=$RADIO_READER_HCI
log=$RADIO_OUT/infinitime
mkdir -p "$log"
keys="--keystore $log/keys.json"
mkdir -p /tmp/infinitime-stage
store="--store /tmp/infinitime-stage/health.sqlite"

# The wearer is awake and walking around local noon: the watch's zone puts the host's now there
# (true time stays the host's, so the reader's minutes are the truth's minutes).
hour=$(date -u +%H | sed 's/^0//')
offset=$((12 - hour)); [ "$offset" -lt -12 ] && offset=$((offset + 24)); [ "$offset" -gt 14 ] && offset=$((offset - 24))
zone=$(printf '%+03d:00' "$offset")
start=$(date -u -d "@$(( $(date +%s) + offset * 3600 ))" +%Y-%m-%dT%H:%M:%S)$zone

wait_link_down "$B"; wait_link_down "$R"
# The reader's adapter up for LE (band scan expects a powered adapter; bandsim prepares its own).
"$RADIO_BIN/bandradio" info --hci "$R" > /dev/null || fail "reader adapter $R"
start_serve "$log/serve.log" --profile infinitime --hci "$B" --seed 11 --start "$start" --truth "$log/truth.ndjson"
scan_for infinitime "$log/scan.json"
[ -n "$address" ] || fail "band scan did not find the watch"

step "band pair with a wrong passkey"
"$band" pair "$address" --hci "$R" $keys --passkey 000000 < /dev/null > "$log/pair-wrong.out" 2> "$log/pair-wrong.err"
wrong=$?
cat "$log/pair-wrong.err"
grep -q "the screen shows passkey" "$log/serve.log" || fail "the watch showed no passkey: the kernel did not choose passkey entry"
[ "$wrong" = 1 ] || fail "a wrong passkey: band pair exited $wrong, want 1"
grep -q "refused the passkey" "$log/pair-wrong.err" || fail "a wrong passkey: no 'refused the passkey'"
grep -q "$address" "$log/keys.json" 2>/dev/null && fail "a wrong passkey left a keystore entry"
grep -qi "$address" "$log/smp-keys" 2>/dev/null && fail "a wrong passkey left a long-term key"
wait_link_down "$R"

step "band pair, the passkey typed at the prompt"
python3 "$here/../type-passkey.py" "$log/serve.log" 90 -- "$band" pair "$address" --hci "$R" $keys > "$log/pair.out" 2> "$log/pair.err"
paired=$?
cat "$log/pair.out" "$log/pair.err"
[ "$paired" = 0 ] || fail "band pair with the typed passkey exited $paired"
grep -q "type its six digits" "$log/pair.err" || fail "band pair did not prompt on the terminal"
grep -q "bond only" "$log/pair.out" || fail "band pair did not store a bond-only entry"
grep -qi "$address" "$log/smp-keys" || fail "no long-term key kept in smp-keys"
shown=$(grep -c "the screen shows passkey" "$log/serve.log")
wait_link_down "$R"

# The stream ends 3 s before a minute boundary, so the watch writes the truth of its last minute
# a few seconds later: a watch has no history, and its truth for a minute comes at the minute's end.
now=$(date +%s)
boundary=$(( (now + 15 + 59) / 60 * 60 ))
duration=$((boundary - 3 - now))
step "band stream with the bond for ${duration} s"
"$band" stream "$address" --hci "$R" $keys $store --json --for "${duration}s" < /dev/null > "$log/stream.json" 2> "$log/stream.err"
streamed=$?
last_minute=$(date -u -d "@$((boundary - 60))" +%Y-%m-%dT%H:%M:00Z)
wait_for "the watch's truth for $last_minute" 150 grep -q "\"minute\":\"$last_minute\"" "$log/truth.ndjson" || fail "no truth for the stream's last minute"
grep -v '"event":"reading"' "$log/stream.json"
grep -c '"event":"reading"' "$log/stream.json" | sed 's/^/readings: /'
[ "$streamed" = 0 ] || { cat "$log/stream.err"; fail "band stream exited $streamed"; }
grep -q '"kind":"infinitime"' "$log/stream.json" || fail "the stream did not tell an InfiniTime watch"
[ "$(grep -c "the screen shows passkey" "$log/serve.log")" = "$shown" ] || fail "the stream paired again instead of using the bond"

kill -INT "$server"; wait "$server"
trap - EXIT
tail -3 "$log/serve.log"

step "store against the watch's truth"
"$RADIO_BIN/health" export $store > "$log/export.ndjson" || fail "health export"
python3 "$here/../check-watch.py" "$log/truth.ndjson" "$log/export.ndjson" "$log/stream.json" || fail "store differs from the watch's truth"
echo "infinitime stage: all checks passed"
