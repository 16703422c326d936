#!/usr/bin/env bash
# Cross-check of `bandsim replay --into` against an independent decoder: a heart-rate strap
# trace (BandTrace's generator: 8- and 16-bit values, RR intervals, energy, contact flags,
# fragmented ACL) is replayed into an empty store, and every heart-rate minute stored must be
# what tshark's own decoding of the same file adds up to: average (rounded half up, as the
# reader rounds), minimum and maximum of the minute's readings with skin contact (or no contact
# detection), keyed by the minute the
# record time falls in. Also: a second replay changes nothing. Exit non-zero on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/ensure-packages.sh tshark >/dev/null
swift build --product bandsim 2>&1 | grep -E "error|warning: unre" || true
swift build --product health 2>&1 | grep -E "error" || true
bin="$(swift build --show-bin-path)"
work="$(mktemp -d /tmp/replay-tshark.XXXXXX)"
trap 'rm -rf "$work"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT  # KEEP=1 keeps the work directory for a look
export TZ=UTC

"$bin/bandsim" generate-trace "$work/strap.log" --notifications 900 --seed 7 2>/dev/null
"$bin/bandsim" replay "$work/strap.log" --into "$work/store.sqlite" >"$work/first.txt"

# tshark's view: per minute of record time, the readings' sum, count, minimum and maximum.
tshark -r "$work/strap.log" -Y btatt.heart_rate_measurement.flags -T fields -E occurrence=f \
    -e frame.time_epoch -e btatt.heart_rate_measurement.value.8 -e btatt.heart_rate_measurement.value.16 \
    -e btatt.heart_rate_measurement.flags.sensor_contact_status.support \
    -e btatt.heart_rate_measurement.flags.sensor_contact_status.contact 2>/dev/null \
  | awk -F'\t' '{
        bpm = ($2 != "") ? $2 : $3
        if (bpm == "" || bpm == 0) { next }
        frames++
        # A reading whose sensor reports no skin contact is left out of the minute (docs/protocol.md).
        if (($4 == "1" || $4 == "True") && ($5 == "0" || $5 == "False")) { next }
        minute = int($1 / 60) * 60
        sum[minute] += bpm; count[minute]++
        if (!(minute in lo) || bpm < lo[minute]) lo[minute] = bpm
        if (!(minute in hi) || bpm > hi[minute]) hi[minute] = bpm
    }
    END {
        for (m in sum) printf "%d %d %d %d\n", m, int((sum[m] * 2 + count[m]) / (count[m] * 2)), lo[m], hi[m]
        printf "frames %d\n", frames > "/dev/stderr"
    }' 2>"$work/tshark-frames.txt" | sort -n >"$work/tshark.txt"

# The store's view, from `health query --json` (one sample per line).
"$bin/health" query heart-rate --store "$work/store.sqlite" --json --from 2000-01-01T00:00:00Z --to 2100-01-01T00:00:00Z \
  | grep -o '"value":[0-9.]*,.*"sync_id":"[^"]*".*"bandkit.hr.max":"[0-9]*","bandkit.hr.min":"[0-9]*"' \
  | sed -E 's/"value":([0-9]+)(\.0)?,.*"sync_id":"[^"]*\|([0-9]+)".*"bandkit.hr.max":"([0-9]+)","bandkit.hr.min":"([0-9]+)"/\3 \1 \5 \4/' \
  | sort -n >"$work/store.txt"

frames=$(awk '{print $2}' "$work/tshark-frames.txt")
minutes=$(wc -l <"$work/tshark.txt")
if [ "$frames" -ne 900 ]; then
    echo "replay-tshark: tshark decoded $frames heart-rate frames, the trace has 900" >&2; exit 1
fi
if ! diff -u "$work/tshark.txt" "$work/store.txt" >"$work/diff.txt"; then
    echo "replay-tshark: stored heart-rate minutes differ from tshark's decoding (minute avg min max):" >&2
    head -40 "$work/diff.txt" >&2
    exit 1
fi
grep -q "^  2a37: 900$" "$work/first.txt" || { echo "replay-tshark: summary does not count 900 heart-rate notifications" >&2; cat "$work/first.txt" >&2; exit 1; }

"$bin/bandsim" replay "$work/strap.log" --into "$work/store.sqlite" >"$work/second.txt"
grep -q "^samples: 0 inserted, 0 replaced, [0-9]* unchanged, 0 deleted$" "$work/second.txt" \
    || { echo "replay-tshark: a second replay changed the store:" >&2; cat "$work/second.txt" >&2; exit 1; }

# Real captures replay without errors.
for capture in ../shared/captures/*.log ../../shared/captures/*.log; do
    [ -e "$capture" ] || continue
    "$bin/bandsim" replay "$capture" --into "$work/captures.sqlite" >"$work/capture.txt" \
        || { echo "replay-tshark: $capture did not replay" >&2; cat "$work/capture.txt" >&2; exit 1; }
    grep -q "^errors: none$" "$work/capture.txt" || { echo "replay-tshark: $capture replayed with errors" >&2; cat "$work/capture.txt" >&2; exit 1; }
done
echo "replay-tshark: $minutes heart-rate minutes from 900 notifications agree with tshark; second replay changed nothing"
