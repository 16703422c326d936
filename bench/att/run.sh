#!/usr/bin/env bash
# ATT / characteristic decoding benchmark: time and heap allocations per PDU.
#
#   bash bench/att/run.sh [ITERATIONS]     # default 1,000,000 per round, best of 5 rounds
#
# Compiles BandWire, BandATT and BandGATT straight from their folders with -O (no SwiftPM) into one
# executable together with bench/att/malloc_counter.c, which counts every malloc-family call.
# Figures go to docs/performance.md ("BandATT / BandGATT") by hand, with the machine line.
set -euo pipefail
cd "$(dirname "$0")/../.."

work=$(mktemp -d /tmp/bandkit-att-bench.XXXXXX)
trap '[[ -n "${KEEP_BENCH:-}" ]] || rm -rf "$work"' EXIT

source scripts/modules.sh
FLAGS=(-O -swift-version 6 -enable-upcoming-feature ExistentialAny -parse-as-library)
for module in BandWire BandATT BandGATT; do
    swiftc "${FLAGS[@]}" -wmo -module-name "$module" -I "$work" \
        -emit-module -emit-module-path "$work/$module.swiftmodule" \
        -c "$(module_dir "$module")"/*.swift -o "$work/$module.o"
done
clang -O2 -c bench/att/malloc_counter.c -o "$work/malloc_counter.o"
swiftc -O -swift-version 6 -module-name ATTBench -I "$work" bench/att/ATTBench.swift \
    "$work"/BandWire.o "$work"/BandATT.o "$work"/BandGATT.o "$work/malloc_counter.o" -lm -o "$work/ATTBench"

"$work/ATTBench" "${1:-1000000}"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(swiftc --version 2>&1 | head -1)"
