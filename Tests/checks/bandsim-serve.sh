#!/usr/bin/env bash
# bandsim serve end to end: a reader speaking raw ATT over the Unix SOCK_SEQPACKET socket
# pairs, syncs a day of history (checking packet numbers and the CRC-32), acknowledges it;
# the band must write a truth file that matches, a state file that a restarted band loads
# (same history ID, boot epoch + 1, acknowledged records gone), and a btsnoop trace tshark reads;
# tshark decodes the band's Heart Rate and RSC notifications as plausible walking values; the same
# seed gives the same truth file byte for byte; bad input exits 64/65.
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
open(work + "/synced", "w").write(f"{hid} {count} {ind[5:21].hex()}\n")
PY
wait

notifications="$(tshark -r "$work/trace.log" -Y "btatt.opcode == 0x1b" 2>/dev/null | wc -l)"
[ "$notifications" -gt 0 ] || { echo "bandsim-serve: tshark found no notifications in the trace" >&2; exit 1; }

# A restarted band is the same band: same history, boot epoch + 1, acknowledged records erased.
serve
python3 - "$work" <<'PY'
import hashlib, hmac, socket, struct, sys
work = sys.argv[1]
hid, count, key = open(work + "/synced").read().split()
hid, count, key = int(hid), int(count), bytes.fromhex(key)
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(work + "/band.sock"); s.settimeout(5)
def tx(h): s.send(bytes.fromhex(h.replace(" ", "")))
def rx(): return s.recv(600)
def fail(msg): sys.exit("bandsim-serve: " + msg)
reader_id, reader_nonce = bytes.fromhex("8877665544332211"), (1).to_bytes(8, "little")
tx("12 3700 0200"); assert rx() == b"\x13"
tx("12 3600 02" + reader_id.hex() + reader_nonce.hex()); assert rx() == b"\x13"
ind = rx(); tx("1e")
if ind[3:5] != b"\x82\x00": fail("restarted band forgot the reader: " + ind.hex())
band_nonce = ind[5:21]
# The proofs of docs/protocol.md, computed with Python's own HMAC: an independent implementation.
message = reader_id + reader_nonce + band_nonce
proof = hmac.new(key, b"BandKit auth v1 reader" + message, hashlib.sha256).digest()[:16]
tx("12 3600 03" + proof.hex()); assert rx() == b"\x13"
ind = rx(); tx("1e")
if ind[3:5] != b"\x83\x00": fail("proof refused: " + ind.hex())
if ind[5:21] != hmac.new(key, b"BandKit auth v1 band" + message, hashlib.sha256).digest()[:16]: fail("band proof wrong")
tx("12 3100 0200"); assert rx() == b"\x13"
tx("12 3400 0100"); assert rx() == b"\x13"
tx("12 3000 01 00000000 0100"); assert rx() == b"\x13"
resp = rx(); tx("1e")
status, size, hid2, first, n, gap = struct.unpack("<BBIIII", resp[4:])
if hid2 != hid: fail(f"history ID changed across the restart: {hid:08x} → {hid2:08x}")
if first != count or gap != count: fail(f"acknowledged records not erased: first {first}, gap {gap}, acknowledged {count}")
s.close()
PY
wait
grep -q "boot 2" "$work/serve.log" || { echo "bandsim-serve: the restarted band did not count a second boot" >&2; cat "$work/serve.log" >&2; exit 1; }
# tshark as an independent decoder of the standard characteristics the band notifies.
"$bandsim" serve --socket "$work/hr.sock" --start 2026-11-30T12:00:00Z --speed 20 --scenario walk \
  --record "$work/hr.log" --exit-after 1 --deterministic-secrets 2>>"$work/serve.log" &
for _ in $(seq 100); do [ -S "$work/hr.sock" ] && break; sleep 0.05; done
python3 - "$work" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1] + "/hr.sock"); s.settimeout(5)
for request in ("02f700", "121a000100", "1222000100"):   # MTU, HR CCCD, RSC CCCD
    s.send(bytes.fromhex(request)); s.recv(600)
