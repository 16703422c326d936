#!/usr/bin/env bash
# The band's own logic on the emulated Cortex-M4 (proof that one source tree serves Linux and the
# chip): the image runs BandFirmwareCore's BandCore — sensor model, clock, minute accumulation,
# minute ring — compiled
# with Embedded Swift from the sources the Linux band uses, and sends every minute it records over
# its debug channel (message 0x87), which `bandsim serve --firmware … --truth FILE` writes in the
# Linux band's truth format. This check:
#   - compares the chip's libm (firmware-sim/board/mps2-an386/libm.c) with glibc on the host:
#     log/exp/sin/cos within 8 ulps, sqrt/ceil/round exact (support/libm-ulps.c);
#   - runs the image under `bandsim serve --firmware` at 3600× with --seed/--start, and the Linux
#     band (`bandsim serve`) with the same options, until each has written 600 minutes of truth:
#     the two files must be equal line for line (every line valid JSON);
#   - the same with a scenario file (weekend-run: a run, the band off), sent to the chip as link
#     0x12 segments, and clock-drift/battery faults (link 0x13): 240 minutes equal, heart rate
#     measured early and not once the battery is at 5 %; a scenario of 48 segments (the chip holds
#     32) or with a fault the chip has no means for: exit 65 naming the file, before QEMU starts;
#   - --truth into a directory that does not exist: exit 1 naming the path, and no QEMU left;
#   - QEMU and bandsim are gone after each run (trap on EXIT also when a step fails).
# Exit 0 ok, 1 failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/scripts/packages.sh"
bash "$root/scripts/ensure-packages.sh" "${FIRMWARE_PACKAGES[@]}"
source "$root/Tests/checks/support/firmware-common.sh"
firmware_check_begin firmware-band bandsim

# 1. The chip's libm against glibc (host build of the same C file, its names prefixed).
cc -O2 -fno-builtin -Dlog=bk_log -Dexp=bk_exp -Dsin=bk_sin -Dcos=bk_cos -Dsqrt=bk_sqrt -Dceil=bk_ceil -Dround=bk_round \
  -c "$root/firmware-sim/board/mps2-an386/libm.c" -o "$work/libm.o"
cc -O2 "$root/Tests/checks/support/libm-ulps.c" "$work/libm.o" -lm -o "$work/libm-ulps"
"$work/libm-ulps" 8 >"$work/libm.log" || fail "the chip's libm is off: $(cat "$work/libm.log")"

elf="$(firmware_image)"

options=(--speed 3600 --seed 11 --start 2026-11-30T06:20:30+01:00)
minutes=600
# Runs `bandsim serve ARGS…` until FILE has $minutes lines (firmware-common.sh).
run_until_minutes() {
  local name=$1 file=$2; shift 2
  serve_until_lines "$file" "$minutes" "$work/$name.log" "$@"
}

started=$(date +%s)
run_until_minutes chip "$work/chip.ndjson" --firmware "$elf" --socket "$work/chip.sock" --truth "$work/chip.ndjson" "${options[@]}"
qemu_pid="$(grep -o 'running in QEMU (pid [0-9]*)' "$work/chip.log" | grep -o '[0-9]*' | tail -1)"
[[ -n "$qemu_pid" ]] || fail "bandsim never said it started QEMU"
! kill -0 "$qemu_pid" 2>/dev/null || fail "QEMU (pid $qemu_pid) still running after bandsim stopped"
grep -q "firmware: band started" "$work/chip.log" || fail "the firmware never said the band started"
chip_seconds=$(( $(date +%s) - started ))
run_until_minutes linux "$work/linux.ndjson" --socket "$work/linux.sock" --truth "$work/linux.ndjson" "${options[@]}"

