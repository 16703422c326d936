#!/usr/bin/env bash
# Builds and runs every libFuzzer harness, one after another (the machine is shared).
#
#   fuzz/run.sh            # 60 s per harness
#   fuzz/run.sh 300        # 300 s per harness
#   fuzz/run.sh 60 att     # only fuzz/att
#   FUZZ_RUNS=10000000 fuzz/run.sh 0 replay   # a recorded campaign: stop after 10 M executions
#                                             # (0 s: no time limit); FUZZ_MODULES as for build.sh
#
# Each harness fuzz/NAME/harness.swift gets a corpus directory fuzz/corpus-NAME/ (ignored by
# git), seeded from fuzz/NAME/seeds.hex (one input per line, hex; '#' starts a comment).
# Crashes are written as fuzz/corpus-NAME/crash-* and make this script exit 1.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
fuzz/build.sh "$@"

if [[ $# -gt 0 ]]; then
    names=("$@")
else
    names=()
    for harness in fuzz/*/harness.swift; do
        names+=("$(basename "$(dirname "$harness")")")
    done
fi

status=0
for name in "${names[@]}"; do
    corpus="fuzz/corpus-$name"
    mkdir -p "$corpus"
    if [[ -f "fuzz/$name/seeds.hex" ]]; then
        n=0
        while IFS= read -r line; do
            line="${line%%#*}"
            hex="$(tr -d ' :' <<<"$line")"
            [[ -z "$hex" ]] && continue
            n=$((n + 1))
            printf "$(sed 's/../\\x&/g' <<<"$hex")" >"$corpus/seed-$n"
        done <"fuzz/$name/seeds.hex"
    fi
    log="fuzz/bin/$name.log"
    limits=(-max_total_time="$seconds")
    if [[ -n "${FUZZ_RUNS:-}" ]]; then limits+=(-runs="$FUZZ_RUNS"); fi
    echo "== $name: ${seconds}s${FUZZ_RUNS:+, $FUZZ_RUNS executions}" >&2
    if ! fuzz/bin/"$name" "${limits[@]}" -max_len=1100 -print_final_stats=1 \
            -artifact_prefix="$corpus/" "$corpus" >"$log" 2>&1; then
        status=1
        echo "!! $name found a crash; see $log and $corpus/crash-*" >&2
    fi
    runs="$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo '?')"
    echo "== $name: $runs executions" >&2
done
exit "$status"
