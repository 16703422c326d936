#!/usr/bin/env bash
# `bandsim serve --firmware` end to end (the transport between a reader's socket and the chip's
# UART): builds the firmware image with Embedded Swift, lets bandsim boot it in qemu-system-arm and
# bridge the Unix SOCK_SEQPACKET
# socket to its UART, then:
#   - a reader client (Python, one ATT PDU per datagram as `band` sends them) discovers the
#     image's whole GATT table through socket → bridge → UART frames → firmware → back:
#     MTU exchange (the bridge's bearer takes the agreed 247), primary services, characteristics
#     and descriptors, every readable value; the result must equal the band's attribute table
#     (BandFirmwareCore's BandAttributeTable, which the image serves once bandsim has started the
#     band with link message 0x10), error responses included — the activity service's values
#     answer "not authenticated" (0x80) before pairing, as on the Linux band;
#   - a 240-byte Read Response (above ATT_MTU 23) reaches the reader only after the MTU exchange;
#   - the reader disconnects and connects again: the firmware starts that connection fresh (MTU 23);
#   - the real reader: `band stream sim:SOCKET` negotiates ATT_MTU 247 and runs its discovery
#     through the bridge, and recognises a BandKit band it is not paired with: exit 1 naming
#     `band pair` (Tests/checks/firmware-reader.sh pairs, streams and syncs);
#   - bandsim exits after the connections (--exit-after), and QEMU is gone; a second run stopped
#     with SIGTERM also leaves no QEMU behind;
#   - bad usage: --firmware with --profile or a fractional --speed exits 64; a missing image exits 1.
# bandsim and QEMU are always stopped (trap on EXIT). Exit 0 ok, 1 failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/scripts/packages.sh"
bash "$root/scripts/ensure-packages.sh" "${FIRMWARE_PACKAGES[@]}"
source "$root/Tests/checks/support/firmware-common.sh"
firmware_check_begin firmware-bridge bandsim band
fail() { echo "firmware-bridge: $*" >&2; cat "$work/serve.log" >&2 2>/dev/null || true; exit 1; }

elf="$(firmware_image)"

serve() {  # starts bandsim serve --firmware; waits for its socket
  rm -f "$work/band.sock"
  "$bandsim" serve --firmware "$elf" --socket "$work/band.sock" "$@" 2>>"$work/serve.log" &
  serve_pid=$!
  for _ in $(seq 400); do [ -S "$work/band.sock" ] && return 0; kill -0 "$serve_pid" 2>/dev/null || break; sleep 0.05; done
  fail "bandsim never listened"
}
qemu_pid_of_run() { grep -o 'running in QEMU (pid [0-9]*)' "$work/serve.log" | tail -1 | grep -o '[0-9]*'; }

started=$(date +%s)
serve --exit-after 3
python3 - "$work" <<'PY'
import socket, struct, sys
work = sys.argv[1]
def fail(message): sys.exit("firmware-bridge: " + message)

def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(work + "/band.sock")
    s.settimeout(10)
    return s
def request(s, pdu):
    s.send(bytes.fromhex(pdu) if isinstance(pdu, str) else pdu)
    return s.recv(600)

s = connect()
# Before the MTU exchange the bearer's MTU is 23: a 10-byte device name fits.
assert request(s, "0a 0300") == b"\x0b" + b"BandKit M4"
got = request(s, "02 0002")
assert got == bytes.fromhex("03 f700"), "MTU exchange through the bridge: %s" % got.hex()

# Discovery the way a GATT client does it, to the end of the handle range.
services, start = [], 1
while True:
    got = request(s, struct.pack("<BHHH", 0x10, start, 0xFFFF, 0x2800))
    if got[0] == 0x01:
        assert got[4] == 0x0A, "end of services: %s" % got.hex(); break
    size = got[1]
    for i in range(2, len(got), size):
        first, last = struct.unpack_from("<HH", got, i)
        services.append((first, last, got[i + 4:i + size][::-1].hex()))
        start = last + 1
    if start > 0xFFFF: break
characteristics, start = [], 1
while True:
    got = request(s, struct.pack("<BHHH", 0x08, start, 0xFFFF, 0x2803))
    if got[0] == 0x01:
        assert got[4] == 0x0A, "end of characteristics: %s" % got.hex(); break
    size = got[1]
    for i in range(2, len(got), size):
        declaration, properties, value = struct.unpack_from("<HBH", got, i)
        characteristics.append((value, properties, got[i + 5:i + size][::-1].hex()))
        start = declaration + 1
information, start = [], 1
while True:
    got = request(s, struct.pack("<BHH", 0x04, start, 0xFFFF))
    if got[0] == 0x01:
        assert got[4] == 0x0A, "end of information: %s" % got.hex(); break
    size = 4 if got[1] == 1 else 18
    for i in range(2, len(got), size):
        handle = struct.unpack_from("<H", got, i)[0]
        information.append((handle, got[i + 2:i + size][::-1].hex()))
        start = handle + 1
values = {}
for handle, properties, _ in characteristics:
    if properties & 0x02:
        got = request(s, struct.pack("<BH", 0x0A, handle))
        if handle == 0x002D:   # Live Activity: not before authentication
            assert got == bytes.fromhex("01 0a 2d00 80"), "read Live Activity unauthenticated: %s" % got.hex(); continue
        assert got[0] == 0x0B, "read %#06x: %s" % (handle, got.hex())
        values[handle] = got[1:]

