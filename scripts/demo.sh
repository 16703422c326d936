#!/usr/bin/env bash
# The main job (README, first command): simulated band → reader → store, then today's totals.
# Installs missing Debian packages (as root) or prints the apt-get line, then builds.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/packages.sh
bash scripts/ensure-packages.sh "${BUILD_PACKAGES[@]}"
swift build -c release 2>&1 | grep -Ev "^\[[0-9]+/[0-9]+\]|^Building|^Compiling|^Write" || true
bin=$(swift build -c release --show-bin-path)
echo "(the end-to-end job lands with the reader; until then: bandsim --help)"
"$bin/bandsim" --help
