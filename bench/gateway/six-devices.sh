#!/usr/bin/env bash
# band gateway's own cost with six simulated devices at real time (four BandKit bands, an
# InfiniTime watch, a heart-rate strap): after the first history syncs, CPU over SECONDS (default
# 60) from /proc/PID/stat and RSS from /proc/PID/status. A first figure, not the 50-device bench.
#     bash bench/gateway/six-devices.sh [SECONDS]      (uses .build/debug unless BANDKIT_BIN is set)
set -euo pipefail
bin="${BANDKIT_BIN:-$(cd "$(dirname "$0")/../.." && pwd)/.build/debug}"
work=$(mktemp -d); pids=()
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null || true; done; wait 2>/dev/null; rm -rf $work' EXIT
export XDG_CONFIG_HOME=$work/c XDG_RUNTIME_DIR=$work/r BANDKIT_STORE=$work/h.sqlite; mkdir -p $work/r
for i in 1 2 3 4; do $bin/bandsim serve --socket $work/b$i.sock --seed $i --history-days 1 --deterministic-secrets 2>/dev/null & pids+=($!); done
$bin/bandsim serve --profile infinitime --socket $work/w.sock --seed 5 --passkey 111111 2>/dev/null & pids+=($!)
$bin/bandsim serve --profile hr-strap --socket $work/s.sock --seed 6 2>/dev/null & pids+=($!)
for s in b1 b2 b3 b4 w s; do for _ in $(seq 100); do [ -S $work/$s.sock ] && break; sleep 0.1; done; done
for s in b1 b2 b3 b4 s; do $bin/band pair sim:$work/$s.sock >/dev/null 2>&1; done
$bin/band pair sim:$work/w.sock --passkey 111111 >/dev/null 2>&1
$bin/band gateway 2>$work/g.log & g=$!; pids+=($g)
sleep 20  # the initial day-of-history syncs
read -r u1 s1 < <(awk '{print $14, $15}' /proc/$g/stat); t1=$(date +%s.%N)
sleep "${1:-60}"
read -r u2 s2 < <(awk '{print $14, $15}' /proc/$g/stat); t2=$(date +%s.%N)
tck=$(getconf CLK_TCK)
python3 -c "import sys; u1,s1,u2,s2,t1,t2,tck=map(float,sys.argv[1:]); print('gateway, 6 devices streaming at real time, %.0f s: CPU %.2f %% of one core' % (t2-t1, 100*((u2+s2)-(u1+s1))/tck/(t2-t1)))" $u1 $s1 $u2 $s2 $t1 $t2 $tck
grep -E "VmRSS|VmHWM|Threads" /proc/$g/status
$bin/band status | head -1
kill -TERM $g; wait $g || true
