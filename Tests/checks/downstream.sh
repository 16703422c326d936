#!/usr/bin/env bash
# BandKit as another package uses it: Tests/downstream depends on BandKit by URL and version
# (`from: "0.9.0"`) on a tagged clone of the committed HEAD — not a path, for which SwiftPM waives
# its rule against `unsafeFlags` — and uses public API only:
#   (a) it decodes a generated heart-rate trace, and the real captures in ../shared/captures when
#       present, with BandTrace: the same ATT PDUs (time, direction, connection, opcode, handle,
#       UUID, bytes) as `bandsim decode --json`;
#   (b) it pairs with a `bandsim serve` band and syncs its history with BandHost's reader: the
#       minutes it reports synced are the step-count minutes the store holds, the store's steps over
#       them are the band's own (its --truth file) and what `health stats` says;
#   (c) it writes overlapping steps from two sources with HealthStore: the merged total and hourly
#       sums are the expected ones and what `health stats` says for the same store.
# Uncommitted work is not in the clone: commit first. The build goes to .build/downstream and is
# incremental while HEAD stays the same.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
"$root/scripts/ensure-packages.sh" >/dev/null
bin="${BANDKIT_BIN:-$root/.build/debug}"
for tool in bandsim health; do
  [ -x "$bin/$tool" ] || { echo "downstream: $bin/$tool not built" >&2; exit 1; }
done
base="$root/.build/downstream"
mkdir -p "$base"
commit="$(git -C "$root" rev-parse HEAD)"
clone="$base/clone-${commit:0:12}/BandKit"
if [ ! -d "$clone/.git" ]; then
  rm -rf "$base"/clone-*
  git init --quiet "$clone"
  git -C "$clone" fetch --quiet --no-tags "$root" HEAD
  git -C "$clone" checkout --quiet --detach FETCH_HEAD
  git -C "$clone" tag 0.9.0
fi

# A copy of the package whose URL names the clone; a new clone means a fresh resolution.
package="$base/package"
mkdir -p "$package"
rm -rf "$package/Sources"
cp -R "$root/Tests/downstream/Sources" "$package/"
sed "s|file:///BANDKIT_CLONE/BandKit|file://$clone|" "$root/Tests/downstream/Package.swift" > "$package/Package.swift.new"
grep -q "url: \"file://$clone\", from: \"0.9.0\"" "$package/Package.swift.new" \
  || { echo "downstream: the package's BandKit URL was not rewritten" >&2; exit 1; }
if ! cmp -s "$package/Package.swift.new" "$package/Package.swift"; then rm -f "$package/Package.resolved"; fi
mv "$package/Package.swift.new" "$package/Package.swift"
if ! swift build --package-path "$package" --scratch-path "$base/scratch" --disable-dependency-cache >"$base/build.log" 2>&1; then
  cat "$base/build.log" >&2; echo "downstream: the package did not build against BandKit 0.9.0 (log: $base/build.log)" >&2; exit 1
fi
downstream="$base/scratch/debug/bandkit-downstream"

