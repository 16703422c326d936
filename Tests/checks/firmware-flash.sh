#!/usr/bin/env bash
# The chip's minute ring in flash (a reset must not cost the band its unsynced history): the image
# under `bandsim serve --firmware` keeps every minute it records in flash pages (a host file through
# semihosting, kept by --state),
# and after a firmware reset or a host restart rebuilds its ring from them and numbers on:
#   1. a run with --fault reboot-at=120m: bandsim resets the image (link 0x0A, SYSRESETREQ) after
#      two band hours; the image boots again (boot 2), reports every minute recorded before the
#      reset as recovered, and — configured again by the bridge — records on: the truth stream's
#      sequence numbers run 0, 1, 2, … with none twice and none missing, times never go back, and
#      every minute of it is in the flash file's ring pages with the same start and steps;
#   2. bandsim stopped and started again on the same --state and --start (a host restart): boot 3,
#      the band resumes after the newest minute in its flash (not back at --start), the ring
#      recovered, the first new minute numbered after the last one of run 1;
#   3. one byte of an older record damaged in the flash file: the image still boots and records
#      (no crash loop), the damaged slot is counted, the ring restarts after it;
#   4. an older record whose CRC matches but whose minute does not parse (its start moved off the
#      minute, the CRC recomputed): the image boots and records, the slot is counted as damaged, the
#      ring restarts after it — never served, never a trap;
#   5. a fault the chip has no means for with --firmware (disconnect-at): exit 64.
# QEMU and bandsim are stopped on every way out (trap on EXIT). Exit 0 ok, 1 failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/scripts/packages.sh"
bash "$root/scripts/ensure-packages.sh" "${FIRMWARE_PACKAGES[@]}"
source "$root/Tests/checks/support/firmware-common.sh"
firmware_check_begin firmware-flash bandsim

elf="$(firmware_image)"
options=(--firmware "$elf" --state "$work/band.flash" --speed 3600 --seed 11 --start 2026-11-30T06:20:30+01:00)

# Runs `bandsim serve ARGS…` (log $work/NAME.log, truth $work/NAME.ndjson) until the truth file
# has LINES lines (firmware-common.sh: at most 180 s, then SIGTERM and wait).
run_until() {
  local name=$1 lines=$2; shift 2
  serve_until_lines "$work/$name.ndjson" "$lines" "$work/$name.log" \
    "${options[@]}" --socket "$work/$name.sock" --truth "$work/$name.ndjson" "$@"
}

# The flash report lines of a log, as "boot damagedPages recovered damagedSlots next".
reports() { sed -n 's/.*firmware: flash: boot \([0-9]*\), \([0-9]*\) damaged boot-record page(s), \([0-9]*\) minute(s) recovered, \([0-9]*\) damaged slot(s) skipped, next minute \([0-9]*\).*/\1 \2 \3 \4 \5/p' "$work/$1.log"; }

# Checks a truth file: every line JSON, sequence numbers FIRST, FIRST+1, … (none twice or
# missing), minute times never going back. Prints the line count and the last sequence number.
check_truth() {
  python3 - "$work/$1.ndjson" "$2" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
first = int(sys.argv[2])
previous = None
for index, line in enumerate(lines):
    try:
        minute = json.loads(line)
    except ValueError as error:
        sys.exit("firmware-flash: %s line %d is not JSON (%s)" % (sys.argv[1], index + 1, error))
    if minute["seq"] != first + index:
        sys.exit("firmware-flash: %s line %d has sequence %d, want %d (a number twice or one missing)" % (sys.argv[1], index + 1, minute["seq"], first + index))
    if previous is not None and minute["minute"] < previous:
        sys.exit("firmware-flash: %s line %d: minute %s before %s" % (sys.argv[1], index + 1, minute["minute"], previous))
    previous = minute["minute"]
print(len(lines), first + len(lines) - 1)
PY
}

