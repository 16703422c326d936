#!/usr/bin/env bash
# What a gateway's metrics cost (ServiceSupport's MetricsRegistry): one counter update through a
# series handle against a plain Double array increment in the same run, a histogram observation,
# and one scrape's text for 50 devices, with its share of one core at a 15 s scrape interval.
#
#   bash bench/service/run.sh [ITERATIONS]     # default 10,000,000 updates per round, best of 5
#   EXTRA_FLAGS=-enforce-exclusivity=unchecked bash bench/service/run.sh   # what the run-time access checks cost
#
# Compiles BandKitSystem, JSONOutput and ServiceSupport straight from their folders with -O (no
# SwiftPM). Figures go to docs/performance.md ("Service metrics") by hand, with the machine line.
set -euo pipefail
cd "$(dirname "$0")/../.."

work=$(mktemp -d /tmp/bandkit-service-bench.XXXXXX)
trap '[[ -n "${KEEP_BENCH:-}" ]] || rm -rf "$work"' EXIT

source scripts/modules.sh
FLAGS=(${EXTRA_FLAGS:-} -O -swift-version 6 -enable-upcoming-feature ExistentialAny -parse-as-library -package-name BandKit)
objects=()
for module in BandKitSystem JSONOutput ServiceSupport; do
    swiftc "${FLAGS[@]}" -wmo -module-name "$module" -I "$work" \
        -emit-module -emit-module-path "$work/$module.swiftmodule" \
        -c $(find "$(module_dir "$module")" -name '*.swift' | sort) -o "$work/$module.o"
    objects+=("$work/$module.o")
done
swiftc -O -swift-version 6 -module-name ServiceBench -I "$work" bench/service/ServiceBench.swift "${objects[@]}" -o "$work/ServiceBench"

"$work/ServiceBench" "${1:-10000000}"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(swiftc --version 2>&1 | head -1)"
