#!/usr/bin/env bash
# tshark-crosscheck.sh: `bandsim decode --json` must agree with tshark (Wireshark's dissectors,
# an independent implementation) PDU for PDU:
#   1. every real capture in shared/captures: same ATT PDUs, in order, with the same time (µs),
#      opcode and handle (tshark's first btatt.handle; see ATTPDULayout for the rule);
#   2. a generated heart-rate trace (H4 and Linux monitor datalinks, RR intervals, energy,
#      8/16-bit values, fragmented PDUs): the same sequence, and the same decoded bpm, sensor
#      contact, energy and RR intervals in every Heart Rate Measurement;
#   3. a damaged trace: exit 65, a message naming record and byte offset, and every PDU before
#      the damage printed.
# Exits non-zero on the first disagreement, printing a diff.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/packages.sh
bash scripts/ensure-packages.sh tshark

swift build --product bandsim 2>&1 | grep -Ev "^\[[0-9]+/[0-9]+\]|^Building|^Compiling|^Write|^Build of product" || true
bandsim="$(swift build --show-bin-path)/bandsim"
work=$(mktemp -d /tmp/bandkit-tshark-crosscheck.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0

# "t_us opcode handle" per ATT PDU from tshark: time to µs as a string (no float rounding),
# opcode as 0xNN, the first of tshark's handles or "-".
tshark_att() {
  tshark -r "$1" -Y btatt -T fields -E separator='|' -e frame.time_epoch -e btatt.opcode -e btatt.handle 2>/dev/null |
    awk -F'|' '{ split($1, t, "."); h = $3; sub(/,.*/, "", h); if (h == "") h = "-";
                 printf "%s%s %s %s\n", t[1], substr(t[2] "000000", 1, 6), $2, h }'
}

# The same from bandsim decode --json.
bandsim_att() {
  "$bandsim" decode --json "$1" |
    awk '{ t = field($0, "t_us"); o = field($0, "opcode"); h = field($0, "handle");
           printf "%s 0x%02x %s\n", t, o, (h == "null" ? "-" : sprintf("0x%04x", h)) }
         function field(line, name,   m) { if (!match(line, "\"" name "\":[^,}]*")) return "?";
           m = substr(line, RSTART, RLENGTH); sub(/^[^:]*:/, "", m); return m }'
}

compare() { # name expected actual
  if diff -u "$2" "$3" > "$work/diff"; then
    echo "ok: $1 ($(wc -l < "$2") lines agree)"
  else
    echo "MISMATCH: $1 (tshark first, bandsim second):"; head -40 "$work/diff"; failures=$((failures + 1))
  fi
}

# 1. Real captures.
captures=""
for dir in ../shared/captures ../../shared/captures; do
  if [ -d "$dir" ]; then captures="$dir"; break; fi
done
if [ -z "$captures" ]; then
  echo "skipping real captures: no shared/captures beside the repository"
else
  for capture in "$captures"/*.log; do
    tshark_att "$capture" > "$work/tshark.txt"
    bandsim_att "$capture" > "$work/bandsim.txt"
    [ -s "$work/tshark.txt" ] || { echo "tshark found no ATT in $capture"; failures=$((failures + 1)); }
    compare "$(basename "$capture") ATT sequence" "$work/tshark.txt" "$work/bandsim.txt"
  done
fi

# 2. Generated heart-rate traces.
# "t_us bpm contact energy rr" per Heart Rate Measurement: contact is true/false, or null when
# the sensor does not support contact detection; energy null when absent; rr comma-separated.
tshark_hr() {
  tshark -r "$1" -Y btatt.heart_rate_measurement.flags -T fields -E separator='|' -E occurrence=a -E aggregator=, \
    -e frame.time_epoch -e btatt.heart_rate_measurement.value.8 -e btatt.heart_rate_measurement.value.16 \
    -e btatt.heart_rate_measurement.flags.sensor_contact_status.support \
    -e btatt.heart_rate_measurement.flags.sensor_contact_status.contact \
    -e btatt.heart_rate_measurement.energy_expended -e btatt.heart_rate_measurement.rr_interval 2>/dev/null |
    awk -F'|' '{ split($1, t, "."); bpm = ($2 != "" ? $2 : $3)
                 contact = ($4 == "1" || $4 == "True") ? (($5 == "1" || $5 == "True") ? "true" : "false") : "null"
                 printf "%s%s %s %s %s %s\n", t[1], substr(t[2] "000000", 1, 6), bpm, contact,
                        ($6 == "" ? "null" : $6), ($7 == "" ? "-" : $7) }'
}

bandsim_hr() {
  "$bandsim" decode --json "$1" | { grep '"heart_rate":' || true; } |
    awk '{ match($0, /"t_us":[0-9]+/); t = substr($0, RSTART + 7, RLENGTH - 7)
           match($0, /"heart_rate":\{[^}]*\}/); hr = substr($0, RSTART, RLENGTH)
           printf "%s %s %s %s %s\n", t, field(hr, "bpm"), field(hr, "contact"), field(hr, "energy_kj"), rr(hr) }
         function field(s, name,   m) { if (!match(s, "\"" name "\":[^,}]*")) return "?";
           m = substr(s, RSTART, RLENGTH); sub(/^[^:]*:/, "", m); return m }
         function rr(s,   m) { if (!match(s, /"rr":\[[^]]*\]/)) return "?"; m = substr(s, RSTART + 6, RLENGTH - 7);
           return (m == "" ? "-" : m) }'
}

for datalink in h4 monitor; do
  trace="$work/hr-$datalink.log"
  "$bandsim" generate-trace "$trace" --notifications 2000 --datalink "$datalink" 2>/dev/null
  tshark_att "$trace" > "$work/tshark.txt"
  bandsim_att "$trace" > "$work/bandsim.txt"
  compare "generated $datalink trace ATT sequence" "$work/tshark.txt" "$work/bandsim.txt"
  tshark_hr "$trace" > "$work/tshark-hr.txt"
  bandsim_hr "$trace" > "$work/bandsim-hr.txt"
  [ "$(wc -l < "$work/tshark-hr.txt")" -eq 2000 ] || { echo "tshark decoded $(wc -l < "$work/tshark-hr.txt") of 2000 HR notifications"; failures=$((failures + 1)); }
  compare "generated $datalink trace heart-rate values" "$work/tshark-hr.txt" "$work/bandsim-hr.txt"
done

# 3. A damaged trace: cut inside a record.
trace="$work/hr-h4.log"
size=$(stat -c %s "$trace")
head -c $((size / 2 + 7)) "$trace" > "$work/damaged.log"
set +e
"$bandsim" decode --json "$work/damaged.log" > "$work/damaged.jsonl" 2> "$work/damaged.err"
status=$?
set -e
expected_lines=$( { tshark -r "$work/damaged.log" -Y btatt 2>/dev/null || true; } | wc -l)
if [ "$status" -eq 65 ] && grep -Eq "record [0-9]+ at byte offset [0-9]+" "$work/damaged.err" \
   && [ "$(wc -l < "$work/damaged.jsonl")" -eq "$expected_lines" ]; then
  echo "ok: damaged trace: exit 65, $(cat "$work/damaged.err"), $expected_lines PDUs before the damage"
else
  echo "MISMATCH: damaged trace: exit $status, stderr: $(cat "$work/damaged.err"), $(wc -l < "$work/damaged.jsonl") lines vs tshark $expected_lines"
  failures=$((failures + 1))
fi

[ "$failures" -eq 0 ] || { echo "tshark cross-check: $failures failure(s)"; exit 1; }
echo "tshark cross-check: all agree"
