#!/usr/bin/env bash
# host-band.sh OUT PORT BIN [CHIP_IMAGE]: the band side of the btvirt stage on the host, outside the guest
# (RADIO_BAND_SIDE=host; run.sh starts it while the guest runs and stops it afterwards). The
# guest's stage (band-side.sh) asks through files in OUT/host-band/ (OUT is the guest's
# $RADIO_OUT over 9p):
#   request  "start LOG ARGS..." runs the band with ARGS (paths relative to OUT), its output in
#            OUT/LOG; "stop" sends it SIGINT and writes its exit status to OUT/host-band/exit.
#            The request file is removed once taken.
# The band speaks H4 to QEMU's chardev socket on 127.0.0.1:PORT, which the guest sees as the
# virtio-serial port bandkit.h4. The band is the chip: CHIP_IMAGE (run.sh passes the hosted
# band image, firmware-sim/board/build.sh --band) run by chip-band.py, qemu-system-arm with UART0
# on tcp:127.0.0.1:PORT. RADIO_HOST_BAND names another command instead (a shell command prefix,
# given the controller address and ARGS), e.g. "BIN/bandsim serve --hci-controller", the Linux
# band on BandKit's own host.
set -uo pipefail
out=$1 port=$2 bin=$3 chip_image=${4:-}
here=$(cd "$(dirname "$0")" && pwd -P)
dir=$out/host-band
mkdir -p "$dir"
band=
if [ -n "${RADIO_HOST_BAND:-}" ]; then read -ra band_command <<< "$RADIO_HOST_BAND"
elif [ -n "$chip_image" ]; then band_command=(python3 "$here/chip-band.py" "$here/../checks/support/firmware-common.sh" "$chip_image")
else band_command=("$bin/bandsim" serve --hci-controller); fi
stop_band() {
  [ -n "$band" ] || return 0
  kill -INT "$band" 2>/dev/null
  wait "$band"; echo $? > "$dir/exit.new"; mv "$dir/exit.new" "$dir/exit"
  band=
}
trap 'stop_band; exit 0' TERM INT
while :; do
  if [ -e "$dir/request" ]; then
    read -r verb log arguments < "$dir/request"
    case "$verb" in
      start)
        stop_band
        rm -f "$dir/exit"
        # shellcheck disable=SC2086 # the request's arguments are space-free words
        (cd "$out" && exec "${band_command[@]}" "tcp:127.0.0.1:$port" $arguments) > "$out/$log" 2>&1 &
        band=$!
        echo "host-band: started $band: $arguments" ;;
      stop) stop_band; echo "host-band: stopped, exit $(cat "$dir/exit" 2>/dev/null)" ;;
      *) echo "host-band: unknown request '$verb'" >&2 ;;
    esac
    rm -f "$dir/request"
  fi
  # A band that ended by itself: its status, for the stage waiting on it.
  if [ -n "$band" ] && ! kill -0 "$band" 2>/dev/null; then
    wait "$band"; echo $? > "$dir/exit.new"; mv "$dir/exit.new" "$dir/exit"; band=
    echo "host-band: the band ended by itself, exit $(cat "$dir/exit")"
  fi
  sleep 0.2
done
