#!/usr/bin/env bash
# Builds the band's firmware image for QEMU's mps2-an386 (Cortex-M4) with Embedded Swift:
# BandWire, BandATT, BandGATTServer, FirmwareCrypto, UARTFraming and FirmwareBoard compiled from
# the same sources bandsim uses, the board's Main.swift and start.c, linked by link.ld.
#
#   bash firmware-sim/board/build.sh [OUTDIR]     # → OUTDIR/bandkit-m4.elf (default: .build/firmware)
#
# Prints the image's section sizes. Exit 0: built; 1: a compile or link error (printed).
# Needs only the Swift toolchain (swiftc, clang, ld.lld); docs/firmware.md has the details.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/.build/firmware}"
mkdir -p "$out"
rm -f "$out"/*.o "$out"/*.swiftmodule   # stale objects once survived a rebuild here
board="$root/firmware-sim/board/mps2-an386"
target=armv7em-none-none-eabi
swift_flags=(-enable-experimental-feature Embedded -target "$target" -parse-as-library -wmo -Osize
             -Xfrontend -disable-stack-protector -Xfrontend -function-sections -Xcc -mcpu=cortex-m4 -I "$out")
objects=()
for module in BandWire BandATT BandGATTServer FirmwareCrypto UARTFraming FirmwareBoard; do
  dir="$root/Sources/$module"; [[ -d "$dir" ]] || dir="$root/firmware-sim/Sources/$module"
  swiftc "${swift_flags[@]}" -module-name "$module" -emit-module -emit-module-path "$out/$module.swiftmodule" \
    "$dir"/*.swift -c -o "$out/$module.o"
  objects+=("$out/$module.o")
done
swiftc "${swift_flags[@]}" -module-name BandKitM4 "$board/Main.swift" -c -o "$out/Main.o"
clang --target="$target" -mcpu=cortex-m4 -mthumb -Os -ffreestanding -fno-builtin -ffunction-sections -Wall -Werror \
  -c "$board/start.c" -o "$out/start.o"
# The stdlib's Unicode tables, for string code in BandWire the linker keeps (only what is reached).
unicode_tables="$(dirname "$(dirname "$(command -v swiftc)")")/lib/swift/embedded/$target/libswiftUnicodeDataTables.a"
ld.lld -T "$board/link.ld" -e reset_handler --gc-sections "$out/Main.o" "${objects[@]}" "$out/start.o" "$unicode_tables" \
  -o "$out/bandkit-m4.elf" -Map "$out/bandkit-m4.map"
llvm-size -A "$out/bandkit-m4.elf" | grep -E '^(\.text|\.data|\.bss|\.heap|section|Total)'
echo "firmware image: $out/bandkit-m4.elf"
