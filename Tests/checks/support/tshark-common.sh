# Shared set-up of the tshark cross-checks (tshark-crosscheck.sh, tshark-pcapng-crosscheck.sh):
# source it from the repository root after `set -euo pipefail`.
#
#   tshark_setup NAME          installs tshark if needed, builds bandsim; sets $bandsim, a
#                              temporary $work removed on exit, failures=0
#   tshark_att FILE            "t_us opcode handle" per ATT PDU, as tshark decodes FILE
#   bandsim_att FILE           the same from `bandsim decode --json`
#   tshark_hr FILE             "t_us bpm contact energy rr" per Heart Rate Measurement
#   bandsim_hr FILE            the same from `bandsim decode --json`
#   compare LABEL A B          diff A and B; prints ok or the first 40 lines of the diff and
#                              counts a failure
#   find_captures              sets $captures to shared/captures beside the repository, or ""
#   check_damaged LABEL TRACE PATTERN   a trace cut in half: exit 65, PATTERN in the message,
#                              every PDU before the damage (as many as tshark reads)

tshark_setup() { # NAME
  source scripts/packages.sh
  bash scripts/ensure-packages.sh tshark
  swift build --product bandsim 2>&1 | grep -Ev "^\[[0-9]+/[0-9]+\]|^Building|^Compiling|^Write|^Build of product" || true
  bandsim="$(swift build --show-bin-path)/bandsim"
  work=$(mktemp -d "/tmp/bandkit-$1.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  failures=0
}

# Time to µs as a string (no float rounding), opcode as 0xNN, the first of tshark's handles or
# "-" (see ATTPDULayout for the rule).
tshark_att() { # FILE
  tshark -r "$1" -Y btatt -T fields -E separator='|' -e frame.time_epoch -e btatt.opcode -e btatt.handle 2>/dev/null |
    awk -F'|' '{ split($1, t, "."); h = $3; sub(/,.*/, "", h); if (h == "") h = "-";
                 printf "%s%s %s %s\n", t[1], substr(t[2] "000000", 1, 6), $2, h }'
}

bandsim_att() { # FILE
  "$bandsim" decode --json "$1" |
    awk '{ t = field($0, "t_us"); o = field($0, "opcode"); h = field($0, "handle");
           printf "%s 0x%02x %s\n", t, o, (h == "null" ? "-" : sprintf("0x%04x", h)) }
         function field(line, name,   m) { if (!match(line, "\"" name "\":[^,}]*")) return "?";
           m = substr(line, RSTART, RLENGTH); sub(/^[^:]*:/, "", m); return m }'
}

# Contact is true/false, or null when the sensor does not support contact detection; energy null
# when absent; rr comma-separated.
tshark_hr() { # FILE
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

bandsim_hr() { # FILE
  "$bandsim" decode --json "$1" | { grep '"heart_rate":' || true; } |
    awk '{ match($0, /"t_us":[0-9]+/); t = substr($0, RSTART + 7, RLENGTH - 7)
           match($0, /"heart_rate":\{[^}]*\}/); hr = substr($0, RSTART, RLENGTH)
           printf "%s %s %s %s %s\n", t, field(hr, "bpm"), field(hr, "contact"), field(hr, "energy_kj"), rr(hr) }
         function field(s, name,   m) { if (!match(s, "\"" name "\":[^,}]*")) return "?";
           m = substr(s, RSTART, RLENGTH); sub(/^[^:]*:/, "", m); return m }
         function rr(s,   m) { if (!match(s, /"rr":\[[^]]*\]/)) return "?"; m = substr(s, RSTART + 6, RLENGTH - 7);
           return (m == "" ? "-" : m) }'
}

compare() { # LABEL EXPECTED ACTUAL
  if diff -u "$2" "$3" > "$work/diff"; then
    echo "ok: $1 ($(wc -l < "$2") lines agree)"
  else
    echo "MISMATCH: $1 (first file first):"; head -40 "$work/diff"; failures=$((failures + 1))
  fi
}

find_captures() {
  captures=""
  local dir
  for dir in ../shared/captures ../../shared/captures; do
    if [ -d "$dir" ]; then captures="$dir"; return; fi
  done
}

# A trace cut in the middle (half its size + 7 bytes, inside a record or block): `bandsim decode`
# exits 65, its message matches PATTERN (where the damage is), and it printed every PDU before the
# damage (as many as tshark reads from the cut file).
check_damaged() { # LABEL TRACE PATTERN
  local label=$1 trace=$2 pattern=$3 cut="$work/damaged.${2##*.}" status expected
  head -c $(( $(stat -c %s "$trace") / 2 + 7 )) "$trace" > "$cut"
  set +e
  "$bandsim" decode --json "$cut" > "$work/damaged.jsonl" 2> "$work/damaged.err"
  status=$?
  set -e
  expected=$( { tshark -r "$cut" -Y btatt 2>/dev/null || true; } | wc -l)
  if [ "$status" -eq 65 ] && grep -Eq "$pattern" "$work/damaged.err" && [ "$(wc -l < "$work/damaged.jsonl")" -eq "$expected" ]; then
    echo "ok: $label: exit 65, $(cat "$work/damaged.err"), $expected PDUs before the damage"
  else
    echo "MISMATCH: $label: exit $status, stderr: $(cat "$work/damaged.err"), $(wc -l < "$work/damaged.jsonl") lines vs tshark $expected"
    failures=$((failures + 1))
  fi
}
