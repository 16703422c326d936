# The firmware checks' and bench's shared QEMU set-up (sourced by Tests/checks/firmware-qemu.sh,
# firmware-bridge.sh, firmware-band.sh, firmware-flash.sh, firmware-reader.sh, firmware-reset.sh and
# bench/firmware/mcu.sh; needs $root, and $work — which firmware_check_begin makes).
#
#   firmware_check_begin NAME TOOL…
#                             → the opening of the checks that drive bandsim: TOOL… (bandsim, band,
#                               health) must be built in $BANDKIT_BIN (default .build/debug); sets $bin,
#                               $bandsim and $band, makes $work (kept when $FIRMWARE_CHECK_WORK names a
#                               directory), arms an EXIT trap that stops $serve_pid (and QEMU) and
#                               removes $work, and defines fail MESSAGE (message, the logs' tails, exit 1)
#   firmware_image [--hci|--band]
#                             → prints the path of an up-to-date bandkit-m4.elf (bandkit-m4-hci.elf:
#                               the hosted bring-up build, H4 on UART0; bandkit-m4-band.elf: the hosted
#                               band, H4 on UART0 and its configuration and frames on UART1)
#   hosted_band_qemu DIR ELF UART0 UART1 [QEMU-ARGS…]
#                             → execs qemu-system-arm (mps2-an386) with a hosted image: UART0 (H4, the
#                               controller) and UART1 (the debug port) on the QEMU chardev backends
#                               UART0 and UART1 (e.g. socket,host=127.0.0.1,port=N or socket,path=P,
#                               without an id), its flash file bandkit-m4.flash in DIR; no time limit
#                               (the caller bounds it). The way every check starts the hosted band.
#   firmware_boot ELF [ARGS]  → boots it in qemu-system-arm (mps2-an386), UART0 on $work/uart.sock
#                               (QEMU waits for the client), UART1 (the hosted build's debug port)
#                               into $work/debug.log, flash file in $work, at most 120 s;
#                               sets qemu_pid (timeout's PID: a TERM reaches QEMU)
#   firmware_stop             → stops that QEMU and waits for it (the callers' EXIT traps call it)
#   stop_process PID          → SIGTERM to PID if it still runs, then waits for it (bandsim, QEMU)
#   serve_until_lines FILE N LOG ARGS…
#                             → runs `$bandsim serve ARGS…` (stderr to LOG) until FILE has N lines (at
#                               most 180 s), then SIGTERM and wait; sets serve_pid while it runs (the
#                               caller's EXIT trap stops it); calls the caller's fail() if it ends early

# The image is built once into .build/firmware-checks and reused while no source it is made of is
# newer (the build takes minutes on a loaded machine; four scripts use it). A lock keeps two
# checks run at once from building over each other. The build's log is printed when it fails.
firmware_image() {
  local cache="$root/.build/firmware-checks" elf mode=()
  elf="$cache/bandkit-m4.elf"
  if [[ "${1:-}" == --hci ]]; then mode=(--hci); elf="$cache/bandkit-m4-hci.elf"; fi
  if [[ "${1:-}" == --band ]]; then mode=(--band); elf="$cache/bandkit-m4-band.elf"; fi
  mkdir -p "$cache"
  (
    flock 9
    local sources=("$root/firmware-sim/board" "$root/scripts/modules.sh" "$root/Sources/Core" "$root/firmware-sim/Sources/Embedded")
    if [[ ! -f "$elf" || -n "$(find "${sources[@]}" -newer "$elf" -type f -print -quit)" ]]; then
      rm -f "$elf"
      bash "$root/firmware-sim/board/build.sh" "${mode[@]}" "$cache" >"$cache/build.log" 2>&1 || { cat "$cache/build.log" >&2; exit 1; }
    fi
  ) 9>"$cache/.lock" || return 1
  echo "$elf"
}

firmware_boot() {
  local elf=$1; shift
  rm -f "$work/uart.sock"
  (cd "$work" && exec timeout 120 qemu-system-arm -M mps2-an386 -nographic -monitor none "$@" \
      -chardev socket,id=uart,path="$work/uart.sock",server=on,wait=on -serial chardev:uart -serial file:"$work/debug.log" \
      -semihosting-config enable=on,target=native -kernel "$elf" >>"$work/qemu.log" 2>&1) &
  qemu_pid=$!
}

hosted_band_qemu() {
  local dir=$1 elf=$2 uart0=$3 uart1=$4
  shift 4
  cd "$dir" && exec qemu-system-arm -M mps2-an386 -nographic -monitor none "$@" \
    -chardev "$uart0,id=uart0" -serial chardev:uart0 -chardev "$uart1,id=uart1" -serial chardev:uart1 \
    -semihosting-config enable=on,target=native -kernel "$elf"
}

stop_process() {
  if [[ -n "${1:-}" ]] && kill -0 "$1" 2>/dev/null; then kill "$1"; wait "$1" 2>/dev/null || true; fi
}

serve_until_lines() {
  local file=$1 lines=$2 log=$3; shift 3
  "$bandsim" serve "$@" 2>>"$log" &
  serve_pid=$!
  local deadline=$(( $(date +%s) + 180 ))
  until [[ -f "$file" && $(wc -l <"$file") -ge $lines ]]; do
    kill -0 "$serve_pid" 2>/dev/null || fail "$(basename "$log" .log): bandsim ended before $lines minutes of truth"
    (( $(date +%s) < deadline )) || fail "$(basename "$log" .log): fewer than $lines minutes of truth after 180 s"
    sleep 0.2
  done
  kill "$serve_pid"
  wait "$serve_pid" || true
  serve_pid=""
}

firmware_stop() {
  stop_process "${qemu_pid:-}"
  qemu_pid=""
}

firmware_check_begin() {
  check_name=$1
  shift
  bin="${BANDKIT_BIN:-$root/.build/debug}"
  local tool
  for tool in "$@"; do
    [ -x "$bin/$tool" ] || { echo "$check_name: $bin/$tool not built" >&2; exit 1; }
  done
  bandsim="$bin/bandsim"
  band="$bin/band"
  work="${FIRMWARE_CHECK_WORK:-$(mktemp -d)}"
  mkdir -p "$work"
  serve_pid=""
  qemu_pid=""
  trap firmware_check_end EXIT
  fail() { echo "$check_name: $*" >&2; tail -20 "$work"/*.log >&2 2>/dev/null || true; exit 1; }
}

firmware_check_end() {
  stop_process "$serve_pid"
  firmware_stop
  [ -n "${FIRMWARE_CHECK_WORK:-}" ] || rm -rf "$work"
}
