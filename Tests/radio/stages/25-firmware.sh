#!/bin/sh
# Stage 25: the band's firmware on the radio (the chip's build over a real Bluetooth stack, not only
# a socket). The Embedded Swift image for the Cortex-M4 (built on the host by run.sh before the
# guest boots: RADIO_FIRMWARE) runs in
# qemu-system-arm inside this guest — nested under the guest's own TCG — and
# `bandsim serve --firmware IMAGE --hci B` bridges its UART to the kernel's Bluetooth stack:
#
#   band (hci1) → kernel BlueZ → btvirt → kernel BlueZ (hci0) → bandsim's bridge → UART → firmware
#
# Then, with --keep-band-clock (the chip's clock runs at --speed; the reader reads it, never sets it):
#   - `band pair` pairs through the kernel's SMP and the band's own pairing (the chip's HMAC_DRBG
#     draws the key): exit 0, "key stored";
#   - `band stream --for 12s` authenticates with the HMAC challenge and streams live minutes;
#   - `band sync` fetches the history from the cursor (CRC-32) and acknowledges it;
#   - the store equals the firmware's own minute records (--truth, its debug channel) minute by
#     minute, each minute once (Tests/checks/support/store_vs_truth.py);
#   - a second `band sync` changes nothing already stored (every sample of the first export is in the
#     second unchanged), and the store still equals the truth;
#   - bandsim and its QEMU are gone afterwards (the EXIT trap stops both also when a step fails).
# The chip's pace under nested emulation is printed for docs/performance.md. RADIO_FIRMWARE_SPEED
# overrides the band's speed. Default 30: the image's tick costs ≈ 92,300 ARM instructions per band
# second, 2.8 M a real second at 30×, a quarter of what the nested QEMU managed flat out on the
# loaded CI VM (≈ 126 band seconds a second, ≈ 11.6 M instructions); a chip kept busier than that
# starves its UART (at --speed 3600 one `band pair` took 310 s), docs/performance.md.
#
# Opt-in in the QEMU guest (RADIO_FIRMWARE_BRIDGE=1 bash Tests/radio/run.sh): there stage 45 runs
# the chip on its own Bluetooth host through btvirt's controller, and the bridge does no Bluetooth
# for the chip. On real adapters (run-on-hardware.sh) it runs: no H4 controller is free there for
# the chip, and the bridge is how the chip's services meet a real radio.
set -u
here=$(dirname "$0")
. "$here/../lib.sh"
if [ "${RADIO_VIRTUAL:-}" = 1 ] && [ "${RADIO_FIRMWARE_BRIDGE:-}" != 1 ]; then echo "firmware bridge stage skipped: stage 45 runs the chip on its own host (RADIO_FIRMWARE_BRIDGE=1 runs it)"; exit 0; fi
if [ -n "${RADIO_BAND_ADDRESS:-}" ]; then echo "firmware stage skipped: it checks the store against the firmware's truth, and RADIO_BAND_ADDRESS names a real band"; exit 0; fi
[ -n "${RADIO_FIRMWARE:-}" ] && [ -f "$RADIO_FIRMWARE" ] || fail "no firmware image (RADIO_FIRMWARE='${RADIO_FIRMWARE:-}'): run.sh builds it before the guest boots"
command -v qemu-system-arm > /dev/null || fail "qemu-system-arm is not installed (scripts/packages.sh FIRMWARE_PACKAGES)"
band=$RADIO_BIN/band
B=$RADIO_BAND_HCI
R=$RADIO_READER_HCI
speed=${RADIO_FIRMWARE_SPEED:-30}
log=$RADIO_OUT/firmware
mkdir -p "$log"
keys="--keystore $log/keys.json"
# SQLite's WAL needs shared memory maps, which the 9p output directory cannot give (as in stage 20).
mkdir -p /tmp/firmware-stage
store="--store /tmp/firmware-stage/health.sqlite"

wait_link_down "$B"; wait_link_down "$R"
"$RADIO_BIN/bandradio" info --hci "$R" > /dev/null || fail "reader adapter $R"

step "bandsim serve --firmware (QEMU in the guest) --hci $B --speed $speed"
booting=$(uptime_seconds)
# Nested emulation: QEMU starts and the image boots under the guest's TCG; allow a minute.
serve_wait_tenths=600 start_serve "$log/serve.log" --firmware "$RADIO_FIRMWARE" --hci "$B" --truth "$log/truth.ndjson" \
  --speed "$speed" --seed 11 --start 2026-11-30T06:20:30+01:00
