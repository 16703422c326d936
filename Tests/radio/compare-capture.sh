#!/usr/bin/env bash
# compare-capture.sh BANDSIM CAPTURE: the ATT PDUs `bandsim decode` finds in a btsnoop
# capture must be exactly the ones tshark (an independent decoder) finds: same time (µs),
# adapter, direction and bytes, in the same order. Prints the count; exits 1 on any
# difference (with a diff).
set -euo pipefail
bandsim=$1
capture=$2
work=$(mktemp -d /tmp/bandkit-radio-compare.XXXXXX)
trap 'rm -rf "$work"' EXIT

# bandsim: {"t_us":…,"dir":"tx","adapter":1,…,"pdu":"02f700"} → "t_us adapter dir pdu"
# --keep-going: a capture cut by a dropped link may hold a broken L2CAP reassembly (see below);
# decode lists it on stderr and goes on instead of stopping there with exit 65.
"$bandsim" decode --json --keep-going "$capture" 2> "$work/bandsim.err" |
  sed -E 's/.*"t_us":([0-9]+),"dir":"(tx|rx)","adapter":([0-9]+),.*"pdu":"([0-9a-f]*)".*/\1 \3 \2 \4/' > "$work/bandsim"

# tshark: frames where ATT was dissected (complete, reassembled PDUs); the PDU bytes come from
# a second pass with the ATT dissector off, where they stay as the L2CAP payload.
tshark -r "$capture" -Y btatt -T fields -e frame.number -e frame.time_epoch -e hci_mon.adapter_id -e hci_mon.opcode \
  2> /dev/null | sort -k1,1 > "$work/frames"
tshark -r "$capture" --disable-protocol btatt -Y "btl2cap.cid == 4" -T fields -e frame.number -e btl2cap.payload \
  2> /dev/null | sort -k1,1 > "$work/payloads"
join "$work/frames" "$work/payloads" | sort -n -k1,1 |
  awk '{ split($2, t, "."); dir = ($4 == 4) ? "tx" : "rx"; gsub(":", "", $5);
         printf "%s%s %s %s %s\n", t[1], substr(t[2] "000000", 1, 6), $3, dir, tolower($5) }' > "$work/tshark"

# A PDU only one decoder reports is acceptable only where the capture itself is broken there:
# bandsim decode must have reported an L2CAP reassembly anomaly at that very record (e.g. a
# continuation running past the frame's length when a link drops mid-PDU; bandsim keeps the
# announced length, tshark calls the frame malformed). Anything else is a disagreement.
sed -n 's/.*: record \([0-9]*\) at byte offset .*/\1/p' "$work/bandsim.err" | sort -u > "$work/anomalous-records"
tshark -r "$capture" -T fields -e frame.number -e frame.time_epoch 2> /dev/null |
  awk 'NR == FNR { bad[$1 + 1] = 1; next } ($1 in bad) { split($2, t, "."); print t[1] substr(t[2] "000000", 1, 6) }' \
    "$work/anomalous-records" - > "$work/anomalous-times"
diff "$work/tshark" "$work/bandsim" | sed -n 's/^[<>] //p' > "$work/differences" || true
unexplained=$(awk 'NR == FNR { bad[$1] = 1; next } !($1 in bad)' "$work/anomalous-times" "$work/differences" | wc -l)
if [ "$unexplained" -gt 0 ]; then
  echo "capture comparison FAILED for $capture: tshark (-) vs bandsim decode (+)" >&2
  diff -u "$work/tshark" "$work/bandsim" | head -40 >&2
  exit 1
fi
if [ -s "$work/differences" ]; then
  echo "capture $capture: $(wc -l < "$work/differences") PDU(s) decoded differently, each at a record bandsim reported as a broken L2CAP reassembly:"
  cut -c1-120 "$work/differences" | sed 's/^/    /'
  grep -E "beyond the L2CAP length|while one was incomplete" "$work/bandsim.err" | sed 's/^/    /' | head -10
fi
count=$(wc -l < "$work/bandsim")
[ "$count" -gt 0 ] || { echo "capture comparison FAILED: no ATT PDUs in $capture" >&2; exit 1; }
echo "capture $capture: $count ATT PDUs, bandsim decode and tshark agree"
