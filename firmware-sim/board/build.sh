#!/usr/bin/env bash
# Builds the band's firmware image for QEMU's mps2-an386 (Cortex-M4) with Embedded Swift:
# BandWire, BandATT, BandGATTServer, FirmwareCrypto, UARTFraming, ChipRuntime, BandGATT,
# BandProtocol and BandFirmwareCore (the band's own logic) compiled from the same sources bandsim
# uses, the board's MPS2Board.swift and Main.swift (MainHCI.swift with --hci), start.c and libm.c, linked by link.ld.
#
#   bash firmware-sim/board/build.sh [OUTDIR]         # → OUTDIR/bandkit-m4.elf (default: .build/firmware)
#   bash firmware-sim/board/build.sh --hci [OUTDIR]   # → OUTDIR/bandkit-m4-hci.elf: the hosted build, the
#                                                     #   chip's own BLE host speaking H4 on UART0 (MainHCI.swift)
#   bash firmware-sim/board/build.sh --band [OUTDIR]  # → OUTDIR/bandkit-m4-band.elf: the hosted band, the band's
#                                                     #   services behind its own BLE host (MainBand.swift)
#
# Prints the image's section sizes. Exit 0: built; 1: a compile or link error (printed).
# Needs the Swift toolchain (swiftc, clang, ld.lld) and gcc-arm-none-eabi's libgcc (software double
# arithmetic); docs/firmware.md has the details.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
entry=Main.swift image=bandkit-m4 only="" link_flags=()
# The hosted build links ChipRuntime and what it imports, not the band's logic: only those modules
# are compiled (a module ChipRuntime comes to import must be added here, or its import fails).
if [[ "${1:-}" == --hci ]]; then
  entry=MainHCI.swift image=bandkit-m4-hci only=" BandWire BandHCI BandATT BandGATTServer FirmwareCrypto UARTFraming BandLEHost ChipRuntime "
  shift
elif [[ "${1:-}" == --band ]]; then
  entry=MainBand.swift image=bandkit-m4-band
  # The host's state beside the band's: 4 KB of the stack's 20 KB reservation (the bridge image's
  # high-water is 8.6 KB) go to data and bss.
  link_flags=(--defsym=STACK_SIZE=16384)
  shift
fi
out="${1:-$root/.build/firmware}"
mkdir -p "$out"
rm -f "$out"/*.o "$out"/*.swiftmodule   # stale objects once survived a rebuild here
board="$root/firmware-sim/board/mps2-an386"
target=armv7em-none-none-eabi
swift_flags=(-enable-experimental-feature Embedded -enable-experimental-feature Extern -target "$target" -parse-as-library -wmo -Osize
             -Xfrontend -disable-stack-protector -Xfrontend -function-sections -Xcc -mcpu=cortex-m4 -package-name bandkit -I "$out")
objects=()
# The Embedded-clean rooms' modules in dependency order (scripts/modules.sh).
source "$root/scripts/modules.sh"
while IFS=$'\t' read -r module dir; do
  [[ -z "$only" || "$only" == *" $module "* ]] || continue
  # One array element per file (subfolders included), so a path with spaces stays one argument.
  mapfile -t sources < <(find "$dir" -name '*.swift' | sort)
  swiftc "${swift_flags[@]}" -module-name "$module" -emit-module -emit-module-path "$out/$module.swiftmodule" \
    "${sources[@]}" -c -o "$out/$module.o"
  objects+=("$out/$module.o")
done < <(MODULES_ROOT="$root" embedded_modules)
swiftc "${swift_flags[@]}" -module-name BandKitM4 "$board/MPS2Board.swift" "$board/$entry" -c -o "$out/Main.o"
clang --target="$target" -mcpu=cortex-m4 -mthumb -Os -ffreestanding -fno-builtin -ffunction-sections -Wall -Werror \
  -c "$board/start.c" -o "$out/start.o"
clang --target="$target" -mcpu=cortex-m4 -mthumb -Os -ffreestanding -fno-builtin -ffunction-sections -Wall -Werror \
  -c "$board/libm.c" -o "$out/libm.o"
# The stdlib's Unicode tables, for string code in BandWire the linker keeps (only what is reached).
unicode_tables="$(dirname "$(dirname "$(command -v swiftc)")")/lib/swift/embedded/$target/libswiftUnicodeDataTables.a"
# Double-precision arithmetic in software (__aeabi_dadd …; the Cortex-M4F's FPU is single precision):
# libgcc of gcc-arm-none-eabi for this core without FPU registers (the image's soft-float ABI).
libgcc="$(arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=soft -print-libgcc-file-name 2>/dev/null || true)"
[[ -f "$libgcc" ]] || { echo "build.sh: libgcc for thumb/v7e-m not found: install gcc-arm-none-eabi (scripts/packages.sh)" >&2; exit 1; }
# --gc-sections is not optional: unreached stdlib code refers to C the board does not have (strtod).
# --icf=all folds functions whose code is identical (the same specialisation emitted into two
# modules' objects, outlined helpers): 800 B of flash. Swift never compares function addresses,
# so folding cannot change what the image does (--icf=safe folds nothing: swiftc writes no
# address-significance tables).
ld.lld "${link_flags[@]}" -T "$board/link.ld" -e reset_handler --gc-sections --icf=all "$out/Main.o" "${objects[@]}" "$out/start.o" "$out/libm.o" "$unicode_tables" "$libgcc" \
  -o "$out/$image.elf" -Map "$out/$image.map"
llvm-size -A "$out/$image.elf" | grep -E '^(\.text|\.data|\.bss|\.heap|section|Total)'
echo "firmware image: $out/$image.elf"
