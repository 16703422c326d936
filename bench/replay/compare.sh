#!/usr/bin/env bash
# Replay and decode before/after in one run: CPU seconds (user + sys) of `bandsim decode` and of
# `bandsim replay --into` (empty store, --speed max) of a generated DAYS-day heart-rate trace,
# for two builds, alternated ROUNDS times so that load on a shared machine hits both alike.
#
#   bash bench/replay/compare.sh BEFORE_BIN_DIR AFTER_BIN_DIR     (DAYS=7 ROUNDS=3 by default)
set -euo pipefail
before=${1:?usage: compare.sh BEFORE_BIN_DIR AFTER_BIN_DIR}
after=${2:?usage: compare.sh BEFORE_BIN_DIR AFTER_BIN_DIR}
days=${DAYS:-7}
rounds=${ROUNDS:-3}
work="${WORK:-/tmp/bandkit-bench-replay-compare}"
mkdir -p "$work"
trace="$work/days-$days.log"
[ -s "$trace" ] || "$after/bandsim" generate-trace "$trace" --notifications $((days * 86400 * 1000 / 1075)) >/dev/null 2>&1
cpu() {
    /usr/bin/time -o "$work/time" -f "%U %S" "$@" >/dev/null 2>&1
    awk '{ printf "%.2f", $1 + $2 }' "$work/time"
}
for round in $(seq "$rounds"); do
    for which in before after; do
        bin=${!which}
        rm -f "$work/store.sqlite" "$work/store.sqlite-wal" "$work/store.sqlite-shm"
        decode=$(cpu "$bin/bandsim" decode "$trace")
        replay=$(cpu "$bin/bandsim" replay "$trace" --into "$work/store.sqlite" --speed max)
        echo "$which round $round: decode $decode s CPU, replay $replay s CPU"
    done
done
