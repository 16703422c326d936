#!/usr/bin/env bash
# Checks that every module in the Embedded-clean rooms — Sources/Core (the band's wire, ATT, GATT,
# protocol, GATT server, crypto, UART frames, HCI, the BLE host) and firmware-sim/Sources/Embedded (the firmware's core and
# board layer) — compiles with Embedded Swift for a Cortex-M4 (the class of chip in real bands; worked
# example in ../shared/reference/embedded-m4/): each module with -wmo into an object, in dependency
# order, then a probe (scripts/embedded/GATTServerProbe.swift) that specializes every generic path of
# the GATT server over a static attribute source, and one (scripts/embedded/LEHostProbe.swift) that
# does the same for the band's BLE host, BandLEHost. A module placed in those folders is checked without
# this script changing; firmware-sim/board/build.sh links the same list into the image
# Tests/checks/firmware-qemu.sh runs. Exit 0: clean; 1: the compiler's errors are printed.
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
# Every module of the Embedded-clean rooms (Sources/Core, firmware-sim/Sources/Embedded), in
# dependency order; one array element per file, so a checkout path with spaces stays one argument.
source "$root/scripts/modules.sh"
modules=()
while IFS=$'\t' read -r module folder; do
  mapfile -t sources < <(find "$folder" -name '*.swift' | sort)
  compile "$module" "${sources[@]}"
  modules+=("$module")
done < <(MODULES_ROOT="$root" embedded_modules)
swiftc "${flags[@]}" -module-name GATTServerProbe "$root/scripts/embedded/GATTServerProbe.swift" -c -o "$out/GATTServerProbe.o"
swiftc "${flags[@]}" -module-name LEHostProbe "$root/scripts/embedded/LEHostProbe.swift" -c -o "$out/LEHostProbe.o"
if command -v llvm-size >/dev/null; then llvm-size "$out"/BandGATTServer.o "$out"/GATTServerProbe.o "$out"/LEHostProbe.o "$out"/FirmwareCrypto.o "$out"/UARTFraming.o "$out"/ChipRuntime.o; fi
echo "check-embedded: ${modules[*]} and the probes compile with Embedded Swift (armv7em-none-none-eabi)"
