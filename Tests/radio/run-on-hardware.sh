#!/usr/bin/env bash
# The radio suite on a machine with real Bluetooth adapters instead of the QEMU guest
# (docs/real-hardware.md). As root:
#
#   RADIO_BAND_HCI=hci0 RADIO_READER_HCI=hci1 bash Tests/radio/run-on-hardware.sh
#
# RADIO_BAND_HCI plays the band (bandradio serve / bandsim serve --hci), RADIO_READER_HCI the
# reader. With RADIO_BAND_ADDRESS=AA:BB:CC:DD:EE:FF a real band is used instead and only
# reader-side stages run. Stage 25 bridges the band's firmware image (built here, run by
# qemu-system-arm on this machine) to RADIO_BAND_HCI. bluetoothd is stopped for the run and restarted if it was active.
# Same stages, same btmon capture check as CI; results in .build/radio/hardware/.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "run-on-hardware: run as root (raw HCI and the management socket need it)" >&2; exit 64; }
: "${RADIO_BAND_HCI:=hci0}" "${RADIO_READER_HCI:=hci1}"
export RADIO_BAND_HCI RADIO_READER_HCI RADIO_BAND_ADDRESS="${RADIO_BAND_ADDRESS:-}" RADIO_STAGES="${RADIO_STAGES:-}"

swift build -c release 2>&1 | grep -Ev "^\[[0-9]+/[0-9]+\]|^Building|^Compiling|^Write" || true
export RADIO_BIN=$(swift build -c release --show-bin-path)
export RADIO_OUT=$(pwd)/.build/radio/hardware
if [ -z "$RADIO_BAND_ADDRESS" ] && { [ -z "$RADIO_STAGES" ] || [[ ",$RADIO_STAGES," == *",25-firmware,"* ]]; }; then
  root=$(pwd)
  source Tests/checks/support/firmware-common.sh
  RADIO_FIRMWARE=$(firmware_image) || { echo "run-on-hardware: the firmware image did not build" >&2; exit 1; }
  export RADIO_FIRMWARE
fi
rm -rf "$RADIO_OUT"; mkdir -p "$RADIO_OUT"

restart_bluetoothd=
if systemctl is-active --quiet bluetooth 2>/dev/null; then
  echo "run-on-hardware: stopping bluetoothd for the run"
  systemctl stop bluetooth
  restart_bluetoothd=1
fi
trap '[ -n "$restart_bluetoothd" ] && systemctl start bluetooth' EXIT

status=0
sh Tests/radio/scenario.sh || status=$?
bash Tests/radio/compare-capture.sh "$RADIO_BIN/bandsim" "$RADIO_OUT/radio.btsnoop" || status=1
cat "$RADIO_OUT/stages" 2>/dev/null || true
[ "$status" = 0 ] && echo "radio on hardware: passed" || echo "radio on hardware: FAILED" >&2
exit "$status"
