#!/usr/bin/env bash
# The firmware image's size report (bench/firmware/size-report.py) reads what the linker kept: every
# byte of the map's loaded input sections is counted once, a generic specialised into Main.o is counted
# for the module that declares it, and the areas the budget names (sensor model, crypto, soft-float,
# the GATT server, each service) are found, so docs/firmware.md's "Budget" tables stay true. Then the
# flash budget: the image (llvm-size text + data) stays within 128 KB, less FIRMWARE_HOST_ROOM bytes
# kept free (default 0: the budget is the whole image's, the Bluetooth host included once it is in).
# The hosted builds (--hci, --band) are held to 128 KB too, and the hosted band to 32 KB of RAM beside its minute ring. Builds the images when they are stale (firmware_image).
# Exit 0 ok, 1 failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
source "$root/Tests/checks/support/firmware-common.sh"
elf="$(firmware_image)"
python3 "$root/bench/firmware/size-report.py" "$elf" --json "$work/size.json" >"$work/report.md"
python3 - "$elf" "$work/size.json" "$work/report.md" "${FIRMWARE_HOST_ROOM:-0}" <<'PY'
import json, re, subprocess, sys
elf, rows, report, room = sys.argv[1], json.load(open(sys.argv[2])), open(sys.argv[3]).read(), int(sys.argv[4])
def fail(message):
    sys.exit("firmware-size: " + message)
# Every loaded input section of the map, summed independently of the report's parser.
mapped = 0
for line in open(re.sub(r"\.elf$", ".map", elf)):
    m = re.match(r"^\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ {9}(\S.*?)\s*$", line)
    if m and re.search(r"\((\.(text|rodata|data|bss|ARM\.exidx|vectors)[^)]*|COMMON)\)$", m.group(2)):
        mapped += int(m.group(1), 16)
counted = sum(r["size"] for r in rows)
if counted != mapped:
    fail("the report counts %d bytes, the map's sections hold %d" % (counted, mapped))
respond = [r for r in rows if "GATTServer.respond" in r["name"]]
if not respond or any(r["module"] != "BandGATTServer" or r["origin"] != "Main.o" for r in respond):
    fail("GATTServer.respond's specialisations should be BandGATTServer's, compiled into Main.o: %s"
         % [(r["module"], r["origin"]) for r in respond])
areas = {r["area"] for r in rows if r["size"]}
for wanted in ("sensor model", "crypto", "soft-float", "libm", "GATT server over the band's table",
               "GATT service: history", "GATT service: Heart Rate", "GATT service: pairing", "chip runtime"):
    if not any(area.startswith(wanted) for area in areas):
        fail("no %r area in the report (areas: %s)" % (wanted, sorted(areas)))
for table in ("| by module (declaring) |", "| by area |", "largest | bytes |"):
    if table not in report:
        fail("the report has no %r table" % table)
text, data = map(int, subprocess.run(["llvm-size", elf], capture_output=True, text=True, check=True).stdout.splitlines()[1].split()[:2])
if text + data > 128 * 1024 - room:
    fail("flash %d B: more than 128 KB less the %d B kept free" % (text + data, room))
print("firmware-size: %d B counted in %d pieces, %d areas; flash %d B (%d B under 128 KB): ok"
      % (counted, len(rows), len(areas), text + data, 128 * 1024 - text - data))
PY
# The hosted build (build.sh --hci: the chip's own BLE host, H4 on UART0) has the same budget.
hosted="$(firmware_image --hci)"
read -r text data bss _ < <(llvm-size "$hosted" | awk 'NR == 2')
(( text + data <= 128 * 1024 )) || { echo "firmware-size: the hosted build's flash $((text + data)) B is more than 128 KB" >&2; exit 1; }
echo "firmware-size: hosted build: flash $((text + data)) B ($((128 * 1024 - text - data)) B under 128 KB), data + bss $((data + bss)) B: ok"
# The hosted band (build.sh --band: the band's services behind its own BLE host): the image the
# budget is for. Flash (text + data) within 128 KB, and RAM beside the minute ring within 32 KB:
# data + bss + the heap arena (link.ld's HEAP_SIZE, all of it counted) − the ring (1,440 records
# of 16 B, allocated in the arena at start-up) + a stack allowance of 8 KB, the high-water
# bumble-chip.sh measures on the chip (7,564 B: bring-up, two pairings, two history transfers).
band="$(firmware_image --band)"
read -r text data _ < <(llvm-size "$band" | awk 'NR == 2')
bss=$(llvm-size -A "$band" | awk '$1 == ".bss" { print $2 }')
arena=$(llvm-size -A "$band" | awk '$1 == ".heap" { print $2 }')
ring=$((1440 * 16)) stack_allowance=8192
beside_ring=$((data + bss + arena - ring + stack_allowance))
(( text + data <= 128 * 1024 )) || { echo "firmware-size: the hosted band's flash $((text + data)) B is more than 128 KB ($((text + data - 128 * 1024)) B over)" >&2; exit 1; }
(( beside_ring <= 32 * 1024 )) || { echo "firmware-size: the hosted band's RAM beside the minute ring $beside_ring B is more than 32 KB (data $data + bss $bss + arena $arena − ring $ring + stack $stack_allowance)" >&2; exit 1; }
echo "firmware-size: hosted band: flash $((text + data)) B ($((128 * 1024 - text - data)) B under 128 KB); RAM beside the ring $beside_ring B (data $data + bss $bss + arena $arena − ring $ring + stack $stack_allowance; $((32 * 1024 - beside_ring)) B under 32 KB): ok"
