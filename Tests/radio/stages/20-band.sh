#!/bin/sh
# Stage 20: the whole product on the radio. `bandsim serve --hci` (band, with a simulated day
# of history) against `band scan/pair/sync/stream --hci` (reader): pairing over a real L2CAP
# ATT socket with BT_SECURITY, a history sync, live streaming through a forced link drop
# (the band's side terminates the link) with reconnect and resume, then the store must hold
# exactly the band's truth minutes. The session's btmon capture is compared with tshark by the
# host afterwards.
#
# Why the drop is a disconnect here and a power-off in stage 10: when the band's controller
# powers off while a reader keeps reconnecting, the kernel's disconnect handler re-enables
# advertising while the device is being closed, btvirt's controller keeps advertising with its
# host gone, the reader connects to it, and btvirt never times that link out (no supervision
# timeout). BandBlueZ tears such a link down after a connect timeout, but btvirt then stops
# reporting the band to the reader's scans. Stage 10 powers the band off and reconnects after
# power-on, which is what the kernel path needs to prove.
set -u
. "$(dirname "$0")/../lib.sh"
if [ -n "${RADIO_BAND_ADDRESS:-}" ]; then echo "band stage skipped: it checks the store against bandsim's truth, and RADIO_BAND_ADDRESS names a real band"; exit 0; fi
band=$RADIO_BIN/band
B=$RADIO_BAND_HCI
R=$RADIO_READER_HCI
log=$RADIO_OUT/band
mkdir -p "$log"
keys="--keystore $log/keys.json"
# SQLite's WAL needs shared memory maps, which the 9p output directory cannot give: the store
# lives on the guest's tmpfs and only its export is kept.
mkdir -p /tmp/band-stage
store="--store /tmp/band-stage/health.sqlite"

# Both controllers up for LE (bandsim prepares its own; band scan expects a powered adapter).
"$RADIO_BIN/bandradio" info --hci "$R" || fail "reader adapter $R"

start_serve "$log/serve.log" --hci "$B" --start 2026-11-30T08:00:00+01:00 --seed 7 --history-days 1 \
  --truth "$log/truth.ndjson" --state "$log/state.bin" --deterministic-secrets
scan_for bandkit "$log/scan.json"
[ -n "$address" ] || fail "band scan did not find the band"

step "band pair $address"
"$band" pair "$address" --hci "$R" $keys || fail "band pair"

step "band sync"
"$band" sync "$address" --hci "$R" $keys $store --json > "$log/sync.json" 2>&1 || { cat "$log/sync.json"; fail "band sync"; }
tail -2 "$log/sync.json"
grep -q '"event":"synced"' "$log/sync.json" || fail "band sync did not report a sync"

# The stream ends (and syncs history a last time) a few seconds into a wall-clock minute: the
# band's clock was set to real time by the sync, so its next minute record is ~55 s away and
# cannot slip in between the final sync and stopping the band.
now=$(date +%s)
duration=$(( (now + 45) / 60 * 60 + 60 + 5 - now ))
step "band stream for ${duration} s, with the band dropping the link midway"
"$band" stream "$address" --hci "$R" $keys $store --json --for "${duration}s" > "$log/stream.json" 2>&1 &
streamer=$!
wait_for "live readings" 600 grep -q '"event":"reading"' "$log/stream.json" || { cat "$log/stream.json"; fail "no live readings"; }
sleep 3
reader=$(adapter_address "$R")
"$RADIO_BIN/bandradio" disconnect --hci "$B" --peer "$reader" || fail "forced link drop"
wait "$streamer"; streamed=$?
grep -c '"event":"reading"' "$log/stream.json" | sed 's/^/readings: /'
grep -E '"event":"(disconnected|reconnecting|connected|history_complete|stopped)"' "$log/stream.json"
[ "$streamed" = 0 ] || fail "band stream exited $streamed"
grep -q '"event":"reconnecting"' "$log/stream.json" || fail "the stream never saw the link drop"
[ "$(grep -c '"event":"connected"' "$log/stream.json")" -ge 2 ] || fail "the stream did not reconnect"
last_reading=$(grep -n '"event":"reading"' "$log/stream.json" | tail -1 | cut -d: -f1)
reconnected=$(grep -n '"event":"reconnecting"' "$log/stream.json" | tail -1 | cut -d: -f1)
[ "$last_reading" -gt "$reconnected" ] || fail "no live readings after the reconnect (the stream did not resume)"

kill -INT "$server"; wait "$server"
trap - EXIT
tail -3 "$log/serve.log"

step "store against the band's truth"
"$RADIO_BIN/health" export $store > "$log/export.ndjson" || fail "health export"
python3 "$(dirname "$0")/../check-store.py" "$log/truth.ndjson" "$log/export.ndjson" || fail "store differs from the band's truth"
echo "band stage: all checks passed"
