#!/usr/bin/env bash
# The firmware image's budget on the Cortex-M4 (what must fit a small chip): flash (text + rodata)
# and RAM (data + bss) per module from the linker map (after --gc-sections: only what the image
# keeps), the stack
# high-water mark (painted stack, reported by the firmware after an ATT conversation, the on-chip
# self-test and this bench), and CPU cost of the hot operations measured on the chip
# (OnChipBench: SysTick cycles under QEMU -icount, turned into instructions), and the band's own
# logic (ChipBand: cycles per band second and per simulated minute, 60 minutes at 600x), and a
# reader's session with the band's GATT services on the chip (pairing, notifications: cycles per
# notification; a history transfer with CRC and acknowledgement). Fails if anything allocated on
# the heap after start-up (pairing and the history included). Then what the code is for
# (bench/firmware/size-report.py: flash by area — sensor model, each GATT service, crypto,
# soft-float, runtime) and the budget the band's own Bluetooth host must fit beside (flash ≤ 128 KB,
# RAM ≤ 32 KB beside the minute ring) with the anchors' published figures.
#
#   bash bench/firmware/mcu.sh            # prints the tables docs/performance.md and docs/firmware.md record
#
# QEMU is stopped on exit. Exit 0 ok, 1 failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
source "$root/Tests/checks/support/firmware-common.sh"
qemu_pid=""
cleanup() {
  firmware_stop
  rm -rf "$work"
}
trap cleanup EXIT
elf="$(firmware_image)"
map="${elf%.elf}.map"

python3 - "$map" <<'PY'
import collections, re, sys
# lld map lines: VMA LMA Size Align Out In Symbol; an input section line names "path(.section)" or "path:(.section)".
sizes = collections.defaultdict(lambda: collections.Counter())
for line in open(sys.argv[1]):
    m = re.match(r"\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+(\S+?):?\((\.[^)]*)\)\s*$", line)
    if not m:
        continue
    size, path, section = int(m.group(1), 16), m.group(2), m.group(3)
    module = re.sub(r"\.(o|a)$", "", path.split("/")[-1])
    if "UnicodeDataTables" in path or "lib" in module and module.endswith(".a"):
        module = "stdlib Unicode tables"
    kind = ("rodata" if section.startswith(".rodata") else "text" if section.startswith(".text") or section.startswith(".ARM")
            else "data" if section.startswith(".data") else "bss" if section.startswith(".bss") or section == "COMMON" else None)
    if kind:
        sizes[module][kind] += size
total = collections.Counter()
print("| module | text | rodata | flash (text+rodata+data) | RAM (data+bss) |")
print("|---|---:|---:|---:|---:|")
for module, c in sorted(sizes.items(), key=lambda item: -(item[1]["text"] + item[1]["rodata"])):
    total.update(c)
    print("| %s | %d | %d | %d | %d |" % (module, c["text"], c["rodata"], c["text"] + c["rodata"] + c["data"], c["data"] + c["bss"]))
print("| **image** | %d | %d | **%d** (%.1f KB) | **%d** |" % (total["text"], total["rodata"], total["text"] + total["rodata"] + total["data"],
      (total["text"] + total["rodata"] + total["data"]) / 1024, total["data"] + total["bss"]))
PY

# The deepest stack frames: each function's `sub sp, #N` in the image, named by the symbol it is in.
python3 - "$elf" <<'PY'
import re, subprocess, sys
elf = sys.argv[1]
symbols = []
for line in subprocess.run(["llvm-nm", "-n", elf], capture_output=True, text=True, check=True).stdout.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[1] in "tTwW" and not re.match(r"^(\$[tda](\.|$)|OUTLINED|\.L)", parts[2]):
        symbols.append((int(parts[0], 16), parts[2]))
disassembly = subprocess.run(["llvm-objdump", "-d", "--no-show-raw-insn", elf], capture_output=True, text=True, check=True).stdout
frames = {}
for match in re.finditer(r"^\s*([0-9a-f]+):\s+sub(?:\.w|w)?\s+sp, (?:sp, )?#(\d+)", disassembly, re.M):
    address, size = int(match.group(1), 16), int(match.group(2))
    owner = max((s for s in symbols if s[0] <= address), default=(0, "?"), key=lambda s: s[0])[1]
    frames[owner] = max(frames.get(owner, 0), size)
top = sorted(frames.items(), key=lambda item: -item[1])[:8]
names = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(n for n, _ in top),
                       capture_output=True, text=True).stdout.splitlines()
