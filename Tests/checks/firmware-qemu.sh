#!/usr/bin/env bash
# The band's firmware image on an emulated Cortex-M4 (the chip a real band would run): builds it
# with Embedded Swift (firmware-sim/board/build.sh), boots it in qemu-system-arm (mps2-an386) with
# UART0 on a Unix
# socket, and talks to it in the UART framing (docs/protocol.md) through an independent Python
# codec (support/firmware_uart.py):
#   - the image announces itself; its on-chip known-answer tests (SHA-256, HMAC, HMAC_DRBG) pass;
#   - seeded by the host, its HMAC_DRBG gives exactly the bytes SP 800-90A predicts;
#   - an ATT conversation through the shared GATT server: MTU exchange, discovery, reads, the
#     error responses for a bad handle and a refused write, a CCCD write;
#   - the band clock runs 1000x faster than real time on request (link message 0x09);
#   - 64 KB of random garbage (sync bytes included) on the UART, then it still answers, counted
#     the discarded bytes, and has made no heap allocation at all (not even at start-up); stack high-water < 12 KB;
#   - a provoked hard fault is reported on the UART with its PC, and QEMU exits 3 (semihosting);
#   - flash (16 4 KB pages in $work/bandkit-m4.flash through semihosting; the boot record in the first two): the boot count survives
#     the fault and a QEMU restart (1, then 2); a damaged newest page is counted and the older record
#     used (boot count 2 again, 1 damaged page), and the image keeps booting.
# QEMU is always stopped (trap on EXIT), also when a step fails. Exit 0 ok, 1 failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/scripts/packages.sh"
bash "$root/scripts/ensure-packages.sh" "${FIRMWARE_PACKAGES[@]}"
work="$(mktemp -d)"
source "$root/Tests/checks/support/firmware-common.sh"
qemu_pid=""
cleanup() {
  firmware_stop
  rm -rf "$work"
}
trap cleanup EXIT

elf="$(firmware_image)"
boot() { firmware_boot "$elf"; }   # UART0 on $work/uart.sock, flash in $work/bandkit-m4.flash

boot
fault_address="$(llvm-nm "$elf" | awk '$3 == "board_provoke_fault" { print $1 }')"
PYTHONPATH="$root/Tests/checks/support" python3 - "$work" "$fault_address" <<'PY'
import random, re, struct, sys, time
from firmware_uart import ATT, LINK, DEBUG, FirmwareUART, HMACDRBG

work = sys.argv[1]
started = time.monotonic()
uart = FirmwareUART(work + "/uart.sock")
uart.expect(LINK, 0x80)                                       # booted
assert uart.expect(DEBUG, 0x86)[1:] == struct.pack("<6I", 1, 0, 0, 0, 0, 0), "first boot: boot count 1, no damage, no minutes in flash"

uart.send(LINK, b"\x06")
result = uart.expect(DEBUG, 0x83)
assert result[1] == 0x07, "on-chip known-answer tests: bitmask %#x (want 0x7)" % result[1]

rng = random.Random(12)
entropy, nonce = bytes(rng.randrange(256) for _ in range(32)), bytes(rng.randrange(256) for _ in range(16))
uart.send(LINK, b"\x01" + entropy + nonce)
predicted = HMACDRBG(entropy, nonce)
for count in (32, 64, 1):
    uart.send(LINK, bytes([0x05, count]))
    got = uart.expect(DEBUG, 0x82)[1:]
    want = predicted.generate(count)
    assert got == want, "DRBG bytes %s, SP 800-90A says %s" % (got.hex(), want.hex())
uart.send(LINK, b"\x05\x41")                                  # 65 bytes: refused
assert uart.expect(DEBUG, 0x82)[1:] == b"\xff"

def exchange(request, response):
    uart.send(ATT, bytes.fromhex(request))
    got = uart.expect(ATT)
    assert got == bytes.fromhex(response), "ATT %s: got %s, want %s" % (request, got.hex(), response)

uart.send(LINK, b"\x02")                                      # a reader connects
exchange("02 0002", "03 f700")                                # Exchange MTU: 512 asked, 247 served
exchange("10 0100 ffff 0028", "11 06 0100 0300 0018 0400 0800 0a18 0900 0c00 0f18")
exchange("08 0100 ffff 0328", "09 07 0200 02 0300 002a 0500 02 0600 292a 0700 02 0800 242a 0a00 12 0b00 192a")
exchange("0a 0300", "0b " + b"BandKit M4".hex())
exchange("0a 0800", "0b " + b"mps2-an386".hex())
exchange("0a 0b00", "0b 57")
exchange("0a 0001", "01 0a 0001 01")                          # Invalid Handle
exchange("0a 0000", "01 0a 0000 01")
exchange("12 0300 4142", "01 12 0300 03")                     # Write Not Permitted
exchange("12 0c00 01", "01 12 0c00 0d")                       # Invalid Attribute Value Length
exchange("12 0c00 0100", "13")
exchange("0a 0c00", "0b 0100")
exchange("3f", "01 3f 0000 06")                               # unknown request: Request Not Supported

