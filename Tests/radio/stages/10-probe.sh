#!/bin/sh
# Stage 10: BandBlueZ on the kernel's real Bluetooth stack, without the band protocol.
# bandradio serve (peripheral, hci0) against bandradio scan/connect/power (central, hci1):
# advertising + raw-HCI scan, ATT over L2CAP CID 4, security raised after Insufficient
# Authentication (SMP Just Works confirmed by our own management-socket agent), keys
# persisted to a file and reused without pairing, forced link drop by powering the
# peripheral's controller off, and reconnection after powering it on.
set -u
. "$(dirname "$0")/../lib.sh"
if [ -n "${RADIO_BAND_ADDRESS:-}" ]; then echo "probe stage skipped: it needs our own peripheral, and RADIO_BAND_ADDRESS names a real band"; exit 0; fi
probe=$RADIO_BIN/bandradio
B=$RADIO_BAND_HCI
R=$RADIO_READER_HCI
log=$RADIO_OUT/probe
mkdir -p "$log"
uuid=6e400001-b5a3-f393-e0a9-e50e24dcca9e

band=$(adapter_address $B)
reader=$(adapter_address $R)
[ -n "$band" ] && [ -n "$reader" ] || fail "adapters did not come up"
echo "band ($B) $band, reader ($R) $reader"

"$probe" serve --hci $B --name BandKit-Probe --service 180d --service $uuid \
  --keys "$log/band.keys" --for 240s --sessions 4 > "$log/serve.log" 2>&1 &
server=$!
wait_for "advertising" 50 grep -q "advertising" "$log/serve.log" || { cat "$log/serve.log"; fail "serve did not start"; }
trap 'kill $server 2>/dev/null; echo "--- serve log"; cat "$log/serve.log"' EXIT

step "scan from $R"
# btvirt reports an advertiser when a scan starts; retry if that single report is missed.
found=no
for attempt in 1 2 3; do
  if "$probe" scan --hci $R --name BandKit-Probe --for 4s > "$log/scan.log" 2>&1; then found=yes; break; fi
  echo "(scan attempt $attempt saw nothing)"
done
cat "$log/scan.log"
[ "$found" = yes ] || fail "scan did not find BandKit-Probe"
grep -q "device $band .*services \[180d,$uuid\]" "$log/scan.log" || fail "scan did not report both service UUIDs"

step "connect, read protected attribute, pair (Just Works) on Insufficient Authentication"
"$probe" connect --hci $R --to "$band" --keys "$log/reader.keys" --expect-pairing yes || fail "first connection"
[ -s "$log/reader.keys" ] || fail "no long-term key was saved on the reader side"
[ "$(stat -c %a "$log/reader.keys")" = 600 ] || fail "key file is not mode 0600"

wait_link_down $R || fail "link did not go down"
step "reconnect at security medium with the stored key (no new pairing)"
"$probe" connect --hci $R --to "$band" --security medium --keys "$log/reader.keys" --expect-pairing no || fail "re-encryption with the stored key"

wait_link_down $R || fail "link did not go down"
step "forced link drop: power the band's controller off"
"$probe" connect --hci $R --to "$band" --security medium --keys "$log/reader.keys" --hold 60s --expect-drop > "$log/drop.log" 2>&1 &
holder=$!
wait_for "the held link" 300 grep -q "^pairing:" "$log/drop.log" || { cat "$log/drop.log"; fail "held connection did not come up"; }
"$probe" power --hci $B off
wait "$holder"; held=$?
cat "$log/drop.log"
[ "$held" = 0 ] || fail "the reader did not see the link drop"
"$probe" power --hci $B on

wait_link_down $R || fail "link did not go down"
step "reconnect after the band's controller came back"
"$probe" connect --hci $R --to "$band" --security medium --keys "$log/reader.keys" --expect-pairing no --timeout 40s || fail "reconnection"

wait "$server"
grep -q "done after 4 session" "$log/serve.log" || fail "serve did not see four sessions"
echo "probe stage: all checks passed"
