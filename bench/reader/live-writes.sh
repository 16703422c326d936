#!/usr/bin/env bash
# The reader's live write path alone (bench/reader/LiveWriteBench.swift): WRITES one-minute
# `SampleWriter.writeLive` calls into a new store, the way `band stream` writes (one closed
# minute every 5 s), timed in process. Release build; compare two trees with farm-bench:
#
#   bench/reader/live-writes.sh [WRITES]                # builds, then prints µs per write
#   NO_BUILD=1 bench/reader/live-writes.sh --driver     # prints the driver's path only
#   SCRATCH=.build/rel bench/reader/live-writes.sh      # a release build kept apart from .build
set -euo pipefail
cd "$(dirname "$0")/../.."
scratch=(); [ -z "${SCRATCH:-}" ] || scratch=(--scratch-path "$SCRATCH")
[ -n "${NO_BUILD:-}" ] || swift build -c release "${scratch[@]}" --product band 2>&1 | grep -E "error" >&2 || true
bin=$(swift build -c release "${scratch[@]}" --show-bin-path)
driver="$bin/LiveWriteBench"
# The driver links the release objects of the reader and what it imports (not `band`'s own).
swiftc -O -module-name LiveWriteBench bench/reader/LiveWriteBench.swift -o "$driver" \
  -I "$bin/Modules" -Xcc -fmodule-map-file=Sources/C/CSQLite/module.modulemap \
  -Xcc -fmodule-map-file=Sources/C/CPostgres/module.modulemap -Xcc -fmodule-map-file=Sources/C/CBlueZ/module.modulemap \
  -Xcc -fmodule-map-file=Sources/C/CCrypto/module.modulemap \
  $(grep -v '/band.build/' "$bin/band.product/Objects.LinkFileList") -lsqlite3 -lpq -lbluetooth -lcrypto
if [ "${1:-}" = "--driver" ]; then echo "$driver"; exit 0; fi
work=$(mktemp -d "${TMPDIR:-/tmp}/bandkit-live-writes.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$driver" "$work" "${1:-2000}"
