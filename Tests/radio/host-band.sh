#!/usr/bin/env bash
# host-band.sh OUT PORT BIN: the band side of the btvirt stage on the host, outside the guest
# (RADIO_BAND_SIDE=host; run.sh starts it while the guest runs and stops it afterwards). The
# guest's stage (band-side.sh) asks through files in OUT/host-band/ (OUT is the guest's
# $RADIO_OUT over 9p):
#   request  "start LOG ARGS..." runs the band with ARGS (paths relative to OUT), its output in
#            OUT/LOG; "stop" sends it SIGINT and writes its exit status to OUT/host-band/exit.
#            The request file is removed once taken.
# The band speaks H4 to QEMU's chardev socket on 127.0.0.1:PORT, which the guest sees as the
# virtio-serial port bandkit.h4. RADIO_HOST_BAND names the band's command (a shell command
# prefix, given the controller address and ARGS); default: bandsim serve --hci-controller, the
# Linux band on BandKit's own host. The chip (qemu-system-arm with UART0 on tcp:127.0.0.1:PORT)
# goes here instead.
set -uo pipefail
out=$1 port=$2 bin=$3
dir=$out/host-band
mkdir -p "$dir"
band=
if [ -n "${RADIO_HOST_BAND:-}" ]; then read -ra band_command <<< "$RADIO_HOST_BAND"; else band_command=("$bin/bandsim" serve --hci-controller); fi
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
