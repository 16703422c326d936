#!/usr/bin/env bash
# The radio path test: BandKit's BlueZ code against the Linux kernel's real
# Bluetooth stack, in a QEMU guest with two btvirt virtual LE controllers.
#
#   bash Tests/radio/run.sh            build release binaries + guest, boot, run every stage
#   RADIO_STAGES=10-probe bash ...      only some stages (names from Tests/radio/stages/)
#   RADIO_ACCEL=kvm                     use KVM instead of TCG (TCG is the default: nested
#                                       KVM on the CI machines does not boot a stock kernel)
#   RADIO_TIMEOUT=1500                  guest wall-time limit in seconds (default 1500)
#   RADIO_SKIP_BUILD=1                  reuse .build/release as is
#   RADIO_FIRMWARE_BRIDGE=1             run stage 25, the chip's bridge build behind the UART bridge
#                                       (bandsim serve --firmware: Linux does its Bluetooth); opt-in
#                                       in this guest, where stage 45 runs the chip on its own host
#   RADIO_FIRMWARE_SPEED=30             band seconds per second of the firmware in stage 25
#   RADIO_HOST_BAND="CMD ARGS"          stage 45's band on the host instead of the chip (e.g.
#                                       "BIN/bandsim serve --hci-controller"), given
#                                       tcp:127.0.0.1:PORT and the stage's arguments
#                                       (Tests/radio/host-band.sh)
#   RADIO_GATEWAY=1                     run stage 50 (opt-in until it passes: the kernel's
#                                       hci_chan_del BUG can hit the bands' side, see the stage)
#   RADIO_KERNEL_BUG=1                  run stage 90, which reproduces a 6.1 kernel BUG (opt-in:
#                                       it breaks the guest's Bluetooth stack; select it alone)
#
# Stage 45's band is the chip: the hosted band image (Embedded Swift for the Cortex-M4, its own
# BLE host, firmware-sim/board/build.sh --band) is built here before the guest boots (cached in
# .build/firmware-checks with the firmware checks' copy) and run by qemu-system-arm on this
# machine, its UART0 on the guest's virtio-serial port (Tests/radio/chip-band.py; docs/firmware.md,
# "On the radio"). Stage 25 (opt-in) runs the bridge build by qemu-system-arm inside the guest.
#
# Exit 0 only when every stage passed in the guest. Skips (exit 0, "SKIPPED" on stderr)
# only when QEMU cannot run here at all: no qemu-system-x86_64 and no way to install it,
# or no TCG accelerator in it. Results: .build/radio/out/ (logs, btsnoop capture, stages).
# After the guest, the btmon capture of the whole session must decode identically with
# `bandsim decode` and tshark (compare-capture.sh).
#
# The checkout may live anywhere, /tmp and paths with spaces included: the guest mounts its own
# tmpfs over /tmp (and /run, /var/tmp), which would hide a checkout there, and the kernel command
# line splits on spaces. So the checkout and the output directory reach the guest as their own
# 9p shares, mounted at fixed space-free paths under the guest's /run/bandkit-radio, and only
# those fixed paths go on the command line.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd -P)
work=$repo/.build/radio
out=$work/out
skip() { echo "SKIPPED radio path test: $*" >&2; exit 0; }

source scripts/packages.sh
if ! bash scripts/ensure-packages.sh "${RADIO_PACKAGES[@]}" tshark; then
  command -v qemu-system-x86_64 > /dev/null || skip "qemu-system-x86_64 is not installed and cannot be installed here (not root)"
  echo "radio: missing packages (see above)" >&2
  exit 1
fi
qemu-system-x86_64 -accel help 2>/dev/null | grep -qx tcg || skip "this qemu-system-x86_64 has no TCG accelerator"
# Whether RADIO_STAGES (a comma list; empty: all) selects stage $1.
stage_selected() { [ -z "${RADIO_STAGES:-}" ] || [[ ",$RADIO_STAGES," == *",$1,"* ]]; }
bridge_stage=
[ -n "${RADIO_FIRMWARE_BRIDGE:-}" ] && stage_selected 25-firmware && bridge_stage=1
chip_stage=
stage_selected 45-btvirt-host && [ -z "${RADIO_HOST_BAND:-}" ] && chip_stage=1
if [ -n "$bridge_stage$chip_stage" ]; then
  bash scripts/ensure-packages.sh "${FIRMWARE_PACKAGES[@]}" || { echo "radio: missing packages for the chip's stages (see above)" >&2; exit 1; }
fi

started=$(date +%s.%N)
if [ -z "${RADIO_SKIP_BUILD:-}" ]; then
  echo "==> radio: swift build -c release"
  swift build -c release 2>&1 | grep -Ev "^\[[0-9]+/[0-9]+\]|^Building|^Compiling|^Write" || true