# The band's table (BandAttributeTable), as BandFirmwareTests' ATTServerTests pin it.
want_services = [(0x0001, 0x0005, "1800"), (0x0006, 0x0009, "1801"), (0x000A, 0x0012, "180a"), (0x0013, 0x0016, "180f"),
                 (0x0017, 0x001E, "180d"), (0x001F, 0x0024, "1814"), (0x0025, 0x002A, "1805")]
want_characteristics = [(0x0003, 0x02, "2a00"), (0x0005, 0x02, "2a01"), (0x0008, 0x20, "2a05"), (0x000C, 0x02, "2a29"),
                        (0x000E, 0x02, "2a24"), (0x0010, 0x02, "2a25"), (0x0012, 0x02, "2a26"), (0x0015, 0x12, "2a19"),
                        (0x0019, 0x10, "2a37"), (0x001C, 0x02, "2a38"), (0x001E, 0x08, "2a39"), (0x0021, 0x10, "2a53"),
                        (0x0024, 0x02, "2a54"), (0x0027, 0x1A, "2a2b"), (0x002A, 0x0A, "2a0f"), (0x002D, 0x12, None),
                        (0x0030, 0x28, None), (0x0033, 0x10, None), (0x0036, 0x28, None)]
assert services[:7] == want_services, "services %s" % services
assert len(services) == 8 and services[7][:2] == (0x002B, 0x0037) and services[7][2].startswith("b5c00001"), "activity service %s" % services[7:]
assert len(characteristics) == len(want_characteristics), "characteristics %s" % characteristics
for got, want in zip(characteristics, want_characteristics):
    assert got[:2] == want[:2] and (want[2] is None and got[2].startswith("b5c0") or got[2] == want[2]), "characteristic %s, want %s" % (got, want)
assert [h for h, _ in information] == list(range(1, 0x38)), "handles %s" % information
assert dict(information)[0x0028] == "2902", "CCCD: %s" % information
assert values[0x0003] == b"BandKit M4" and values[0x000C] == b"BandKit" and values[0x000E] == b"BK-1 (simulated)", values
assert values[0x0010].startswith(b"BK1-") and len(values[0x0010]) == 12, values
assert len(values[0x0015]) == 1 and values[0x0015][0] <= 100, values
# Errors come back exactly as the firmware gives them.
assert request(s, "0a 0001") == bytes.fromhex("01 0a 0001 01")
assert request(s, "12 0300 4142") == bytes.fromhex("01 12 0300 03")
assert request(s, "3f") == bytes.fromhex("01 3f 0000 06")
# Notifications enabled (Current Time: it notifies only when the clock is set): the CCCD reads
# back through the bridge.
assert request(s, "12 2800 0100") == b"\x13"
assert request(s, "0a 2800") == bytes.fromhex("0b 0100")
s.close()

# A second connection starts fresh in the firmware (CCCD cleared, MTU 23 again).
s = connect()
assert request(s, "0a 2800") == bytes.fromhex("0b 0000"), "the new connection inherited the old CCCD"
assert request(s, "02 1700") == bytes.fromhex("03 f700")
s.close()
print("firmware-bridge: %d services, %d characteristics, %d handles, %d values read through the bridge"
      % (len(services), len(characteristics), len(information), len(values)))
PY

# The real reader: its discovery runs through the bridge against the image.
set +e
timeout 60 "$band" stream "sim:$work/band.sock" --store "$work/health.sqlite" --keystore "$work/keys.json" --for 5s >"$work/band.out" 2>"$work/band.err"
band_status=$?
set -e
echo "firmware-bridge: band stream exited $band_status: $(head -c 300 "$work/band.err" | tr -d '\000-\010\013-\037')"
grep -q "reader connected (connection 3)" "$work/serve.log" || fail "band stream never reached the bridge (status $band_status)"
# It negotiated the MTU, recognised the band by its activity service and, unpaired, stopped
# before streaming — all through the bridge.
[ $band_status -eq 1 ] && grep -q "connected (ATT MTU 247); BandKit band (activity service)" "$work/band.err" \
  && grep -q "is not paired; run 'band pair" "$work/band.err" \
  || fail "band stream: status $band_status, $(cat "$work/band.err")"

wait "$serve_pid" || fail "bandsim serve --firmware exited $?"
serve_pid=""
qemu="$(qemu_pid_of_run)"
[ -n "$qemu" ] || fail "no QEMU pid in the banner"
! kill -0 "$qemu" 2>/dev/null || fail "QEMU $qemu still running after bandsim ended"
grep -q "firmware: booted" "$work/serve.log" || fail "the bridge never saw the firmware boot"

# Stopped by a signal: QEMU goes too.
: >"$work/serve.log"
serve
qemu="$(qemu_pid_of_run)"
kill -TERM "$serve_pid"; wait "$serve_pid" || fail "bandsim serve --firmware exited $? on SIGTERM"
serve_pid=""
! kill -0 "$qemu" 2>/dev/null || fail "QEMU $qemu survived SIGTERM to bandsim"

# Bad usage and a missing image.
set +e
"$bandsim" serve --firmware "$elf" --profile infinitime --socket "$work/x.sock" 2>"$work/err"; [ $? -eq 64 ] || fail "--profile with --firmware: want 64"
"$bandsim" serve --firmware "$elf" --speed 1.5 --socket "$work/x.sock" 2>"$work/err"; [ $? -eq 64 ] || fail "--speed 1.5: want 64"
"$bandsim" serve --firmware "$work/missing.elf" --socket "$work/x.sock" 2>"$work/err"; status=$?
set -e
[ $status -eq 1 ] && grep -q "missing.elf" "$work/err" || fail "missing image: status $status, $(cat "$work/err")"
echo "firmware-bridge: ok ($(( $(date +%s) - started )) s)"
