#!/usr/bin/env bash
# The hosted build of the chip (firmware-sim/board/build.sh --hci): its own BLE host (BandLEHost)
# speaking H4 on UART0 to a Bluetooth controller, played here by a scripted controller written
# apart from the chip's code (support/scripted_controller.py); the chip's debug lines on UART1.
#   - bring-up: HCI Reset first, the LE feature read, LE Read Buffer Size v2 refused → v1, the
#     event masks, then advertising: connectable undirected parameters on all three channels, the
#     advertising data with Flags, Heart Rate (0x180D) and the band's 128-bit service, the scan
#     response with the name "BandKit M4", advertising enabled last; the chip says it is ready;
#   - a central's link over ACL at the controller's 27-byte buffers: Exchange MTU (247), primary
#     service discovery (GAP, Device Information, Battery: a response cut into ACL fragments),
#     Device Name read, an unknown handle's error; every fragment within the ACL size and credits;
#   - the link ends: advertising restarts; a Hardware Error: the host brings the controller up
#     again from HCI Reset;
#   - a controller that refuses LE Set Advertising Parameters: the chip stops and names the
#     command and status; one that never answers HCI Reset: the chip says so after its time-out.
# QEMU is always stopped (trap on EXIT). Exit 0 ok, 1 failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/scripts/packages.sh"
bash "$root/scripts/ensure-packages.sh" "${FIRMWARE_PACKAGES[@]}"
work="$(mktemp -d)"
source "$root/Tests/checks/support/firmware-common.sh"
qemu_pid=""
cleanup() {
  firmware_stop
  rm -rf "$work"
}
trap cleanup EXIT
started=$(date +%s)

elf="$(firmware_image --hci)"
run() {   # run SCENARIO: a fresh chip (erased flash) against the scripted controller
  firmware_stop
  rm -f "$work/bandkit-m4.flash" "$work/debug.log"
  firmware_boot "$elf"
  PYTHONPATH="$root/Tests/checks/support" python3 "$root/Tests/checks/support/firmware_hci_scenarios.py" "$1" "$work" \
    || { echo "firmware-hci: scenario $1 failed; the chip's debug lines:" >&2; cat "$work/debug.log" >&2 || true; exit 1; }
}
run link
run refused
run silent
echo "firmware-hci: ok ($(( $(date +%s) - started )) s)"