# Compares the first $minutes lines of two truth files (every line valid JSON, equal line for line).
compare_truth() {
  python3 - "$1" "$2" "$minutes" <<'PY'
import json, sys
chip, linux = (open(path).read().splitlines() for path in sys.argv[1:3])
count = int(sys.argv[3])
for index in range(count):
    for name, lines in (("chip", chip), ("linux", linux)):
        try:
            json.loads(lines[index])
        except ValueError as error:
            sys.exit("firmware-band: %s truth line %d is not JSON (%s): %r" % (name, index + 1, error, lines[index]))
    if chip[index] != linux[index]:
        sys.exit("firmware-band: minute %d differs\n  chip:  %s\n  linux: %s" % (index, chip[index], linux[index]))
worn = sum(1 for line in chip[:count] if json.loads(line)["worn"])
steps = sum(json.loads(line)["steps"] for line in chip[:count])
running = sum(1 for line in chip[:count] if json.loads(line)["activity"] == "running")
print("firmware-band: %d minutes from the chip equal the Linux band's (%d worn, %d running, %d steps)" % (count, worn, running, steps))
PY
}
compare_truth "$work/chip.ndjson" "$work/linux.ndjson" || exit 1

# 2b. A scenario file (link 0x12 segments): the weekend's run and the band off for a shower; with
#     a clock 5,000 ppm fast and the battery at 6 % (link 0x13), so heart-rate measurement stops
#     when it reaches 5 %, on both bands at the same minute.
scenario_options=(--speed 3600 --seed 5 --start 2026-11-30T08:00:00+01:00 --scenario "$root/firmware-sim/scenarios/weekend-run.scenario"
                  --clock-drift 5000 --battery 6)
minutes=240
run_until_minutes chip-scenario "$work/chip-scenario.ndjson" --firmware "$elf" --socket "$work/chip-scenario.sock" \
  --truth "$work/chip-scenario.ndjson" "${scenario_options[@]}"
run_until_minutes linux-scenario "$work/linux-scenario.ndjson" --socket "$work/linux-scenario.sock" \
  --truth "$work/linux-scenario.ndjson" "${scenario_options[@]}"
compare_truth "$work/chip-scenario.ndjson" "$work/linux-scenario.ndjson" || exit 1
grep -q '"activity":"running"' "$work/chip-scenario.ndjson" || fail "the weekend scenario's run is not in the chip's minutes"
python3 - "$work/chip-scenario.ndjson" <<'PY' || fail "the battery fault did not act on the chip's minutes"
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1])][:240]
measured = [i for i, m in enumerate(lines) if m["hr_avg"] is not None]
assert measured and measured[-1] < 230, "heart rate measured through minute %s of 240" % (measured[-1] if measured else None)
print("firmware-band: battery 6 %%: heart rate measured in %d minutes, none after minute %d" % (len(measured), measured[-1]))
PY

# 2c. A scenario the chip cannot run: more than 32 segments, or a fault it has no means for (disconnect-at): exit 65
#     naming the file, before QEMU is started.
for hour in $(seq 0 23); do printf 'at %02d:00 desk\nat %02d:30 walk\n' "$hour" "$hour"; done >"$work/big.scenario"
printf 'at 00:00 desk\nfault disconnect-at=10m\n' >"$work/drop.scenario"
for file in big drop; do
  set +e
  "$bandsim" serve --firmware "$elf" --socket "$work/$file.sock" --scenario "$work/$file.scenario" 2>"$work/$file.log"
  status=$?
  set -e
  [[ $status -eq 65 ]] || fail "--scenario $file.scenario with --firmware exited $status, not 65"
  grep -q "$file.scenario" "$work/$file.log" || fail "the refusal does not name the file: $(cat "$work/$file.log")"
  ! grep -q "running in QEMU" "$work/$file.log" || fail "QEMU was started for a scenario the chip cannot run"
done
grep -q "at most 32" "$work/big.log" || fail "the refusal of 48 segments does not give the chip's limit: $(cat "$work/big.log")"

# 3. An unwritable --truth: exit 1 naming it, before QEMU is started.
set +e
"$bandsim" serve --firmware "$elf" --socket "$work/bad.sock" --truth "$work/missing/truth.ndjson" "${options[@]}" 2>"$work/bad.log"
status=$?
set -e
[[ $status -eq 1 ]] || fail "--truth into a missing directory exited $status, not 1"
grep -q "missing/truth.ndjson" "$work/bad.log" || fail "the --truth error does not name the file: $(cat "$work/bad.log")"
! grep -q "running in QEMU" "$work/bad.log" || fail "QEMU was started although --truth cannot be written"

echo "firmware-band: ok (chip run ${chip_seconds}s; $(sed 's/^libm //' "$work/libm.log" | paste -sd ";" -))"
