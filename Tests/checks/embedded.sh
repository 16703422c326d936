#!/usr/bin/env bash
# The firmware's GATT server stays Embedded-Swift-clean (issue 11 item 2; the next step builds the
# firmware for a Cortex-M4): scripts/check-embedded.sh compiles BandWire, BandATT, BandGATTServer
# and a probe specialising the server over a static table for armv7em-none-none-eabi.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bash "$root/scripts/check-embedded.sh" "$work"
