#!/usr/bin/env bash
# Simulated band benchmark: cost of a simulated second, and of a history transfer over a
# socketpair at three ATT_MTUs, each against a baseline measured in the same run, with heap
# allocations counted.
#
#   bash bench/firmware/run.sh
#
# Compiles the band's modules straight from their folders with -O (no SwiftPM) into one executable
# with bench/att/malloc_counter.c. Figures go to docs/performance.md ("BandFirmware") by hand.
set -euo pipefail
cd "$(dirname "$0")/../.."

# Objects are kept in .build/bench-firmware and rebuilt only when their sources change.
work=.build/bench-firmware
mkdir -p "$work"

source scripts/modules.sh
FLAGS=(-O -swift-version 6 -enable-upcoming-feature ExistentialAny -parse-as-library -package-name BandKit
       -I Sources/C/CCrypto -I Sources/C/CBlueZ)
objects=()
for module in CivilTime JSONOutput BandWire BandATT BandGATT BandGATTServer BandHCI BandKitSystem FirmwareCrypto BandProtocol BandLink BandTrace UARTFraming ChipRuntime BandFirmwareCore BandFirmware; do
    # Not every module exists in every revision (before/after runs).
    dir="$(module_dir "$module" 2>/dev/null)" || continue
    mapfile -t sources < <(find "$dir" -name '*.swift' | sort)
    if [[ ! -f "$work/$module.o" ]] || [[ -n "$(find "$dir" -name '*.swift' -newer "$work/$module.o" -print -quit)" ]]; then
        echo "compiling $module" >&2
        swiftc "${FLAGS[@]}" -wmo -module-name "$module" -I "$work" \
            -emit-module -emit-module-path "$work/$module.swiftmodule" -c "${sources[@]}" -o "$work/$module.o"
    fi
    objects+=("$work/$module.o")
done
clang -O2 -c bench/att/malloc_counter.c -o "$work/malloc_counter.o"
swiftc -O -swift-version 6 -module-name FirmwareBench -I "$work" -I Sources/C/CCrypto bench/firmware/FirmwareBench.swift \
    "${objects[@]}" "$work/malloc_counter.o" -lcrypto -lm -o "$work/FirmwareBench"

"$work/FirmwareBench"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1 /proc/loadavg), $(swiftc --version 2>&1 | head -1)"