# 1. A firmware reset in the middle of a run.
started=$(date +%s)
run_until reset 240 --fault reboot-at=120m
grep -q "reboot-at: the band has run" "$work/reset.log" || fail "bandsim never reset the firmware"
grep -q "firmware: booted (boot 2 seen by this bridge)" "$work/reset.log" || fail "the firmware did not boot again after the reset"
read -r -a first < <(reports reset | sed -n 1p)
read -r -a second < <(reports reset | sed -n 2p)
[[ "${first[*]}" == "1 0 0 0 0" ]] || fail "first boot's flash report '${first[*]}' (want boot 1, nothing recovered)"
(( second[0] == 2 && second[1] == 0 && second[3] == 0 )) || fail "after the reset the flash report is '${second[*]}' (want boot 2, no damage)"
(( second[2] >= 120 && second[2] == second[4] )) || fail "after the reset ${second[2]} minutes recovered, next ${second[4]} (want all of the ≥ 120 before it)"
read -r count last < <(check_truth reset 0) || exit 1
python3 - "$work/reset.ndjson" "${second[4]}" <<'PY' || exit 1
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1])]
resumed = lines[int(sys.argv[2])]
if not resumed["seq"] == int(sys.argv[2]):
    sys.exit("firmware-flash: the first minute after the reset is not number %s" % sys.argv[2])
PY
# Every minute of the truth stream, before the reset and after it, is in the flash file's ring
# pages (FlashMinuteLog: 24-byte slots, sequence ‖ record ‖ CRC-32) with the same start and steps.
python3 - "$work/band.flash" "$work/reset.ndjson" <<'PY' || exit 1
import datetime, json, struct, sys, zlib
flash = open(sys.argv[1], "rb").read()
slots = {}
for page in range(4, 14):
    for slot in range(170):
        raw = flash[page * 4096 + slot * 24:page * 4096 + slot * 24 + 24]
        if len(raw) == 24 and zlib.crc32(raw[:20]) == struct.unpack("<I", raw[20:])[0]:
            slots[struct.unpack("<I", raw[:4])[0]] = raw[4:20]
for line in open(sys.argv[2]):
    minute = json.loads(line)
    record = slots.get(minute["seq"])
    if record is None:
        sys.exit("firmware-flash: minute %d of the truth stream is not in the flash file" % minute["seq"])
    start = datetime.datetime.fromtimestamp(struct.unpack("<I", record[:4])[0], datetime.timezone.utc)
    if start != datetime.datetime.fromisoformat(minute["minute"].replace("Z", "+00:00")) or struct.unpack("<H", record[6:8])[0] != minute["steps"]:
        sys.exit("firmware-flash: minute %d in flash (%s, %d steps) differs from the truth line %s" % (minute["seq"], start, struct.unpack("<H", record[6:8])[0], line.strip()))
PY
echo "firmware-flash: reset after ${second[4]} minutes; $count minutes numbered 0…$last with none twice or missing, every one in the flash file"

# 2. A host restart on the same flash file.
run_until restart 30
read -r -a third < <(reports restart | sed -n 1p)
(( third[0] == 3 && third[3] == 0 )) || fail "after the restart the flash report is '${third[*]}' (want boot 3, no damage)"
(( third[4] > last && third[4] <= last + 60 )) || fail "after the restart the next minute is ${third[4]}; run 1 ended at $last"
want=$(( third[4] < 1440 ? third[4] : 1440 ))
(( third[2] == want )) || fail "after the restart ${third[2]} minutes recovered (want $want: the ring's newest day)"
read -r count2 last2 < <(check_truth restart "${third[4]}") || exit 1
# The same --start again: the band resumes after the newest minute its flash holds (0x86's last
# field), never back in time before minutes it already recorded.
# Run 1 went on recording into flash after its truth file was full (QEMU at 3600x until stopped):
# the restart's first minute, number third[4], follows its minute number `last` by as many minutes.
python3 - "$work/reset.ndjson" "$work/restart.ndjson" "$last" "${third[4]}" <<'PY' || fail "after the host restart the band's clock went back"
import datetime, json, sys
def start(line): return datetime.datetime.fromisoformat(json.loads(line)["minute"].replace("Z", "+00:00"))
before = open(sys.argv[1]).read().splitlines()[-1]
after = open(sys.argv[2]).read().splitlines()[0]
gap = (start(after) - start(before)).total_seconds()
want = 60 * (int(sys.argv[4]) - int(sys.argv[3]))
if gap != want:
    sys.exit("firmware-flash: run 1's last minute (number %s) %s, the restart's first (number %s) %s: %+d s, want %+d s"
             % (sys.argv[3], json.loads(before)["minute"], sys.argv[4], json.loads(after)["minute"], gap, want))
