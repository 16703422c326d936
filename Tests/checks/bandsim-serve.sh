#!/usr/bin/env bash
# bandsim serve end to end: a reader speaking raw ATT over the Unix SOCK_SEQPACKET socket
# pairs, syncs a day of history (checking packet numbers and the CRC-32), acknowledges it;
# the band must write a truth file that matches, a state file that a restarted band loads
# (same history ID, boot epoch + 1, acknowledged records gone), and a btsnoop trace tshark reads.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
"$root/scripts/ensure-packages.sh" >/dev/null
bandsim="${BANDSIM:-$root/.build/debug/bandsim}"
[ -x "$bandsim" ] || { echo "bandsim-serve: $bandsim not built" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

serve() {
  "$bandsim" serve --socket "$work/band.sock" --start 2026-11-30T08:00:00+01:00 --speed 120 \
    --seed 5 --history-days 1 --state "$work/state.bin" --truth "$work/truth.ndjson" \
    --record "$work/trace.log" --exit-after 1 --deterministic-secrets "$@" 2>>"$work/serve.log" &
  for _ in $(seq 100); do [ -S "$work/band.sock" ] && return 0; sleep 0.05; done
  echo "bandsim-serve: the band never started listening" >&2; cat "$work/serve.log" >&2; exit 1
}

serve
python3 - "$work" <<'PY'
import json, socket, struct, sys, zlib
work = sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(work + "/band.sock")
s.settimeout(5)
def tx(h): s.send(bytes.fromhex(h.replace(" ", "")))
def rx(): return s.recv(600)
def expect(h):
    got = rx()
    assert got == bytes.fromhex(h.replace(" ", "")), (got.hex(), h)
def fail(msg): sys.exit("bandsim-serve: " + msg)

tx("02 f700"); expect("03 0502")
tx("0a 2d00"); expect("01 0a 2d00 80")                    # activity service before auth: refused
tx("12 3700 0200"); expect("13")
tx("12 3600 01 8877665544332211"); expect("13")
ind = rx(); tx("1e")
if ind[:5] != bytes.fromhex("1d3600 8100"): fail("pairing refused: " + ind.hex())
tx("12 3100 0200"); expect("13")
tx("12 3400 0100"); expect("13")
tx("12 3000 01 00000000 0000"); expect("13")
resp = rx(); tx("1e")
status, size, hid, first, count, gap = struct.unpack("<BBIIII", resp[4:])
if status != 0 or size != 16 or first != 0 or gap != 0: fail("fetch response " + resp.hex())
records, expected_packet, crc = [], 0, 0
while True:
    p = rx()
    if p[0] == 0x1B and p[1:3] == b"\x33\x00":
        number = struct.unpack("<H", p[3:5])[0]
        if number != expected_packet: fail(f"packet {number}, expected {expected_packet}")
        expected_packet += 1
        crc = zlib.crc32(p[5:], crc)
        records += [p[i:i + 16] for i in range(5, len(p), 16)]
    elif p[0] == 0x1D:
        tx("1e")
        opcode, status, packets, nrec, band_crc = struct.unpack("<BBIII", p[3:])
        break
if status != 0 or nrec != count or len(records) != count or band_crc != crc:
    fail(f"transfer: status {status}, {len(records)}/{count} records, crc {crc:08x} vs {band_crc:08x}")
tx("12 3000 02" + struct.pack("<II", count, crc).hex()); expect("13")
ack = rx(); tx("1e")
if ack[4] != 0 or struct.unpack("<I", ack[5:9])[0] != count: fail("acknowledgement " + ack.hex())
s.close()

truth = [json.loads(line) for line in open(work + "/truth.ndjson")]
for record, line in zip(records, truth):
    start, offset, flags, steps, dist, energy, avg, lo, hi, _ = struct.unpack("<IbBHHHBBBB", record)
    if line["seq"] != truth.index(line) or line["steps"] != steps or round(line["distance_m"] * 10) != dist:
        fail(f"truth disagrees with the synced record: {line} vs {record.hex()}")
    if (line["hr_avg"] is None) != (flags & 2 == 0):
        fail(f"heart-rate presence differs: {line}")
if len(truth) < count: fail(f"truth has {len(truth)} lines, synced {count}")
open(work + "/synced", "w").write(f"{hid} {count}\n")
PY
wait

notifications="$(tshark -r "$work/trace.log" -Y "btatt.opcode == 0x1b" 2>/dev/null | wc -l)"
[ "$notifications" -gt 0 ] || { echo "bandsim-serve: tshark found no notifications in the trace" >&2; exit 1; }

# A restarted band is the same band: same history, boot epoch + 1, acknowledged records erased.
serve
python3 - "$work" <<'PY'
import socket, struct, sys
work = sys.argv[1]
hid, count = map(int, open(work + "/synced").read().split())
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(work + "/band.sock"); s.settimeout(5)
def tx(h): s.send(bytes.fromhex(h.replace(" ", "")))
def rx(): return s.recv(600)
tx("12 3700 0200"); assert rx() == b"\x13"
tx("12 3600 02 8877665544332211 0100000000000000"); assert rx() == b"\x13"
ind = rx(); tx("1e")
if ind[3:5] != b"\x82\x00": sys.exit("bandsim-serve: restarted band forgot the reader: " + ind.hex())
s.close()
PY
wait
grep -q "boot 2" "$work/serve.log" || { echo "bandsim-serve: the restarted band did not count a second boot" >&2; cat "$work/serve.log" >&2; exit 1; }
echo "bandsim-serve: ok"
