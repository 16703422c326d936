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
source Tests/checks/support/tshark-common.sh
tshark_setup tshark-crosscheck

# 1. Real captures.
find_captures
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
check_damaged "damaged trace" "$work/hr-h4.log" "record [0-9]+ at byte offset [0-9]+"

[ "$failures" -eq 0 ] || { echo "tshark cross-check: $failures failure(s)"; exit 1; }
echo "tshark cross-check: all agree"
