#!/usr/bin/env bash
# OpenHealthKit over HealthStore: a day's merged total and a day's samples, read directly and
# through HealthKit's API, on a week of minute steps from two sources. Prints each pair and its
# ratio (measured in the same run).
#
#   bash bench/openhealthkit/run.sh [ITERATIONS]     # default 20 per round, best of 5 rounds
#
# Compiles BandKitSystem, CivilTime, JSONOutput, HealthModel, HealthStore and OpenHealthKit straight from their folders with
# -O (no SwiftPM). Figures go to docs/performance.md ("OpenHealthKit") by hand.
set -euo pipefail
cd "$(dirname "$0")/../.."

work=$(mktemp -d /tmp/bandkit-openhealthkit-bench.XXXXXX)
trap '[[ -n "${KEEP_BENCH:-}" ]] || rm -rf "$work"' EXIT

source scripts/modules.sh
FLAGS=(-O -swift-version 6 -enable-upcoming-feature ExistentialAny -parse-as-library -package-name BandKit)
C_MODULES=(-I Sources/C/CSQLite -I Sources/C/CPostgres)
objects=()
for module in BandKitSystem CivilTime JSONOutput HealthModel HealthStore OpenHealthKit; do
    swiftc "${FLAGS[@]}" -wmo -module-name "$module" -I "$work" "${C_MODULES[@]}" \
        -emit-module -emit-module-path "$work/$module.swiftmodule" \
        -c $(find "$(module_dir "$module")" -name '*.swift' | sort) -o "$work/$module.o"
    objects+=("$work/$module.o")
done
swiftc "${FLAGS[@]}" -module-name OpenHealthKitBench -I "$work" "${C_MODULES[@]}" bench/openhealthkit/OpenHealthKitBench.swift \
    "${objects[@]}" -lsqlite3 -lpq -o "$work/OpenHealthKitBench"

"$work/OpenHealthKitBench" "${1:-20}"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(swiftc --version 2>&1 | head -1)"
