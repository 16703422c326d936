#!/usr/bin/env bash
# The band's hosted chip image (firmware-sim/board/build.sh --band: the band's services behind its
# own BLE host) against an independent controller and central: QEMU's mps2-an386 with UART0 on a
# Bumble controller and UART1 on the script's debug socket, a Bumble central on the same simulated
# radio (Tests/bumble/chip_central.py): legacy pairing refused, a wrong then the right passkey
# (shown on UART1), the whole history equal to the chip's own minute records, and re-encryption
# with the bond kept in flash after a chip reset. QEMU is stopped on every way out.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
source Tests/checks/support/firmware-common.sh
source Tests/checks/support/checks-venv.sh
elf="$(firmware_image --band)"
checks_venv "bumble==0.0.236"
work="$(mktemp -d)"
cleanup() {
  local pid
  pid="$(cat "$work/qemu.pid" 2>/dev/null || true)"
  [[ -z "$pid" ]] || kill -- "-$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
started=$(date +%s)
NO_COLOR=1 TERM=dumb timeout 600 "$venv/bin/python" Tests/bumble/chip_central.py "$root/Tests/checks/support/firmware-common.sh" "$elf" "$work" \
  || { echo "--- debug port (UART1)"; tail -40 "$work/debug.log"; echo "--- qemu"; tail -20 "$work/qemu.log"; exit 1; } >&2
echo "bumble-chip: ok ($(( $(date +%s) - started )) s)"
