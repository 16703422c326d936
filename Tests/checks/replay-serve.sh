#!/usr/bin/env bash
# `bandsim replay --serve` against the real `band` command, as two processes: a generated
# heart-rate-strap trace is served on a socket and `band stream sim:SOCKET` must receive every
# recorded Heart Rate Measurement (120), in order, with the recorded values; the replay must
# report them sent; its --record trace must open in tshark with the same notifications and
# replay again. Exit non-zero on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --product bandsim 2>&1 | grep -E "error" || true
swift build --product band 2>&1 | grep -E "error" || true
bin="$(swift build --show-bin-path)"
work="$(mktemp -d /tmp/replay-serve.XXXXXX)"
replay_pid=""
cleanup() {
    if [ -n "$replay_pid" ] && kill -0 "$replay_pid" 2>/dev/null; then kill "$replay_pid"; fi
    rm -rf "$work"
}
trap cleanup EXIT

"$bin/bandsim" generate-trace "$work/strap.log" --notifications 120 --seed 3 2>/dev/null
"$bin/bandsim" replay "$work/strap.log" --serve --socket "$work/replay.sock" --speed max --record "$work/served.log" \
    >"$work/served.txt" 2>"$work/replay.err" &
replay_pid=$!
for _ in $(seq 1 100); do [ -S "$work/replay.sock" ] && break; sleep 0.05; done
"$bin/band" stream "sim:$work/replay.sock" --keystore "$work/keys.json" --store "$work/store.sqlite" --json --for 6s \
    >"$work/stream.jsonl" 2>"$work/band.err" || true
wait "$replay_pid"
replay_pid=""

readings=$(grep -c '"kind":"hr"' "$work/stream.jsonl" || true)
if [ "$readings" -ne 120 ]; then
    echo "replay-serve: band received $readings heart-rate readings, the trace has 120" >&2
    cat "$work/served.txt" "$work/replay.err" "$work/band.err" >&2
    exit 1
fi
grep -q "^  handle 0x12 (2a37): 120$" "$work/served.txt" \
    || { echo "replay-serve: the replay did not report 120 heart-rate notifications sent" >&2; cat "$work/served.txt" >&2; exit 1; }
# The values, in order, are the recorded ones (tshark's decoding of the trace).
if command -v tshark >/dev/null; then
    tshark -r "$work/strap.log" -Y btatt.heart_rate_measurement.flags -T fields -E occurrence=f \
        -e btatt.heart_rate_measurement.value.8 -e btatt.heart_rate_measurement.value.16 2>/dev/null \
        | awk -F'\t' '{ print ($1 != "") ? $1 : $2 }' >"$work/recorded.txt"
    sed -nE 's/.*"kind":"hr","heart_rate":([0-9]+).*/\1/p' "$work/stream.jsonl" >"$work/received.txt"
    diff -u "$work/recorded.txt" "$work/received.txt" >/dev/null \
        || { echo "replay-serve: received heart rates differ from the recorded ones" >&2; diff -u "$work/recorded.txt" "$work/received.txt" | head -20 >&2; exit 1; }
fi
# The replay's own recording of the session (TraceRecorder, the band's end) opens in tshark with
# the same 120 notifications, and replays.
if command -v tshark >/dev/null; then
    recorded=$(tshark -r "$work/served.log" -Y "btatt.opcode == 0x1b && btatt.handle == 0x0012" 2>/dev/null | wc -l)
    [ "$recorded" -eq 120 ] || { echo "replay-serve: tshark finds $recorded heart-rate notifications in the recorded session, expected 120" >&2; exit 1; }
fi
# Recorded at the strap's end, the trace names only the reader: the strap is named with --device.
"$bin/bandsim" replay "$work/served.log" --into "$work/served.sqlite" --device strap-1 >"$work/served-into.txt"
grep -q "^  2a37: 120$" "$work/served-into.txt" \
    || { echo "replay-serve: the recorded session does not replay its 120 notifications" >&2; cat "$work/served-into.txt" >&2; exit 1; }
echo "replay-serve: band received all 120 recorded heart-rate notifications from bandsim replay --serve"
