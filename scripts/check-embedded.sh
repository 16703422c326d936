#!/usr/bin/env bash
# Checks that the GATT server (BandGATTServer) and the parts of BandWire and BandATT it needs
# compile with Embedded Swift for a Cortex-M4 (the class of chip in real bands; worked example in
# ../shared/reference/embedded-m4/): each module with -wmo into an object, then a probe
# (scripts/embedded/GATTServerProbe.swift) that specializes every generic path of the server
# over a static attribute source; the firmware's own crypto (FirmwareCrypto) and its UART frame
# codec (UARTFraming) and core (FirmwareBoard) likewise, and the band's own protocol (BandProtocol:
# live activity, minute history, pairing and the HMAC challenge, over FirmwareCrypto), the standard
# characteristics (BandGATT) over the civil calendar (CivilTime) and the band's own logic (BandFirmwareCore: sensor model, clock, minute
# accumulation, flash image, the one-second tick, the GATT services); firmware-sim/board/build.sh links them
# into the image Tests/checks/firmware-qemu.sh runs. Exit 0: clean; 1: the compiler's errors are printed.
#
#   bash scripts/check-embedded.sh [OUTDIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out=${1:-$(mktemp -d)}
mkdir -p "$out"
flags=(-enable-experimental-feature Embedded -enable-experimental-feature Extern -target armv7em-none-none-eabi -parse-as-library -wmo -Osize
       -Xfrontend -disable-stack-protector -package-name bandkit -I "$out")
compile() {  # MODULE SOURCES…
  local module=$1; shift
  swiftc "${flags[@]}" -module-name "$module" -emit-module -emit-module-path "$out/$module.swiftmodule" \
    "$@" -c -o "$out/$module.o"
}
compile BandWire "$root"/Sources/BandWire/*.swift
compile BandATT "$root"/Sources/BandATT/*.swift
compile BandGATTServer "$root"/Sources/BandGATTServer/*.swift
compile FirmwareCrypto "$root"/firmware-sim/Sources/FirmwareCrypto/*.swift
compile UARTFraming "$root"/firmware-sim/Sources/UARTFraming/*.swift
compile FirmwareBoard "$root"/firmware-sim/Sources/FirmwareBoard/*.swift
# One array element per file, so a checkout path with spaces stays one argument per source.
mapfile -t protocol_sources < <(find "$root/Sources/BandProtocol" -name '*.swift' | sort)
compile BandProtocol "${protocol_sources[@]}"
compile CivilTime "$root"/Sources/Core/CivilTime/*.swift
compile BandGATT "$root"/Sources/BandGATT/*.swift
mapfile -t core_sources < <(find "$root/firmware-sim/Sources/BandFirmwareCore" -name '*.swift' | sort)
compile BandFirmwareCore "${core_sources[@]}"
swiftc "${flags[@]}" -module-name GATTServerProbe "$root/scripts/embedded/GATTServerProbe.swift" -c -o "$out/GATTServerProbe.o"
if command -v llvm-size >/dev/null; then llvm-size "$out"/BandGATTServer.o "$out"/GATTServerProbe.o "$out"/FirmwareCrypto.o "$out"/UARTFraming.o "$out"/FirmwareBoard.o; fi
echo "check-embedded: BandWire, BandATT, BandGATTServer, FirmwareCrypto, UARTFraming, FirmwareBoard, BandProtocol, CivilTime, BandGATT, BandFirmwareCore and the probe compile with Embedded Swift (armv7em-none-none-eabi)"