print("firmware-flash: host restart on the same --start: the band resumed %d minute(s) after run 1's last truth minute, after the newest in its flash" % (want // 60))
PY
grep -q "the band resumes at the end of the newest" "$work/restart.log" || fail "the bridge did not say it resumed after the flash's newest minute"
echo "firmware-flash: host restart: boot 3, ${third[2]} minutes recovered, numbering on from ${third[4]}"

# 3. An older record damaged in the flash file: ring page 0 (file page 4), slot 10, byte 7.
python3 -c 'import sys; f = open(sys.argv[1], "r+b"); at = 4 * 4096 + 10 * 24 + 7; f.seek(at); b = f.read(1); f.seek(at); f.write(bytes([b[0] ^ 0x01]))' "$work/band.flash"
run_until damaged 10
read -r -a fourth < <(reports damaged | sed -n 1p)
(( fourth[0] == 4 && fourth[3] == 1 )) || fail "with one damaged record the flash report is '${fourth[*]}' (want boot 4, 1 damaged slot)"
(( fourth[4] > last2 )) || fail "after the damage the next minute ${fourth[4]} is not after ${last2}"
(( fourth[2] == (fourth[4] - 11 < 1440 ? fourth[4] - 11 : 1440) )) || fail "with record 10 damaged ${fourth[2]} minutes recovered (want the run after it)"
check_truth damaged "${fourth[4]}" >/dev/null || exit 1
echo "firmware-flash: damaged record 10: counted, ${fourth[2]} minutes recovered after it, the band records on"

# 4. Record 20 rewritten with a minute start off the minute under a CRC that matches it.
python3 - "$work/band.flash" <<'PY'
import struct, sys, zlib
f = open(sys.argv[1], "r+b")
at = 4 * 4096 + 20 * 24
f.seek(at)
slot = bytearray(f.read(24))
if struct.unpack("<I", slot[:4])[0] != 20: sys.exit("firmware-flash: slot 20 of ring page 0 does not hold record 20")
slot[4:8] = struct.pack("<I", struct.unpack("<I", slot[4:8])[0] + 1)
slot[20:24] = struct.pack("<I", zlib.crc32(bytes(slot[:20])))
f.seek(at)
f.write(slot)
PY
run_until unparseable 10
read -r -a fifth < <(reports unparseable | sed -n 1p)
(( fifth[0] == 5 && fifth[3] == 2 )) || fail "with record 20 unparseable under a valid CRC the flash report is '${fifth[*]}' (want boot 5, 2 damaged slots: 10 and 20)"
(( fifth[2] == (fifth[4] - 21 < 1440 ? fifth[4] - 21 : 1440) )) || fail "with record 20 unparseable ${fifth[2]} minutes recovered (want the run after it)"
check_truth unparseable "${fifth[4]}" >/dev/null || exit 1
echo "firmware-flash: record 20 unparseable under a valid CRC: counted, ${fifth[2]} minutes recovered after it, the band records on"

# 5. Faults the chip cannot suffer are refused.
set +e
"$bandsim" serve --firmware "$elf" --socket "$work/bad.sock" --fault disconnect-at=10m 2>"$work/bad.log"
status=$?
set -e
[[ $status -eq 64 ]] || fail "--fault disconnect-at=10m with --firmware exited $status, not 64"
grep -q "only reboot-at" "$work/bad.log" || fail "the refusal does not say which faults apply: $(cat "$work/bad.log")"

echo "firmware-flash: ok ($(( $(date +%s) - started )) s)"
