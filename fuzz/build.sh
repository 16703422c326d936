#!/usr/bin/env bash
# Builds every libFuzzer harness fuzz/NAME/harness.swift into fuzz/bin/NAME.
#
#   fuzz/build.sh            # all harnesses
#   fuzz/build.sh att        # just fuzz/att
#
# The library modules are compiled straight from their folders (no SwiftPM), instrumented for
# libFuzzer and AddressSanitizer, one module at a time in dependency order, then linked
# with each harness. Preconditions and overflow checks stay on (-O, not -Ounchecked): a
# trap is a finding.
set -euo pipefail
cd "$(dirname "$0")/.."

# Modules in dependency order. A harness may import any of them.
MODULES=(BandKitSystem CivilTime JSONOutput ServiceSupport FirmwareCrypto BandWire BandATT BandGATT BandGATTServer BandHCI BandLEHost BandLink BandControllerLink SocketSecurity BandBlueZ BandProtocol BandTrace HealthModel HealthAnalysis UARTFraming ChipRuntime BandFirmwareCore BandFirmware
         BandGATTClient HealthStore HealthStorePostgreSQL BandReader BandReplay AppleHealth OpenHealthKit FitFile HealthHTTP)
# FUZZ_MODULES="BandKitSystem CivilTime HealthModel AppleHealth" fuzz/build.sh applehealth builds only those
# (in that order) for a harness that needs no more: minutes less on a shared machine.
if [[ -n "${FUZZ_MODULES:-}" ]]; then read -r -a MODULES <<<"$FUZZ_MODULES"; fi
# C modules (module maps) the Swift modules import, and the libraries they link.
C_MODULES=(-I Sources/C/CBlueZ -I Sources/C/CCrypto -I Sources/C/CSQLite -I Sources/C/CPostgres -I Sources/C/CExpat -I Sources/C/CZlib -I Sources/C/CMicroHTTPD)
C_LIBRARIES=(-lbluetooth -lcrypto -lsqlite3 -lpq -lexpat -lz -lmicrohttpd)

# Where a module's sources live (Sources/<room>/NAME, firmware-sim/Sources/<room>/NAME).
source scripts/modules.sh
source_dir() { module_dir "$1"; }

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
