#!/bin/sh
# In the guest (as root, chrooted into the host's read-only root, no bluetoothd): three
# virtual LE controllers on one virtual radio (btvirt), a btmon capture of everything, then
# each stage in stages/ in order. Environment from the kernel command line:
#   RADIO_OUT    writable output directory (logs, captures, keys, stage results)
#   RADIO_BIN    directory holding the release binaries (bandradio, band, bandsim)
#   RADIO_STAGES space-free comma list of stages to run (default: all, in file order)
#   RADIO_VIRTUAL 1: start btvirt's three virtual controllers (the QEMU guest); unset on real
#                 hardware (run-on-hardware.sh), where the adapters below already exist
#   RADIO_BAND_HCI, RADIO_READER_HCI  the band's and the reader's adapters (hci0, hci1)
#   RADIO_SECOND_BAND_HCI  a second band's adapter for the gateway stage (hci2)
set -u
here=$(dirname "$0")
. "$here/lib.sh"
export RADIO_BAND_HCI=${RADIO_BAND_HCI:-hci0} RADIO_READER_HCI=${RADIO_READER_HCI:-hci1} RADIO_SECOND_BAND_HCI=${RADIO_SECOND_BAND_HCI:-hci2}

step "btmon capture"
# Captured on local storage and copied out at the end: btmon stopped writing mid-session when
# its file was on the guest's 9p mount.
capture_dir=$(mktemp -d /tmp/radio-capture.XXXXXX)
btmon -w "$capture_dir/radio.btsnoop" > "$capture_dir/btmon.log" 2>&1 &
monitor=$!
virt=
if [ "${RADIO_VIRTUAL:-}" = 1 ]; then
  # -s: also server sockets (/tmp/bt-server-le and others), each connection one more emulated
  # controller on the same radio, driven over H4 by a host outside the kernel (stage 40).
  step "btvirt with three LE controllers on one virtual radio, and its H4 server sockets"
  btvirt -l3 -L -s > "$RADIO_OUT/btvirt.log" 2>&1 &
  virt=$!
fi
for adapter in "$RADIO_BAND_HCI" "$RADIO_READER_HCI" ${RADIO_VIRTUAL:+"$RADIO_SECOND_BAND_HCI"}; do
  [ -n "${RADIO_BAND_ADDRESS:-}" ] && [ "$adapter" = "$RADIO_BAND_HCI" ] && continue
  wait_for "$adapter to appear" 100 test -e "/sys/class/bluetooth/$adapter" || { cat "$RADIO_OUT/btvirt.log" 2>/dev/null; exit 1; }
done

failed=0
stages=$(ls "$here/stages" | sed -n 's/\.sh$//p')
[ -n "${RADIO_STAGES:-}" ] && stages=$(echo "$RADIO_STAGES" | tr ',' ' ')
for stage in $stages; do
  step "stage $stage"
  started=$(uptime_seconds)
  if sh "$here/stages/$stage.sh"; then result=passed; else result=FAILED; failed=1; fi
  echo "$stage $result $(elapsed_since "$started")" >> "$RADIO_OUT/stages"
  step "stage $stage $result in $(elapsed_since "$started") s"
done

[ -n "$virt" ] && kill "$virt" 2>/dev/null
sleep 0.5
if kill -INT "$monitor" 2>/dev/null; then
  wait "$monitor" 2>/dev/null
else
  echo "btmon was no longer running:"; cat "$capture_dir/btmon.log"; failed=1
fi
cp "$capture_dir/radio.btsnoop" "$RADIO_OUT/radio.btsnoop"
exit "$failed"