print()
print("| deepest stack frames (bytes) | function |")
print("|---:|---|")
for (_, size), name in zip(top, names):
    print("| %d | `%s` |" % (size, name[:120]))
PY

# What the flash holds, by area (the symbol tables: python3 bench/firmware/size-report.py ELF).
echo
python3 "$root/bench/firmware/size-report.py" "$elf" --only area
# The image's sizes for the budget: llvm-size's text (code, constants, .ARM.exidx, .swift_modhash)
# + data (initial values, kept in flash) is the flash; data + bss is the static RAM; the heap arena
# is link.ld's (.heap, counted in bss by llvm-size).
read -r size_text size_data size_bss _ < <(llvm-size "$elf" | awk 'NR == 2')
size_heap="$(llvm-size -A "$elf" | awk '$1 == ".heap" { print $2 }')"
export size_text size_data size_bss size_heap="${size_heap:-0}"

# -icount shift=5: every instruction advances the virtual clock 32 ns; SysTick counts 25 MHz cycles (40 ns).
firmware_boot "$elf" -icount shift=5
PYTHONPATH="$root/Tests/checks/support" python3 - "$work" <<'PY'
import struct, sys
from firmware_uart import ATT, LINK, DEBUG, FirmwareUART
uart = FirmwareUART(sys.argv[1] + "/uart.sock", timeout=60)
uart.expect(LINK, 0x80)
uart.expect(DEBUG, 0x86)
uart.send(LINK, b"\x06"); uart.expect(DEBUG, 0x83)
uart.send(LINK, b"\x01" + bytes(range(48)))
for request in ("020002", "100100ffff0028", "080100ffff0328", "0a0300", "120c000100"):
    uart.send(ATT, bytes.fromhex(request)); uart.expect(ATT)
uart.send(LINK, b"\x07")
cycles = struct.unpack("<5I", uart.expect(DEBUG, 0x85)[1:])
# The band's logic (ChipBand): start it, let 60 band minutes pass at 600x, then its counters.
uart.send(LINK, b"\x10" + struct.pack("<qQb", 1796016030, 11, 4))   # 2026-11-30T06:20:30+01:00, seed 11
uart.expect(DEBUG, 0x84)                                              # "band started"
uart.send(LINK, b"\x09" + struct.pack("<H", 600))
minutes = 0
while minutes < 60:
    channel, payload = uart.receive()
    if channel == DEBUG and payload[0] == 0x87:
        minutes += 1
def answer(code):   # the band keeps recording meanwhile: skip its minute messages (and notifications)
    while True:
        channel, payload = uart.receive()
        if channel == DEBUG and payload[0] == code:
            return payload
        assert channel == DEBUG and payload[0] == 0x87 or channel == ATT and payload[0] == 0x1B, \
            "unexpected frame %d %s" % (channel, payload.hex())
uart.send(LINK, b"\x11")
ticks, tick_cycles, records, record_cycles, flash_cycles = struct.unpack("<QQIQQ", answer(0x88)[1:])

# A reader's session with the band's services on the chip (ChipBand → BandServices): connect,
# MTU, pairing (HMAC_DRBG key), Heart Rate, RSC and Live Activity notifications for 600
# notifications at 60x, then the history (fetch, every packet, acknowledge). Cycles per
# notification: the band second's cost with notifications on, less its cost without (the
# 60 minutes above), per notification sent.
def att(request=None, want=None):
    """Sends an ATT request; returns the next ATT PDUs up to one starting with `want` (skipping minutes)."""
    if request is not None:
        uart.send(ATT, bytes.fromhex(request) if isinstance(request, str) else request)
    pdus = []
    while True:
        channel, payload = uart.receive()
        if channel == DEBUG and payload[0] == 0x87:
            continue
        assert channel == ATT, "unexpected frame %d %s" % (channel, payload.hex())
        pdus.append(payload)
        if want is None or payload[0] == want:
            return pdus
uart.send(LINK, b"\x09" + struct.pack("<H", 60))
uart.send(LINK, b"\x02")
assert att("020002", 0x03)[-1] == bytes.fromhex("03f700")
assert att("12 3700 0200", 0x13)[-1] == b"\x13"
indication = att(bytes.fromhex("12 3600 01") + struct.pack("<Q", 0x1122334455667788), 0x1D)[-1]
assert indication[:5] == bytes.fromhex("1d 3600 8100") and len(indication) == 21, "pairing on the chip: %s" % indication.hex()
uart.send(ATT, b"\x1e")
for cccd in ("1a00", "2200", "2e00"):
    att("12 %s 0100" % cccd, 0x13)
