#!/bin/sh
# Stage 40: the band's own Bluetooth host on a standard controller, read by kernel BlueZ.
#
#   band (hci1) → kernel BlueZ → btvirt's virtual radio → btvirt's LE controller (server socket)
#     → H4 (h4-relay.py) → bandsim serve --hci-controller (BandLEHost: GAP, L2CAP, SMP, GATT)
#
# No kernel Bluetooth on the band's side: advertising, the connection, LE Secure Connections
# with the band's passkey, bonds and re-encryption are BandKit's own host (the chip's). Where the
# band runs is band-side.sh's business (RADIO_BAND_SIDE: in this guest, or on the host through a
# virtio-serial port, the chip's path). Checks:
#   1. band pair with a wrong passkey: exit 1, "refused the passkey", nothing stored;
#   2. band pair with the passkey bandsim prints, typed at the prompt: bonded and key stored;
#   3. band sync, the link dropped from the reader's side inside a history slice: the relay holds
#      the band's data after a few History Data packets (h4-relay.py --hold-history-after), the
#      link is dropped then, and check-drop.py proves the drop landed inside the slice, nothing of
#      it committed;
#   4. the band restarted (same flash and bonds): band sync re-encrypts with the bond (no passkey
#      shown again) and resumes the history;
#   5. band stream: live readings;
#   6. the store equals the band's truth minute for minute, each minute once (check-store.py).
set -u
here=$(dirname "$0")
. "$here/../lib.sh"
. "$here/../band-side.sh"
# The chip (RADIO_HOST_CHIP=1, stage 45: Tests/radio/chip-band.py on the host) keeps its own
# clock: it runs a day of history at 3600× before it listens, stopping two hours short of now, and
# at 1× it falls further behind (late SysTick interrupts under emulation are not made up), so the
# reader keeps the band's clock, and the stage lines up with the band's own minutes (its truth
# lines) instead of the wall clock's.
chip=
[ "${RADIO_HOST_CHIP:-}" = 1 ] && [ "$band_side" = host ] && chip=1
if [ -n "${RADIO_BAND_ADDRESS:-}" ]; then echo "btvirt stage skipped: it needs bandsim's truth"; exit 0; fi
if [ "${RADIO_VIRTUAL:-}" != 1 ]; then echo "btvirt stage skipped: it needs btvirt's controller server socket (the QEMU guest)"; exit 0; fi
band=$RADIO_BIN/band
lines_over() { [ "$(wc -l < "$1")" -gt "$2" ]; }
R=$RADIO_READER_HCI
name=btvirt-$band_side
log=$RADIO_OUT/$name
mkdir -p "$log"
keys="--keystore $log/keys.json"
clock=${chip:+--keep-band-clock}
# SQLite's WAL needs shared memory maps, which the 9p output directory cannot give (as in stage 20).
mkdir -p "/tmp/$name"
store="--store /tmp/$name/health.sqlite"
# The kernel offers LE Secure Connections only on an adapter whose SC setting is on (bluetoothd
# turns it on; there is none here, so `band` does), and the band refuses legacy pairing. Off
# again afterwards.
index=${R#hci}
trap 'band_side_cleanup; btmgmt --index "$index" sc off > /dev/null; echo "--- band side log (tail)"; tail -30 "$side_log"' EXIT
# The band's files, relative to $RADIO_OUT (band-side.sh runs it there, in the guest or on the host).
# Days of history: more than one slice (1,440 records) for bandsim; one for the chip, whose
# history is recorded at 3600× before it listens (≈ 25 s a day on a quiet machine).
if [ -n "$chip" ]; then history_days=1; band_side_wait_tenths=6000; else history_days=3; fi
band_args="--seed 5 --history-days $history_days --state $name/flash.bin"

wait_link_down "$R"
"$RADIO_BIN/bandradio" info --hci "$R" > /dev/null || fail "reader adapter $R"
# Off (as the kernel starts without bluetoothd): `band` must turn it on itself, or the band, which
# refuses legacy pairing, could not pair.
btmgmt --index "$index" sc off > /dev/null || fail "LE Secure Connections off on $R"
step "the band on its own host ($band_side), through btvirt's LE controller"
band_side_start "$log/serve.log" $band_args --truth "$name/truth-1.ndjson"
scan_for bandkit "$log/scan.json"
[ -n "$address" ] || fail "band scan did not find the band"

step "band pair with a wrong passkey"
"$band" pair "$address" --hci "$R" $keys --passkey 000000 < /dev/null > "$log/pair-wrong.out" 2> "$log/pair-wrong.err"
wrong=$?
cat "$log/pair-wrong.err"
grep -q "passkey [0-9]\{6\}" "$log/serve.log" || fail "the band showed no passkey"
[ "$wrong" = 1 ] || fail "a wrong passkey: band pair exited $wrong, want 1"
grep -q "refused the passkey" "$log/pair-wrong.err" || fail "a wrong passkey: no 'refused the passkey'"
grep -q "turned LE Secure Connections on for $R" "$log/pair-wrong.err" || fail "band did not turn LE Secure Connections on"
grep -q "$address" "$log/keys.json" 2>/dev/null && fail "a wrong passkey left a keystore entry"
grep -qi "$address" "$log/smp-keys" 2>/dev/null && fail "a wrong passkey left a long-term key"
[ -n "$chip" ] && grep -q "hosted: bonded" "$log/serve.log" && fail "a wrong passkey: the chip stored a bond"
wait_link_down "$R"

step "band pair, the band's passkey typed at the prompt"
python3 "$here/../type-passkey.py" "$log/serve.log" 120 -- "$band" pair "$address" --hci "$R" $keys > "$log/pair.out" 2> "$log/pair.err"
paired=$?
cat "$log/pair.out" "$log/pair.err"
[ "$paired" = 0 ] || fail "band pair with the typed passkey exited $paired"
grep -q "key stored" "$log/pair.out" || fail "band pair stored no key"
grep -qi "$address" "$log/smp-keys" || fail "no long-term key kept in smp-keys"
wait_link_down "$R"

step "band sync, the link dropped from the reader's side inside a history slice"
band_side_hold_history
"$band" sync "$address" --hci "$R" $keys $clock $store --json > "$log/sync-dropped.json" 2> "$log/sync-dropped.err" &
syncer=$!
wait_for "the relay to hold the band's history data" 1800 grep -q "holding the band's ACL data" "$relay_log" || { cat "$log/sync-dropped.json" "$log/sync-dropped.err" "$relay_log"; fail "the history transfer never reached $history_hold_packets packets"; }
"$RADIO_BIN/bandradio" disconnect --hci "$R" --peer "$address" || fail "forced link drop"
wait "$syncer"; dropped=$?
grep -v '"event":"reading"' "$log/sync-dropped.json" | tail -8; cat "$log/sync-dropped.err"
grep "holding\|discarded" "$relay_log"
# band sync reconnects by itself and resumes from the stored cursor, or gives up (exit 1).
python3 "$here/../check-drop.py" "$log/sync-dropped.json" || fail "the link drop did not land inside a history slice"
[ "$dropped" != 0 ] || grep -q '"event":"history_complete"' "$log/sync-dropped.json" || fail "band sync exited 0 on a dropped link without the whole history"
wait_link_down "$R"

# The band keeps the minute it is in when it stops, and a band started within that minute records
# the rest of it again under the same minute (another boot): the store, one sample per device,
# type and minute, keeps one of the two. So the restart goes around a minute boundary: stopped a
# few seconds before, started after.
step "the band restarted: the same flash and bonds"
if [ -n "$chip" ]; then
  # Powered off and on (QEMU stopped, a new one on the same flash file): the minute in progress
  # is lost, the band resumes where its newest minute ends, so no minute is recorded twice.
  band_side_stop
  [ "$band_side_status" = 0 ] || fail "the band side exited $band_side_status"
  band_side_start "$log/serve-2.log" $band_args --truth "$name/truth.ndjson"
  grep -q "hosted: BLE host on H4, 1 bond" "$log/serve-2.log" || fail "the chip did not find its bond in flash after the restart"
else
  second=$(( $(date +%s) % 60 ))
  [ "$second" -le 52 ] && sleep $((52 - second))
  band_side_stop
  [ "$band_side_status" = 0 ] || fail "the band side exited $band_side_status"
  second=$(( $(date +%s) % 60 ))
  [ "$second" -ge 50 ] && sleep $((61 - second))
  band_side_start "$log/serve-2.log" $band_args --truth "$name/truth.ndjson"
fi

step "band sync with the bond: no new passkey, the history resumed"
"$band" sync "$address" --hci "$R" $keys $clock $store --json > "$log/sync.json" 2> "$log/sync.err"
synced=$?
grep -v '"event":"reading"' "$log/sync.json"
[ "$synced" = 0 ] || { cat "$log/sync.err"; fail "band sync after the restart exited $synced"; }
grep -q '"event":"synced"' "$log/sync.json" || fail "band sync did not report a sync"
grep -q "passkey [0-9]\{6\}" "$log/serve-2.log" && fail "the restarted band showed a passkey: the bond was not used"
wait_link_down "$R"

# The stream ends a few seconds into a wall-clock minute (as in stage 20): the band's next minute
# record is ~55 s away and cannot slip in between the stream's last sync and stopping the band.
now=$(date +%s)
duration=$(( (now + 25) / 60 * 60 + 60 + 5 - now ))
if [ -n "$chip" ]; then
  # Just after one of the chip's minutes: 80 s take the stream over its next minute and end
  # well before the one after (a chip minute is 60–70 s here: late SysTicks are not made up).
  recorded=$(wc -l < "$log/truth.ndjson")
  wait_for "the chip's next minute" 1200 lines_over "$log/truth.ndjson" "$recorded" || fail "the chip recorded no minute in 120 s"
  duration=80
fi
step "band stream for ${duration} s"
"$band" stream "$address" --hci "$R" $keys $clock $store --json --for "${duration}s" > "$log/stream.json" 2> "$log/stream.err"
streamed=$?
grep -v '"event":"reading"' "$log/stream.json"
readings=$(grep -c '"event":"reading"' "$log/stream.json")
echo "readings: $readings"
[ "$streamed" = 0 ] || { cat "$log/stream.err"; fail "band stream exited $streamed"; }
[ "$readings" -gt 0 ] || fail "no live readings"
[ "$(grep -c "passkey [0-9]\{6\}" "$log/serve-2.log")" = 0 ] || fail "the stream paired again instead of using the bond"

# btvirt drops a controller's links silently when its connection closes (no Disconnection
# Complete to the peer): the band side stops only once the reader's link is down.
wait_link_down "$R"
band_side_stop
[ "$band_side_status" = 0 ] || fail "the band side exited $band_side_status"
tail -3 "$log/serve-2.log"

step "store against the band's truth"
"$RADIO_BIN/health" export $store > "$log/export.ndjson" || fail "health export"
# Both runs' truth: each writes what is in flash at its start (unacknowledged records, so some
# lines twice) and each minute it records; the minute of the restart was recorded by both boots.
awk '!seen[$0]++' "$log/truth-1.ndjson" "$log/truth.ndjson" > "$log/truth-all.ndjson"
python3 "$here/../check-store.py" "$log/truth-all.ndjson" "$log/export.ndjson" || fail "store differs from the band's truth"
trap - EXIT
band_side_cleanup
btmgmt --index "$index" sc off > /dev/null
echo "btvirt stage ($band_side): all checks passed"
