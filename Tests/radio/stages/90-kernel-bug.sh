#!/bin/sh
# Stage 90 (opt-in: RADIO_KERNEL_BUG=1 bash Tests/radio/run.sh, with RADIO_STAGES=90-kernel-bug):
# reproduces the kernel BUG in hci_chan_del that Debian 12's 6.1 kernel hits when an L2CAP socket
# is closed after cancelled LE connects (Tests/radio/kernel-bug/hci-chan-del.c says how). Passes
# when the kernel logs the BUG and the client dies with 139, fails when it does not (a kernel that
# no longer has the bug). Opt-in because it leaves the guest's Bluetooth stack broken: every LE
# connect afterwards fails with EBUSY, so it must run last and alone.
set -u
here=$(dirname "$0")
. "$here/../lib.sh"
if [ "${RADIO_KERNEL_BUG:-}" != 1 ]; then echo "kernel-bug stage skipped: opt-in (RADIO_KERNEL_BUG=1), it breaks the guest's Bluetooth stack"; exit 0; fi
log=$RADIO_OUT/kernel-bug
mkdir -p "$log"
client=/tmp/hci-chan-del
cc -O2 -o "$client" "$here/../kernel-bug/hci-chan-del.c" -lbluetooth || fail "cannot build the client"
wait_link_down "$RADIO_BAND_HCI"; wait_link_down "$RADIO_READER_HCI"
peer=$(adapter_address "$RADIO_BAND_HCI")
reader=$(adapter_address "$RADIO_READER_HCI")
"$RADIO_BIN/bandradio" serve --hci "$RADIO_BAND_HCI" --name BandKit-Peer --service 180d --for 120s --sessions 1 > "$log/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
wait_for "advertising" 100 grep -q "advertising" "$log/serve.log" || fail "bandradio serve did not advertise"
step "hold a link to $peer, cancel three connects to an absent device, close the held link"
"$client" "$reader" "$peer" 00:AA:00:00:00:99 3 > "$log/client.log" 2>&1
status=$?
cat "$log/client.log"
dmesg | grep -E "list_del corruption|kernel BUG|hci_chan_del" | tee "$log/bug.txt"
[ "$status" = 139 ] && grep -q "kernel BUG" "$log/bug.txt" && { echo "kernel-bug stage: reproduced (client exit 139)"; exit 0; }
fail "not reproduced (client exit $status): this kernel may no longer have the bug"