uart.send(LINK, b"\x11")
before = struct.unpack("<QQIQQ", answer(0x88)[1:])
notifications = 0
while notifications < 600:
    channel, payload = uart.receive()
    if channel == ATT and payload[0] == 0x1B:
        notifications += 1
uart.send(LINK, b"\x11")
while True:   # notifications keep coming until the answer
    channel, payload = uart.receive()
    if channel == DEBUG and payload[0] == 0x88:
        after = struct.unpack("<QQIQQ", payload[1:]); break
    if channel == ATT and payload[0] == 0x1B:
        notifications += 1
for cccd in ("1a00", "2200", "2e00"):
    att("12 %s 0000" % cccd, 0x13)
session_ticks = after[0] - before[0]
with_notifications = (after[1] - before[1]) / session_ticks
per_notification = (with_notifications - tick_cycles / ticks) / (notifications / session_ticks)
# The history: every record the chip holds, CRC-checked, acknowledged.
att("12 3100 0200", 0x13); att("12 3400 0100", 0x13)
fetch = att(bytes.fromhex("12 3000 01") + struct.pack("<IH", 0, 0), 0x1D)[-1]
opcode, status_byte, record_size, history_id, first, count, gap = struct.unpack("<BBBIIII", fetch[3:22])
assert status_byte == 0 and first == 0 and count >= 60, "fetch on the chip: %s" % fetch.hex()
uart.send(ATT, b"\x1e")
received, crc = 0, 0
import zlib
while True:
    pdus = att(None, None)
    pdu = pdus[-1]
    if pdu[0] == 0x1B and pdu[1:3] == bytes.fromhex("3300"):
        records_bytes = pdu[5:]
        crc = zlib.crc32(records_bytes, crc); received += len(records_bytes) // 16
    elif pdu[0] == 0x1D:
        complete = pdu; break
opcode, done_status, packets, record_count, done_crc = struct.unpack("<BBIII", complete[3:17])
assert done_status == 0 and record_count == count and received == count and done_crc == crc, "transfer: %s (%d received)" % (complete.hex(), received)
uart.send(ATT, b"\x1e")
acknowledged = att(bytes.fromhex("12 3000 02") + struct.pack("<II", count, done_crc), 0x1D)[-1]
assert acknowledged[4] == 0, "acknowledgement on the chip: %s" % acknowledged.hex()
uart.send(ATT, b"\x1e")
uart.send(LINK, b"\x03")
uart.send(LINK, b"\x04")
status = struct.unpack("<QIIIIIIII", answer(0x81)[1:])
names = ["ATT Read Request answered by the GATT server", "10-byte UART frame decoded", "10-byte UART frame encoded",
         "HMAC-SHA256 of 48 bytes (one auth proof)", "16 DRBG bytes (one nonce)"]
print()
print("| operation (on the M4, QEMU -icount shift=5) | cycles (25 MHz SysTick) | instructions |")
print("|---|---:|---:|")
for name, c in zip(names, cycles):
    print("| %s | %d | ≈ %d |" % (name, c, round(c * 40 / 32)))
second = tick_cycles / ticks
closing = record_cycles / records
print("| one band second (BandCore tick: sensors, minute accumulation; mean of %d) | %.0f | ≈ %.0f |" % (ticks, second, second * 40 / 32))
print("| the tick that closes a minute (record into the ring; mean of %d) | %.0f | ≈ %.0f |" % (records, closing, closing * 40 / 32))
print("| one simulated minute (60 ticks, one of them closing) | %.0f | ≈ %.0f |" % (59 * (tick_cycles - record_cycles) / (ticks - records) + closing,
      (59 * (tick_cycles - record_cycles) / (ticks - records) + closing) * 40 / 32))
print("| one band second with Heart Rate, RSC and Live Activity notifying (mean of %d, %.2f notifications each) | %.0f | ≈ %.0f |"
      % (session_ticks, notifications / session_ticks, with_notifications, with_notifications * 40 / 32))
print("| **one notification** (encode, fault plan, UART frame out; the difference per notification) | **%.0f** | ≈ %.0f |" % (per_notification, per_notification * 40 / 32))
print("| a minute record into flash (24-byte slot, CRC-32, the program call; the host's semihosting I/O not counted; mean of %d) | %.0f | ≈ %.0f |"
      % (records, flash_cycles / records, flash_cycles / records * 40 / 32))