seen = 0
while seen < 40:
    if s.recv(600)[0] == 0x1B: seen += 1
s.close()
PY
wait
tshark -r "$work/hr.log" -d 'btatt.handle==0x0019,btgatt.uuid0x2a37' -d 'btatt.handle==0x0021,btgatt.uuid0x2a53' \
  -T fields -E occurrence=a -E aggregator=' ' -e btatt.handle -e btatt.heart_rate_measurement.value.8 \
  -e btatt.heart_rate_measurement.rr_interval -e btatt.rsc_measurement.instantaneous_cadence \
  -e btatt.rsc_measurement.total_distance -e _ws.malformed 2>/dev/null > "$work/hr.tsv"
python3 - "$work/hr.tsv" <<'PY'
import sys
hr = rsc = 0
last_distance = -1
for line in open(sys.argv[1]):
    handle, bpm, rr, cadence, distance, malformed = (line.rstrip("\n").split("\t") + [""] * 6)[:6]
    if malformed: sys.exit("bandsim-serve: tshark calls a notification malformed: " + line)
    if handle == "0x0019" and bpm:
        hr += 1
        bpm = int(bpm)
        if not 60 <= bpm <= 160: sys.exit(f"bandsim-serve: walking heart rate {bpm}")
        for r in rr.split():
            if abs(60 / (int(r) / 1024) - bpm) > 0.25 * bpm: sys.exit(f"bandsim-serve: RR {r}/1024 s does not fit {bpm} bpm")
    elif handle == "0x0021" and cadence:
        rsc += 1
        if not 80 <= int(cadence) <= 140: sys.exit(f"bandsim-serve: walking cadence {cadence}")
        if int(distance) < last_distance: sys.exit("bandsim-serve: RSC total distance went backwards")
        last_distance = int(distance)
if hr < 15 or rsc < 15: sys.exit(f"bandsim-serve: tshark decoded {hr} heart-rate and {rsc} RSC notifications")
PY

# Determinism: the same seed gives the same truth file, byte for byte; another seed does not.
truth_of() {
  "$bandsim" serve --socket "$work/det.sock" --start 2026-11-30T06:00:00Z --speed 200000 --seed "$1" \
    --scenario day --fault drop=0.1 --exit-after 4h --truth "$2" 2>/dev/null
}
truth_of 11 "$work/a.ndjson"; truth_of 11 "$work/b.ndjson"; truth_of 12 "$work/c.ndjson"
[ "$(wc -l < "$work/a.ndjson")" -ge 239 ] || { echo "bandsim-serve: 4 h gave $(wc -l < "$work/a.ndjson") minutes" >&2; exit 1; }
cmp -s "$work/a.ndjson" "$work/b.ndjson" || { echo "bandsim-serve: same seed, different truth" >&2; exit 1; }
! cmp -s "$work/a.ndjson" "$work/c.ndjson" || { echo "bandsim-serve: a different seed changed nothing" >&2; exit 1; }

# Bad input gets its documented exit code.
set +e
"$bandsim" serve --speed 0 2>/dev/null; [ $? -eq 64 ] || { echo "bandsim-serve: --speed 0 should exit 64" >&2; exit 1; }
printf 'at 00:00 swim\n' > "$work/bad.scenario"
"$bandsim" serve --socket "$work/x.sock" --scenario "$work/bad.scenario" 2>/dev/null
[ $? -eq 65 ] || { echo "bandsim-serve: a bad scenario file should exit 65" >&2; exit 1; }
printf 'garbage' > "$work/bad.state"
"$bandsim" serve --socket "$work/x.sock" --state "$work/bad.state" 2>/dev/null
[ $? -eq 65 ] || { echo "bandsim-serve: a damaged state file should exit 65" >&2; exit 1; }
set -e
echo "bandsim-serve: ok"