work="$(mktemp -d)"
sim_pid=""
cleanup() {
  if [ -n "$sim_pid" ] && kill -0 "$sim_pid" 2>/dev/null; then kill "$sim_pid"; wait "$sim_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# (a) traces: the downstream program's lines against bandsim decode's JSON, PDU by PDU.
"$bin/bandsim" generate-trace "$work/strap.log" --notifications 60 --seed 4 2>/dev/null
traces=("$work/strap.log")
for capture in "$root"/../shared/captures/*.log; do [ -f "$capture" ] && traces+=("$capture"); done
for trace in "${traces[@]}"; do
  "$downstream" trace "$trace" >"$work/lines.tsv"
  "$bin/bandsim" decode "$trace" --json --keep-going >"$work/decoded.jsonl" 2>/dev/null
  python3 - "$trace" "$work/lines.tsv" "$work/decoded.jsonl" <<'PY'
import json, sys
trace, lines, decoded = sys.argv[1:]
rows = [line.rstrip("\n").split("\t") for line in open(lines)]
summary = rows.pop()
expected = [json.loads(line) for line in open(decoded)]
expected = [e for e in expected if "opcode" in e]
def fail(message): sys.exit(f"downstream: {trace}: {message}")
if summary != [f"pdus {len(rows)}"]: fail(f"summary {summary} after {len(rows)} lines")
if len(rows) != len(expected): fail(f"{len(rows)} ATT PDUs, bandsim decode has {len(expected)}")
if not rows: fail("no ATT PDUs")
values = 0
for index, (row, e) in enumerate(zip(rows, expected)):
    t_us, direction, conn, opcode, handle, uuid, pdu, value = row
    want = (str(e["t_us"]), e["dir"], "0x%04x" % e["conn"], "-" if e["opcode"] is None else "0x%02x" % e["opcode"],
            "-" if e["handle"] is None else "0x%04x" % e["handle"], e["uuid"] or "-", e["pdu"])
    got = (t_us, direction, conn, opcode, handle, uuid, pdu)
    if got != want: fail(f"PDU {index}: {got} vs bandsim decode {want}")
    values += value != "-"
if "strap" in trace and values < 60: fail(f"only {values} decoded values in a trace of 60 heart-rate notifications")
print(f"downstream: {trace}: {len(rows)} ATT PDUs as bandsim decode has them, {values} values decoded")
PY
done

# (b) a reader session against a simulated band, into a fresh store.
"$bin/bandsim" serve --socket "$work/band.sock" --start 2026-11-30T08:00:00+01:00 --speed 120 --seed 7 --history-days 1 \
  --truth "$work/truth.ndjson" --exit-after 2 --deterministic-secrets 2>"$work/serve.log" &
sim_pid=$!
for _ in $(seq 200); do [ -S "$work/band.sock" ] && break; sleep 0.05; done
[ -S "$work/band.sock" ] || { echo "downstream: bandsim serve never listened" >&2; cat "$work/serve.log" >&2; exit 1; }
if ! "$downstream" sync "$work/band.sock" "$work/reader.sqlite" "$work/keys.json" >"$work/sync.txt" 2>"$work/sync.err"; then
  echo "downstream: the reader session failed:" >&2; cat "$work/sync.txt" "$work/sync.err" "$work/serve.log" >&2; exit 1
fi
wait "$sim_pid" 2>/dev/null || true
sim_pid=""
read -r _ from to < <(grep '^range ' "$work/sync.txt")
store_steps="$("$bin/health" stats step-count --from "$from" --to "$to" --sum --json --store "$work/reader.sqlite" \
  | python3 -c 'import json,sys; print(int(json.load(sys.stdin)[0]["value"]))')"
python3 - "$work/sync.txt" "$work/truth.ndjson" "$store_steps" <<'PY'
import json, sys
from datetime import datetime
report, truth, health_steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = dict(line.split(" ", 1) for line in open(report).read().splitlines())
def fail(message): sys.exit("downstream: reader: " + message + "\n" + open(report).read())
synced = int(lines["synced"].split()[0])
stored = int(lines["stored"].split()[0])
steps = int(lines["steps"])
frm, to = (datetime.fromisoformat(t.replace("Z", "+00:00")) for t in lines["range"].split())
if synced < 1000: fail(f"a day of history synced {synced} minutes")
if stored != synced: fail(f"synced {synced} minutes, the store holds {stored} step-count minutes")
if steps != health_steps: fail(f"the library's merged steps {steps}, `health stats` {health_steps}")
minutes = [json.loads(line) for line in open(truth)]
inside = [m for m in minutes if frm <= datetime.fromisoformat(m["minute"].replace("Z", "+00:00")) < to]
if len(inside) != synced: fail(f"the band recorded {len(inside)} minutes in {frm}..{to}, synced {synced}")
truth_steps = sum(m["steps"] for m in inside)
if truth_steps != steps: fail(f"the band counted {truth_steps} steps, the store {steps}")
print(f"downstream: reader synced {synced} minutes, {steps} steps: the band's truth and `health stats` agree")
PY

# (c) merged statistics written and read through HealthStore.
"$downstream" stats "$work/merged.sqlite" >"$work/stats.txt"
expected="raw 10200
merged 7200
hour 2026-01-05T08:00:00Z 3000
hour 2026-01-05T09:00:00Z 3000
hour 2026-01-05T10:00:00Z 1200
source com.example.watch 6000
source com.example.phone 4200"
[ "$(cat "$work/stats.txt")" = "$expected" ] \
  || { echo "downstream: stats printed:"$'\n'"$(cat "$work/stats.txt")"$'\n'"expected:"$'\n'"$expected" >&2; exit 1; }
health_stats() {
  "$bin/health" stats step-count --from 2026-01-05T08:00:00Z --to 2026-01-05T11:00:00Z --tz UTC --sum --json \
    --store "$work/merged.sqlite" "$@" | python3 -c 'import json,sys; print(" ".join(str(round(b["value"])) for b in json.load(sys.stdin)))'
}
[ "$(health_stats)" = 7200 ] || { echo "downstream: health stats merges to $(health_stats), the library to 7200" >&2; exit 1; }
[ "$(health_stats --by hour)" = "3000 3000 1200" ] \
  || { echo "downstream: health stats by hour: $(health_stats --by hour), the library: 3000 3000 1200" >&2; exit 1; }

status=0; "$downstream" 2>/dev/null || status=$?
[ "$status" = 64 ] || { echo "downstream: no arguments exited $status, not 64" >&2; exit 1; }
status=0; "$downstream" trace "$work/missing.log" 2>"$work/err" || status=$?
[ "$status" = 1 ] && grep -q "missing.log" "$work/err" \
  || { echo "downstream: a missing trace exited $status: $(cat "$work/err")" >&2; exit 1; }
echo "downstream: BandKit 0.9.0 by URL: trace, reader session and merged statistics through public API"
