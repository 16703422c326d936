#!/usr/bin/env bash
# The real reader against the band's firmware on the emulated Cortex-M4 (band pair, band sync and
# band stream against the MCU firmware must leave a store equal to the firmware's truth, minute by
# minute: the chip's build is the product, not only the Linux simulation): `bandsim serve --firmware
# IMAGE --truth FILE --speed 60` boots the image in QEMU and bridges the socket to its UART; the
# image serves the band's GATT services (BandFirmwareCore's BandServices, the code the Linux band
# runs). Then, through the bridge:
#   - `band pair` pairs (the chip's HMAC_DRBG draws the key, its key store keeps it): exit 0;
#   - `band stream --for 12s` authenticates with the HMAC challenge and streams live minutes;
#   - `band sync` fetches the history (cursor, CRC-32), stores it and acknowledges it: exit 0;
#   - the store (`health export`) equals the firmware's own minute records (--truth, debug message
#     0x87) minute by minute: Tests/checks/support/store_vs_truth.py, TruthCheck's rules;
#   - a second `band sync` adds nothing (nothing lost, nothing duplicated);
#   - a link the chip's band drops itself: with `--fault disconnect-random=1` (link 0x13) the band
#     ends every connection right after the first PDU it sends; the chip reports each drop (link
#     0x89) and bandsim closes the reader's link at once, so `band sync --attempts 3` sees each link
#     go, reconnects, and gives up with exit 1 after three — never hanging on a link nobody serves;
#   - bandsim and QEMU are gone afterwards (trap on EXIT also when a step fails).
# The image is built once (support/firmware-common.sh). Exit 0 ok, 1 failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/scripts/packages.sh"
bash "$root/scripts/ensure-packages.sh" "${FIRMWARE_PACKAGES[@]}"
source "$root/Tests/checks/support/firmware-common.sh"
firmware_check_begin firmware-reader bandsim band health

elf="$(firmware_image)"
started=$(date +%s)
sock="$work/band.sock"
reader=(--keystore "$work/keys.json")
store=(--store "$work/health.sqlite")
"$bin/bandsim" serve --firmware "$elf" --socket "$sock" --truth "$work/truth.ndjson" --speed 60 --seed 11 \
  --start 2026-11-30T06:20:30+01:00 --exit-after 4 2>>"$work/serve.log" &
serve_pid=$!
for _ in $(seq 600); do [ -S "$sock" ] && break; kill -0 "$serve_pid" 2>/dev/null || fail "bandsim ended before listening"; sleep 0.1; done
[ -S "$sock" ] || fail "bandsim never listened on $sock"
# A few band minutes on the chip before the reader comes.
for _ in $(seq 600); do [[ -f "$work/truth.ndjson" && $(wc -l <"$work/truth.ndjson") -ge 3 ]] && break; sleep 0.1; done

timeout 60 "$bin/band" pair "sim:$sock" "${reader[@]}" >"$work/pair.out" 2>"$work/pair.log" || fail "band pair exited $?"
grep -q "key stored" "$work/pair.out" || fail "band pair: $(cat "$work/pair.out")"
timeout 90 "$bin/band" stream "sim:$sock" "${reader[@]}" "${store[@]}" --for 12s --keep-band-clock >"$work/stream.out" 2>"$work/stream.log" \
  || fail "band stream exited $?"
# Two band minutes later the minute the stream ended in is recorded; the sync replaces the live values.
sleep 3
timeout 90 "$bin/band" sync "sim:$sock" "${reader[@]}" "${store[@]}" --keep-band-clock >"$work/sync.out" 2>"$work/sync.log" \
  || fail "band sync exited $?"
"$bin/health" export "${store[@]}" >"$work/export.ndjson" || fail "health export exited $?"
python3 "$root/Tests/checks/support/store_vs_truth.py" "$work/export.ndjson" "$work/truth.ndjson" 5 >"$work/compare.out" \
  || fail "the store differs from the firmware's truth"
# Again: the band sends only what came since, the store gains no duplicate.
timeout 90 "$bin/band" sync "sim:$sock" "${reader[@]}" "${store[@]}" --keep-band-clock >"$work/sync2.out" 2>"$work/sync2.log" \
  || fail "the second band sync exited $?"
"$bin/health" export "${store[@]}" >"$work/export2.ndjson" || fail "health export exited $?"
python3 "$root/Tests/checks/support/store_vs_truth.py" "$work/export2.ndjson" "$work/truth.ndjson" 5 >"$work/compare2.out" \
  || fail "after the second sync the store differs from the firmware's truth"

wait "$serve_pid" || fail "bandsim serve --firmware exited $?"
serve_pid=""
qemu="$(grep -o 'running in QEMU (pid [0-9]*)' "$work/serve.log" | tail -1 | grep -o '[0-9]*')"
[ -n "$qemu" ] || fail "no QEMU pid in bandsim's banner"
! kill -0 "$qemu" 2>/dev/null || fail "QEMU $qemu still running after bandsim ended"
echo "firmware-reader: $(cat "$work/compare.out"); after a second sync: $(cat "$work/compare2.out")"

# A band that drops every link itself.
sock2="$work/drop.sock"
"$bin/bandsim" serve --firmware "$elf" --socket "$sock2" --speed 60 --seed 11 --start 2026-11-30T06:20:30+01:00 \
  --fault disconnect-random=1 2>>"$work/drop.log" &
serve_pid=$!
for _ in $(seq 600); do [ -S "$sock2" ] && break; kill -0 "$serve_pid" 2>/dev/null || fail "bandsim (disconnect-random) ended before listening"; sleep 0.1; done
[ -S "$sock2" ] || fail "bandsim (disconnect-random) never listened on $sock2"
set +e
timeout 60 "$bin/band" sync "sim:$sock2" "${reader[@]}" --store "$work/drop.sqlite" --attempts 3 --keep-band-clock >"$work/drop-sync.out" 2>"$work/drop-sync.log"
status=$?
set -e
(( status != 124 )) || fail "band sync hung on a link the band had dropped: $(tail -3 "$work/drop-sync.log")"
(( status == 1 )) || fail "band sync against a band that drops every link exited $status, not 1: $(tail -3 "$work/drop-sync.log")"
for link in 1 2 3; do
  grep -q "firmware: the band dropped the reader's link $link (a fault injection); closing it" "$work/drop.log" \
    || fail "bandsim did not report the band's drop of link $link: $(grep -i 'link\|reader' "$work/drop.log")"
done
dropped=$(grep -c "reader's link dropped by the firmware" "$work/drop.log" || true)
(( dropped == 3 )) || fail "bandsim closed the reader's link $dropped time(s), not 3"
stop_process "$serve_pid"
serve_pid=""
qemu="$(grep -o 'running in QEMU (pid [0-9]*)' "$work/drop.log" | tail -1 | grep -o '[0-9]*')"
! kill -0 "$qemu" 2>/dev/null || fail "QEMU $qemu still running after bandsim ended"
echo "firmware-reader: a band that drops every link: 3 drops reported by the chip, 3 links closed, band sync gave up after 3 attempts"
echo "firmware-reader: ok ($(( $(date +%s) - started )) s)"
