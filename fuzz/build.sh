#!/usr/bin/env bash
# Builds every libFuzzer harness fuzz/NAME/harness.swift into fuzz/bin/NAME.
#
#   fuzz/build.sh            # all harnesses
#   fuzz/build.sh att        # just fuzz/att
#
# The library modules are compiled straight from Sources/ (no SwiftPM), instrumented for
# libFuzzer and AddressSanitizer, one module at a time in dependency order, then linked
# with each harness. Preconditions and overflow checks stay on (-O, not -Ounchecked): a
# trap is a finding.
set -euo pipefail
cd "$(dirname "$0")/.."

# Modules in dependency order. A harness may import any of them.
MODULES=(BandKitSystem FirmwareCrypto BandWire BandATT BandGATT BandGATTServer BandHCI BandLink SocketSecurity BandBlueZ BandProtocol BandTrace HealthModel HealthAnalysis UARTFraming FirmwareBoard BandFirmwareCore BandFirmware
         BandGATTClient HealthStore BandReader BandReplay AppleHealth OpenHealthKit FitFile HealthHTTP)
# FUZZ_MODULES="BandKitSystem HealthModel AppleHealth" fuzz/build.sh applehealth builds only those
# (in that order) for a harness that needs no more: minutes less on a shared machine.
if [[ -n "${FUZZ_MODULES:-}" ]]; then read -r -a MODULES <<<"$FUZZ_MODULES"; fi
# C modules (module maps) the Swift modules import, and the libraries they link.
C_MODULES=(-I Sources/CBlueZ -I Sources/CCrypto -I Sources/CSQLite -I Sources/CPostgres -I Sources/CExpat -I Sources/CZlib -I Sources/CMicroHTTPD)
C_LIBRARIES=(-lbluetooth -lcrypto -lsqlite3 -lpq -lexpat -lz -lmicrohttpd)

# Where a module's sources live (the simulator's modules sit under firmware-sim/).
source_dir() {
    if [[ -d "Sources/$1" ]]; then echo "Sources/$1"
    elif [[ -d "Sources/System/$1" ]]; then echo "Sources/System/$1"
    else echo "firmware-sim/Sources/$1"; fi
}

SANITIZE=(-sanitize=fuzzer,address)
SWIFT_FLAGS=(-O -swift-version 6 -enable-upcoming-feature ExistentialAny -parse-as-library)
OUT=fuzz/bin
MOD="$OUT/modules"
# A subset keeps its own objects, so a later full build never links against a mix.
if [[ -n "${FUZZ_MODULES:-}" ]]; then MOD="$OUT/modules-${FUZZ_MODULES// /-}"; fi
mkdir -p "$MOD"

objects=()
upstream_rebuilt=0
for module in "${MODULES[@]}"; do
    dir="$(source_dir "$module")"
    mapfile -t sources < <(find "$dir" -name '*.swift' | sort)
    object="$MOD/$module.o"
    # Rebuild when any source is newer than the object, or a module it may import was rebuilt.
    if [[ ! -f "$object" ]] || (( upstream_rebuilt )) \
        || [[ -n "$(find "$dir" -name '*.swift' -newer "$object" -print -quit)" ]]; then
        upstream_rebuilt=1
        echo "compiling $module" >&2
        swiftc "${SWIFT_FLAGS[@]}" "${SANITIZE[@]}" -wmo -module-name "$module" -I "$MOD" "${C_MODULES[@]}" -package-name BandKit \
            -emit-module -emit-module-path "$MOD/$module.swiftmodule" \
            -c "${sources[@]}" -o "$object"
    fi
    objects+=("$object")
done

if [[ $# -gt 0 ]]; then
    names=("$@")
else
    names=()
    for harness in fuzz/*/harness.swift; do
        names+=("$(basename "$(dirname "$harness")")")
    done
fi

for name in "${names[@]}"; do
    harness="fuzz/$name/harness.swift"
    [[ -f "$harness" ]] || { echo "no harness $harness" >&2; exit 64; }
    echo "linking $OUT/$name" >&2
    swiftc "${SWIFT_FLAGS[@]}" "${SANITIZE[@]}" -module-name "Fuzz_$name" -package-name BandKit -I "$MOD" "${C_MODULES[@]}" \
        -use-ld=lld "$harness" "${objects[@]}" "${C_LIBRARIES[@]}" -o "$OUT/$name"
done
