#!/usr/bin/env bash
# `bandsim decode` of several builds in the same run: CPU seconds (user + sys, /usr/bin/time)
# of `bandsim decode --json TRACE > /dev/null` on one generated trace (and on the same session
# as pcapng when editcap is installed), builds alternated in every round so that load on a
# shared machine hits each alike. Prints every run, then the medians and each build's ratio to
# the first build that reads that trace (a build from before pcapng support reads only btsnoop). With CALLGRIND=1 also the instructions (valgrind --tool=callgrind: independent of
# the machine's load) of each build on a smaller trace (CALLGRIND_NOTIFICATIONS, 100 000).
#
#   bash bench/decode/ab.sh NAME=BIN_DIR NAME=BIN_DIR [...]      (ROUNDS=5, NOTIFICATIONS=1000000)
#
# e.g. before=.build/behaviour-base-build/release main=/tmp/bandsim-main after=.build/release;
# each BIN_DIR holds a release `bandsim`. The trace is generated with the last build's bandsim.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: ab.sh NAME=BIN_DIR NAME=BIN_DIR [...]" >&2; exit 64; }
rounds=${ROUNDS:-5}
notifications=${NOTIFICATIONS:-1000000}
names=(); dirs=()
for arg in "$@"; do
  names+=("${arg%%=*}"); dirs+=("${arg#*=}")
  [ -x "${arg#*=}/bandsim" ] || { echo "ab.sh: no bandsim in ${arg#*=}" >&2; exit 64; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/bandkit-decode-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT
last="${dirs[${#dirs[@]}-1]}/bandsim"
"$last" generate-trace "$work/trace.log" --notifications "$notifications" >/dev/null
traces=(trace.log)
if command -v editcap >/dev/null; then editcap -F pcapng "$work/trace.log" "$work/trace.pcapng"; traces+=(trace.pcapng); fi
# Every build that reads a trace must print the same bytes for it, or the comparison compares
# different work; a build that cannot read it (exit 65) sits that trace out.
for trace in "${traces[@]}"; do
  : >"$work/readers.$trace"
  for i in "${!dirs[@]}"; do
    if "${dirs[$i]}/bandsim" decode --json "$work/$trace" 2>/dev/null | sha256sum | cut -c1-16 >"$work/sum.$i" \
       && [ "${PIPESTATUS[0]}" = 0 ]; then
      echo "$i" >>"$work/readers.$trace"
      first=$(head -1 "$work/readers.$trace")
      cmp -s "$work/sum.$first" "$work/sum.$i" || { echo "ab.sh: ${names[$i]} prints other bytes for $trace" >&2; exit 1; }
    else
      echo "ab.sh: ${names[$i]} does not read $trace; left out for it" >&2
    fi
  done
done
: >"$work/results"
for round in $(seq "$rounds"); do
  for trace in "${traces[@]}"; do
    for i in $(cat "$work/readers.$trace"); do
      /usr/bin/time -f "%U %S" -o "$work/t" "${dirs[$i]}/bandsim" decode --json "$work/$trace" >/dev/null
      cpu=$(awk '{ printf "%.3f", $1 + $2 }' "$work/t")
      echo "${names[$i]} $trace $cpu" >>"$work/results"
      echo "round $round $trace ${names[$i]}: $cpu s CPU" >&2
    done
  done
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
echo "| trace | build | CPU median (s) | min–max (s) | / first build reading it |"
echo "|---|---|---|---|---|"
for trace in "${traces[@]}"; do
  first=$(head -1 "$work/readers.$trace")
  base=$(awk -v n="${names[$first]}" -v t="$trace" '$1 == n && $2 == t { print $3 }' "$work/results" | median)
  for i in $(cat "$work/readers.$trace"); do
    name=${names[$i]}
    values=$(awk -v n="$name" -v t="$trace" '$1 == n && $2 == t { print $3 }' "$work/results")
    m=$(median <<<"$values"); lo=$(sort -n <<<"$values" | head -1); hi=$(sort -n <<<"$values" | tail -1)
    echo "| $trace | $name | $m | $lo–$hi | $(awk -v a="$m" -v b="$base" 'BEGIN { printf "%.3f", a / b }') |"
  done
done
if [ "${CALLGRIND:-0}" = 1 ]; then
  "$last" generate-trace "$work/small.log" --notifications "${CALLGRIND_NOTIFICATIONS:-100000}" >/dev/null
  echo "| build | instructions, decode --json of ${CALLGRIND_NOTIFICATIONS:-100000} notifications |"
  echo "|---|---|"
  for i in "${!dirs[@]}"; do
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.$i" "${dirs[$i]}/bandsim" decode --json "$work/small.log" >/dev/null 2>"$work/cg.err.$i"
    echo "| ${names[$i]} | $(grep -o 'Collected : [0-9]*' "$work/cg.err.$i" | grep -o '[0-9]*$') |"
  done
fi