print()
print("reader session on the chip: paired, %d notifications, history of %d records in %d packets, CRC and acknowledgement ok" % (notifications, count, packets))
print("stack high-water %d B; heap allocations %d (%d after start-up, which ends with the band's configuration); .data+.bss see the table above"
      % (status[8], status[6], status[7]))

# The budget the band's Bluetooth host has to fit beside. The minute ring is the band's one-day
# ring in the heap arena: 1,440 records of 16 bytes (ChipBand). The stack region is link.ld's 20 KB;
# its use is the painted high-water mark. The anchors are published figures (docs/firmware.md, "Budget").
import os
arena = int(os.environ["size_heap"])
flash = int(os.environ["size_text"]) + int(os.environ["size_data"])
static_ram = int(os.environ["size_data"]) + int(os.environ["size_bss"]) - arena
ring = 1440 * 16
print()
print("| budget (the chip today, before the Bluetooth host) | value | limit with the host |")
print("|---|---:|---|")
print("| flash: llvm-size text + data | **{:,} B** ({:.1f} KB) | ≤ 128 KB: {:,} B left for the host |".format(flash, flash / 1024, 128 * 1024 - flash))
print("| static RAM: data + bss, without the heap arena | {:,} B | |".format(static_ram))
print("| heap arena (link.ld, allocated once at start-up) | {:,} B, of which the minute ring {:,} B | |".format(arena, ring))
print("| stack high-water (painted; link.ld reserves 20,480 B) | {:,} B | |".format(status[8]))
beside = static_ram + arena - ring + status[8]
print("| RAM beside the ring: static + arena − ring + stack high-water | **{:,} B** ({:.1f} KB) | ≤ 32 KB |".format(beside, beside / 1024))
print("| heap allocations after start-up (posix_memalign hook, asserted 0) | {} | 0 |".format(status[7]))
print("| cycles per notification / per ATT Read Request (bring-up table) | {:,.0f} / {:,} | |".format(per_notification, cycles[0]))
print("| cycles per pairing (SMP, excluding the controller) | not here: bumble-chip.sh prints the hosted band's SysTick count on real time | |")
print()
print("| anchor (published) | flash | RAM |")
print("|---|---:|---:|")
print("| NimBLE peripheral with its controller, nRF52832 | ≈ 142 KB | ≈ 44 KB |")
print("| NimBLE host only, bleprph sample (apache/mynewt-nimble PR #913) | 45,392 B | 4,552 B |")
print("| TI BLE5-Stack, single role | ≈ 95 KB | |")
print("| Zephyr peripheral_hr minimal, host + controller + kernel, micro:bit (zephyr PR #91973) | 96,148 B | 16,296 B |")
if status[7] != 0:
    sys.exit("mcu.sh: %d heap allocations after start-up (the band's logic must not allocate once running)" % status[7])
PY
# The hosted build (build.sh --hci): the chip's own BLE host (BandLEHost) on H4, the bring-up GATT
# table, the bonds in flash; not yet the band's logic (docs/firmware.md, "The hosted build").
hosted="$(firmware_image --hci)"
read -r hosted_text hosted_data hosted_bss _ < <(llvm-size "$hosted" | awk 'NR == 2')
hosted_heap="$(llvm-size -A "$hosted" | awk '$1 == ".heap" { print $2 }')"
echo
echo "| hosted build (build.sh --hci) | value | limit |"
echo "|---|---:|---|"
echo "| flash: llvm-size text + data | $((hosted_text + hosted_data)) B | ≤ 128 KB: $((128 * 1024 - hosted_text - hosted_data)) B left |"
echo "| static RAM: data + bss, without the heap arena | $((hosted_data + hosted_bss - hosted_heap)) B | |"
echo "| the host's memory: LEHostMemory for ATT_MTU 247, allocated in the arena at start-up (BandLEHostTests asserts the size) | 2,294 B | |"
# Cycles per pairing are not an instruction count here: the hosted band pairs only against a live
# controller (Bumble, Tests/checks/bumble-chip.sh, which prints the host's SysTick count with QEMU's
# clock on real time), and under -icount the chip's virtual time runs ahead of Bumble's answers so
# the host's HCI command timeouts fire (seen with shift=5 and shift=5,align=on).
