#!/usr/bin/env bash
# tshark-pcapng-crosscheck.sh: `bandsim decode` reads pcapng and pcap as tshark does, and as it
# reads the same session in btsnoop. tshark's editcap converts each btsnoop trace (the real
# captures in shared/captures, and generated H4 and Linux monitor heart-rate traces) to pcapng
# (link type 201 BLUETOOTH_HCI_H4_WITH_PHDR, or 254 BLUETOOTH_LINUX_MONITOR) and to pcap; then:
#   1. tshark and `bandsim decode --json` agree PDU for PDU on the pcapng (time in µs, opcode,
#      first handle), and on the generated traces' Heart Rate values;
#   2. `bandsim decode` prints byte for byte the same (--json and text) for btsnoop, pcapng and
#      pcap, and says nothing more on stderr;
#   3. a pcapng cut inside a block: exit 65, a message naming the pcapng block and byte offset,
#      and every PDU before the damage printed (as many as tshark reads);
#   4. air captures (no real one is available): the generated H4 session rewritten as the nRF
#      Sniffer would hear it (Tests/checks/support/btsnoop-to-air.py: link type 272, CONNECT_IND,
#      LL data PDUs): tshark and bandsim agree PDU for PDU; with retransmissions, CRC-failed copies
#      and empty PDUs added, bandsim prints what it prints for the btsnoop (but for adapter, conn
#      and "seen_from":"central").
# Exits non-zero on the first disagreement, printing a diff.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/checks/support/tshark-common.sh
tshark_setup pcapng-crosscheck

# One btsnoop trace: convert, then checks 1 and 2.
check_trace() { # name btsnoop-path
  local name=$1 log=$2
  editcap -F pcapng "$log" "$work/$name.pcapng"
  editcap -F pcap "$log" "$work/$name.pcap"
  tshark_att "$work/$name.pcapng" > "$work/tshark.txt"
  [ -s "$work/tshark.txt" ] || { echo "tshark found no ATT in $name.pcapng"; failures=$((failures + 1)); }
  bandsim_att "$work/$name.pcapng" > "$work/bandsim.txt"
  compare "$name.pcapng ATT sequence (tshark, bandsim)" "$work/tshark.txt" "$work/bandsim.txt"
  for mode in --json --text; do
    local flag=$mode; [ "$mode" = --text ] && flag=""
    "$bandsim" decode $flag "$log" > "$work/btsnoop.out" 2> "$work/btsnoop.err"
    for format in pcapng pcap; do
      "$bandsim" decode $flag "$work/$name.$format" > "$work/$format.out" 2> "$work/$format.err"
      compare "$name: decode $mode of btsnoop and $format" "$work/btsnoop.out" "$work/$format.out"
      compare "$name: stderr of btsnoop and $format" "$work/btsnoop.err" "$work/$format.err"
    done
  done
}

find_captures
if [ -z "$captures" ]; then
  echo "skipping real captures: no shared/captures beside the repository"
else
  for capture in "$captures"/*.log; do check_trace "$(basename "$capture" .log)" "$capture"; done
fi

for datalink in h4 monitor; do
  "$bandsim" generate-trace "$work/hr-$datalink.log" --notifications 2000 --datalink "$datalink" 2>/dev/null
  check_trace "hr-$datalink" "$work/hr-$datalink.log"
  tshark_hr "$work/hr-$datalink.pcapng" > "$work/tshark-hr.txt"
  bandsim_hr "$work/hr-$datalink.pcapng" > "$work/bandsim-hr.txt"
  [ "$(wc -l < "$work/tshark-hr.txt")" -eq 2000 ] || { echo "tshark decoded $(wc -l < "$work/tshark-hr.txt") of 2000 HR notifications"; failures=$((failures + 1)); }
  compare "hr-$datalink.pcapng heart-rate values (tshark, bandsim)" "$work/tshark-hr.txt" "$work/bandsim-hr.txt"
done

# 3. A damaged pcapng: cut inside a block.
check_damaged "damaged pcapng" "$work/hr-h4.pcapng" "byte offset [0-9]+: pcapng block [0-9]+"

# 4. Air captures made from the generated session.
python3 Tests/checks/support/btsnoop-to-air.py "$work/hr-h4.log" "$work/air.pcapng"
python3 Tests/checks/support/btsnoop-to-air.py "$work/hr-h4.log" "$work/air-noisy.pcapng" --noise
tshark_att "$work/air.pcapng" > "$work/tshark.txt"
bandsim_att "$work/air.pcapng" 2>/dev/null > "$work/bandsim.txt"
compare "air capture (272) ATT sequence (tshark, bandsim)" "$work/tshark.txt" "$work/bandsim.txt"
strip_link() { sed 's/"seen_from":"central",//; s/"adapter":[0-9]*,"conn":[0-9]*,//'; }
"$bandsim" decode --json "$work/hr-h4.log" | strip_link > "$work/btsnoop.out"
"$bandsim" decode --json "$work/air-noisy.pcapng" 2> "$work/air.err" | strip_link > "$work/air.out"
compare "noisy air capture decodes as its btsnoop (retransmissions, CRC failures dropped)" "$work/btsnoop.out" "$work/air.out"
echo "   $(cat "$work/air.err")"
# A PDU heard with a failed CRC that the peer acknowledged: tshark decodes it, and so does
# bandsim (marked "crc_failed"), so both still give the whole ATT sequence.
python3 Tests/checks/support/btsnoop-to-air.py "$work/hr-h4.log" "$work/air-acked.pcapng" --acked-crc
tshark_att "$work/air-acked.pcapng" > "$work/tshark.txt"
bandsim_att "$work/air-acked.pcapng" 2>/dev/null > "$work/bandsim.txt"
compare "air capture with acknowledged CRC-failed PDUs (tshark, bandsim)" "$work/tshark.txt" "$work/bandsim.txt"
"$bandsim" decode --json "$work/air-acked.pcapng" 2>/dev/null | strip_link | sed 's/"crc_failed":true,//' > "$work/air.out"
compare "acknowledged CRC-failed PDUs decode as their btsnoop" "$work/btsnoop.out" "$work/air.out"
kept=$("$bandsim" decode --json "$work/air-acked.pcapng" 2>/dev/null | grep -c '"crc_failed":true' || true)
[ "$kept" -gt 0 ] || { echo "FAIL: no PDU marked crc_failed"; failures=$((failures + 1)); }
echo "   $kept PDUs marked crc_failed"


[ "$failures" -eq 0 ] || { echo "tshark pcapng cross-check: $failures failure(s)"; exit 1; }
echo "tshark pcapng cross-check: all agree"