qemu=$(sed -n 's/.*running in QEMU (pid \([0-9]*\)).*/\1/p' "$log/serve.log" | head -1)
[ -n "$qemu" ] || fail "no QEMU pid in bandsim's banner"
# bandsim stops its QEMU on SIGTERM; should bandsim itself die, its QEMU is stopped here too.
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; kill $qemu 2>/dev/null; echo "--- bandsim serve log (tail)"; tail -40 "$log/serve.log"' EXIT
echo "QEMU $qemu up and the image configured after $(elapsed_since "$booting") s"

# The chip's pace with no reader (band minutes over 10 real seconds; at 30× it would be 5) and,
# at the end, over the whole stage: whether the nested emulation keeps up with --speed.
wait_for "the first minute record" 600 test -s "$log/truth.ndjson" || fail "the firmware recorded no minute within 60 s"
first_record=$(uptime_seconds); before=$(wc -l < "$log/truth.ndjson")
sleep 10
after=$(wc -l < "$log/truth.ndjson")
echo "chip pace, idle: $((after - before)) band minutes in $(elapsed_since "$first_record") s at --speed $speed"

scan_for bandkit "$log/scan.json"
[ -n "$address" ] || fail "band scan did not find the firmware's band"

step "band pair $address"
"$band" pair "$address" --hci "$R" $keys > "$log/pair.out" 2> "$log/pair.err" || { cat "$log/pair.out" "$log/pair.err"; fail "band pair"; }
cat "$log/pair.out"
grep -q "key stored" "$log/pair.out" || fail "band pair stored no key"
wait_link_down "$R"

step "band stream for 12 s"
"$band" stream "$address" --hci "$R" $keys $store --keep-band-clock --json --for 12s > "$log/stream.json" 2> "$log/stream.err"
streamed=$?
[ "$streamed" = 0 ] || { cat "$log/stream.err"; fail "band stream exited $streamed"; }
grep -v '"event":"reading"' "$log/stream.json"
readings=$(grep -c '"event":"reading"' "$log/stream.json")
echo "readings: $readings"
[ "$readings" -gt 0 ] || fail "no live readings from the firmware"
grep -q '"kind":"bandkit"' "$log/stream.json" || fail "the stream did not tell a BandKit band"
wait_link_down "$R"

# A few band minutes later the minute the stream ended in is recorded; the sync replaces the live values.
sleep 3
step "band sync"
"$band" sync "$address" --hci "$R" $keys $store --keep-band-clock --json > "$log/sync.json" 2> "$log/sync.err"
synced=$?
[ "$synced" = 0 ] || { cat "$log/sync.err"; fail "band sync exited $synced"; }
grep -v '"event":"reading"' "$log/sync.json"
grep -q '"event":"synced"' "$log/sync.json" || fail "band sync did not report a sync"
"$RADIO_BIN/health" export $store > "$log/export.ndjson" || fail "health export"
python3 "$here/../../checks/support/store_vs_truth.py" "$log/export.ndjson" "$log/truth.ndjson" 5 || fail "the store differs from the firmware's truth"
wait_link_down "$R"

step "band sync again"
"$band" sync "$address" --hci "$R" $keys $store --keep-band-clock --json > "$log/sync2.json" 2> "$log/sync2.err"
synced=$?
[ "$synced" = 0 ] || { cat "$log/sync2.err"; fail "the second band sync exited $synced"; }
grep -v '"event":"reading"' "$log/sync2.json"
"$RADIO_BIN/health" export $store > "$log/export2.ndjson" || fail "health export"
python3 "$here/../../checks/support/store_vs_truth.py" "$log/export2.ndjson" "$log/truth.ndjson" 5 || fail "after the second sync the store differs from the firmware's truth"
python3 "$here/../check-unchanged.py" "$log/export.ndjson" "$log/export2.ndjson" || fail "the second sync changed what the first had stored"

recorded=$(wc -l < "$log/truth.ndjson")
echo "$recorded $(uptime_seconds) $first_record $speed" | awk '{ printf "chip pace, whole stage: %d band minutes in %.1f s: %.1f band seconds a second (--speed %d)\n", $1 - 1, $2 - $3, ($1 - 1) * 60 / ($2 - $3), $4 }'

kill -INT "$server"; wait "$server"; served=$?
tail -3 "$log/serve.log"
[ "$served" = 0 ] || fail "bandsim serve --firmware exited $served"
kill -0 "$qemu" 2>/dev/null && fail "QEMU $qemu still running after bandsim ended"
trap - EXIT
echo "firmware stage: all checks passed"
