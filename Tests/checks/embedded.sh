#!/usr/bin/env bash
# The firmware's GATT server stays Embedded-Swift-clean (the firmware is built for a Cortex-M4,
# where anything that needs the full runtime fails to compile): scripts/check-embedded.sh compiles
# BandWire, BandATT, BandGATTServer and a probe specialising the server over a static table for
# armv7em-none-none-eabi.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bash "$root/scripts/check-embedded.sh" "$work"