fi
bin=$(swift build -c release --show-bin-path)
[ -x "$bin/bandradio" ] || { echo "radio: $bin/bandradio missing (release build failed?)" >&2; exit 1; }
bin=$(cd "$bin" && pwd -P)
# Where the guest sees the checkout, the binaries and the output directory.
guest=/run/bandkit-radio
case "$bin" in
  "$repo"/*) guest_bin=$guest/repo/${bin#"$repo"/} ;;
  *) echo "radio: the release binaries ($bin) must be inside the checkout ($repo)" >&2; exit 1 ;;
esac
# QEMU's -virtfs takes comma-separated options: a comma in a path is written twice.
virtfs_path() { printf '%s' "$1" | sed 's/,/,,/g'; }

firmware_option=
root=$repo
source Tests/checks/support/firmware-common.sh
if [ -n "$bridge_stage" ]; then
  echo "==> radio: firmware image, bridge build (Embedded Swift, Cortex-M4)"
  firmware=$(firmware_image) || { echo "radio: the firmware image did not build" >&2; exit 1; }
  firmware_option="radio.firmware_bridge=1 radio.firmware=$guest/repo/${firmware#"$repo"/}"
  [ -n "${RADIO_FIRMWARE_SPEED:-}" ] && firmware_option="$firmware_option radio.firmware_speed=$RADIO_FIRMWARE_SPEED"
fi
chip_image=
if [ -n "$chip_stage" ]; then
  echo "==> radio: firmware image, the band on its own host (Embedded Swift, Cortex-M4)"
  chip_image=$(firmware_image --band) || { echo "radio: the band image did not build" >&2; exit 1; }
  firmware_option="$firmware_option radio.host_chip=1"
fi

# Stage 45's band runs here on the host; its H4 link reaches the guest's btvirt through a
# virtio-serial port (QEMU's chardev socket on a free local port, which the band connects to).
host_band_options=()
host_band=
if stage_selected 45-btvirt-host; then
  host_band_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  host_band_options=(-device virtio-serial-pci -device virtserialport,chardev=bandh4,name=bandkit.h4
    -chardev "socket,id=bandh4,host=127.0.0.1,port=$host_band_port,server=on,wait=off")
fi

echo "==> radio: guest image"
bash Tests/radio/build-guest.sh "$work"
rm -rf "$out"
mkdir -p "$out"
if [ -n "${host_band_port:-}" ]; then
  bash Tests/radio/host-band.sh "$out" "$host_band_port" "$bin" "$chip_image" > "$out/host-band.log" 2>&1 &
  host_band=$!
  trap 'kill $host_band 2>/dev/null; wait $host_band 2>/dev/null' EXIT
fi

accel=${RADIO_ACCEL:-tcg}
if [ "$accel" = kvm ] && [ -w /dev/kvm ]; then machine=(-enable-kvm -cpu host); else accel=tcg; machine=(-accel tcg -cpu max); fi
# no_timer_check: on a loaded machine TCG runs the guest so slowly that the kernel's IO-APIC timer
# check fails and it panics at boot ("IO-APIC + timer doesn't work").
echo "==> radio: booting the guest ($accel)"
booted=$(date +%s.%N)
set +e
timeout "${RADIO_TIMEOUT:-1500}" qemu-system-x86_64 "${machine[@]}" -smp 2 -m 1024 -nographic -no-reboot \
  -kernel "$work/vmlinuz" -initrd "$work/initramfs.cpio.gz" \
  -append "console=ttyS0 quiet loglevel=4 panic=-1 no_timer_check radio.script=$guest/repo/Tests/radio/scenario.sh radio.out=$guest/out radio.bin=$guest_bin radio.stages=${RADIO_STAGES:-} radio.virtual=1 ${RADIO_KERNEL_BUG:+radio.kernel_bug=1} ${RADIO_GATEWAY:+radio.gateway=1} $firmware_option" \
  -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
  -virtfs "local,path=$(virtfs_path "$repo"),mount_tag=radiorepo,security_model=none,readonly=on,multidevs=remap" \
  -virtfs "local,path=$(virtfs_path "$out"),mount_tag=radioout,security_model=none" \
  "${host_band_options[@]}" -nic none > "$out/console.log" 2>&1
qemu_status=$?
if [ -n "$host_band" ]; then kill "$host_band" 2>/dev/null; wait "$host_band" 2>/dev/null; trap - EXIT; cat "$out/host-band.log"; fi
set -e
finished=$(date +%s.%N)
guest_seconds=$(echo "$finished $booted" | awk '{ printf "%.1f", $1 - $2 }')
total_seconds=$(echo "$finished $started" | awk '{ printf "%.1f", $1 - $2 }')

sed -e 's/\r$//' "$out/console.log" | grep -v "^\s*$" || true
echo "==> radio: guest wall time ${guest_seconds} s ($accel), total with build ${total_seconds} s"
[ -f "$out/stages" ] && sed 's/^/    stage /' "$out/stages"
if [ "$qemu_status" = 124 ]; then
  echo "radio: FAILED: the guest ran past ${RADIO_TIMEOUT:-1500} s and was stopped" >&2
  exit 1
fi
if [ ! -f "$out/guest-status" ]; then
  echo "radio: FAILED: the guest stopped without a result (qemu exit $qemu_status; see $out/console.log)" >&2
  exit 1
fi
status=$(cat "$out/guest-status")
[ "$status" = 0 ] || { echo "radio: FAILED (guest scenario exit $status)" >&2; exit 1; }
# The whole session's btmon capture: bandsim decode must see what tshark sees.
bash Tests/radio/compare-capture.sh "$bin/bandsim" "$out/radio.btsnoop" || { echo "radio: FAILED (capture decoding)" >&2; exit 1; }
echo "radio: passed (guest ${guest_seconds} s)"