# The band clock runs faster on request: at 1000x, 0.3 s of real time is minutes of band time.
def uptime():
    uart.send(LINK, b"\x04")
    return struct.unpack("<Q", uart.expect(DEBUG, 0x81)[1:9])[0]
before, real_before = uptime(), time.monotonic()
uart.send(LINK, b"\x09" + struct.pack("<H", 1000))
time.sleep(0.3)
after, real_after = uptime(), time.monotonic()
real_ms = (real_after - real_before) * 1000
assert 50 * real_ms <= after - before <= 1100 * real_ms, \
    "band clock advanced %d ms in %.0f ms of real time at speed 1000" % (after - before, real_ms)
uart.send(LINK, b"\x09\x01\x00")

# Garbage: random bytes, a quarter of them sync bytes, then zeros to flush any false header.
garbage = bytes(0xA5 if rng.random() < 0.25 else rng.randrange(256) for _ in range(65536))
uart.send_raw(garbage + bytes(600))
uart.send(LINK, b"\x04")
status = uart.expect(DEBUG, 0x81)[1:]
(uptime, frames, discarded, header_failures, crc_failures, att_pdus, allocations,
 allocations_after_start, stack_high_water) = struct.unpack("<QIIIIIIII", status)
print("firmware-qemu: uptime %d ms, %d frames, %d bytes discarded (%d header / %d CRC failures), %d ATT PDUs, "
      "%d heap allocations (%d after start-up), stack high-water %d B"
      % (uptime, frames, discarded, header_failures, crc_failures, att_pdus, allocations, allocations_after_start, stack_high_water))
assert att_pdus == 13, att_pdus
assert frames == 25, "%d frames (want 25, the check's own: none conjured from the garbage)" % frames
assert discarded >= 60000, "only %d garbage bytes counted" % discarded
assert allocations == 0 and allocations_after_start == 0, \
    "%d heap allocations (%d after start-up): the image allocates nothing, from the first instruction" % (allocations, allocations_after_start)
assert 0 < stack_high_water < 12 * 1024, "stack high-water %d B (was 17 KB before ATTPDU's 12 KB frame went; 20 KB stack)" % stack_high_water
exchange("0a 0300", "0b " + b"BandKit M4".hex())              # still answering

uart.send(LINK, b"\x7f")                                       # provoke a hard fault
raw = uart.read_until_closed()
assert b"HARDFAULT pc=0x" in raw, "no fault report on the UART: %r" % raw[-200:]
report = raw[raw.index(b"HARDFAULT"):].split(b"\r")[0].decode()
print("firmware-qemu: fault report: %s (QEMU part %.1f s)" % (report, time.monotonic() - started))
pc, fault_function = int(re.search(r"pc=0x([0-9a-f]{8})", report).group(1), 16), int(sys.argv[2], 16) & ~1
assert fault_function <= pc < fault_function + 8, "fault PC %#x is not in board_provoke_fault at %#x" % (pc, fault_function)
PY
rc=0; wait "$qemu_pid" || rc=$?; qemu_pid=""
[[ "$rc" == 3 ]] || { echo "firmware-qemu: QEMU exit code $rc after the fault (want 3, the hard-fault handler's)" >&2; cat "$work/qemu.log" >&2; exit 1; }
next_boot() {  # boots again on the same flash file; prints the flash report (boot count, damaged pages)
  boot
  PYTHONPATH="$root/Tests/checks/support" python3 - "$work" <<'PY'
import struct, sys
from firmware_uart import LINK, DEBUG, FirmwareUART
uart = FirmwareUART(sys.argv[1] + "/uart.sock")
uart.expect(LINK, 0x80)
print("%d %d" % struct.unpack("<6I", uart.expect(DEBUG, 0x86)[1:])[:2])
PY
  firmware_stop
}
report="$(next_boot)"
[[ "$report" == "2 0" ]] || { echo "firmware-qemu: after a fault and a QEMU restart the flash report is '$report' (want boot count 2, 0 damaged)" >&2; exit 1; }
# Damage the newest record (boot 2, page 1 at offset 4096): one byte of its sequence number.
python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(4096 + 5); b = f.read(1); f.seek(4096 + 5); f.write(bytes([b[0] ^ 0x40]))' "$work/bandkit-m4.flash"
report="$(next_boot)"
[[ "$report" == "2 1" ]] || { echo "firmware-qemu: with the newest flash page damaged the report is '$report' (want boot count 2 from the older page, 1 damaged)" >&2; exit 1; }
report="$(next_boot)"
[[ "$report" == "3 0" ]] || { echo "firmware-qemu: after recovery the report is '$report' (want boot count 3, 0 damaged)" >&2; exit 1; }
echo "firmware-qemu: flash: boot counts 1, 2, 2 (damaged page recovered), 3"
echo "firmware-qemu: ok"
