# The band side of the btvirt stages (POSIX sh; sourced after lib.sh): a band whose Bluetooth
# host is BandKit's own, speaking H4 to one of btvirt's emulated LE controllers (`btvirt -s`,
# the server socket /tmp/bt-server-le: a fresh controller per connection, on the same virtual
# radio as the guest kernel's hci0 and hci1). h4-relay.py joins the two.
#
# RADIO_BAND_SIDE picks where the band runs; the stage only calls these functions:
#   guest  bandsim serve --hci-controller tcp:127.0.0.1:PORT in this guest; the relay listens there
#   host   the band runs on the host, outside the guest (host-band.sh, started by run.sh): its H4
#          link reaches this guest through a virtio-serial port (QEMU chardev socket on the host,
#          /dev/vportNpM here) and the relay joins that port to btvirt. This is the chip's path:
#          qemu-system-arm with its UART0 on that chardev stands in for bandsim there.
#
#   band_side_start LOG ARGS...  start the band (ARGS: bandsim serve's, with paths relative to
#                                $RADIO_OUT, where the band runs); return once it listens
#   band_side_stop               SIGINT; sets $band_side_status to its exit status
#   band_side_cleanup            stop whatever is still running (for EXIT traps)
#   band_side_hold_history       arms the relay: after $history_hold_packets History Data
#                                notifications it holds the band's data (h4-relay.py
#                                --hold-history-after), so a link dropped then drops inside a slice
band_side=${RADIO_BAND_SIDE:-guest}
relay=
relay_port=47011
# Well inside the first slice of 1,440 records: 24 packets are 360 records at ATT_MTU 247 (the
# chip's), 744 at 517.
history_hold_packets=24
host_band_dir=$RADIO_OUT/host-band

start_relay() {
  controller=/tmp/bt-server-le
  wait_for "btvirt's LE server socket" 50 test -S "$controller" || fail "no $controller: btvirt was not started with -s"
  if [ "$band_side" = host ]; then
    port=
    for port_name in /sys/class/virtio-ports/*/name; do
      [ "$(cat "$port_name" 2>/dev/null)" = bandkit.h4 ] && port=/dev/$(basename "$(dirname "$port_name")")
    done
    [ -n "$port" ] || fail "no virtio-serial port named bandkit.h4 (run.sh adds it for the host band side)"
    python3 "$(dirname "$0")/../h4-relay.py" --port "$port" --controller "$controller" --hold-history-after "$history_hold_packets" > "$1" 2>&1 &
  else
    # The guest's loopback interface is down until someone brings it up.
    ip link set lo up || fail "cannot bring the loopback interface up"
    python3 "$(dirname "$0")/../h4-relay.py" --listen "$relay_port" --controller "$controller" --hold-history-after "$history_hold_packets" > "$1" 2>&1 &
  fi
  relay=$!
  relay_log=$1
  wait_for "the H4 relay" 100 grep -q "listening\|waiting" "$1" || { cat "$1"; fail "h4-relay.py did not start"; }
}

# host_band_request LINE: hands LINE to host-band.sh and waits until it has taken it.
host_band_request() {
  echo "$1" > "$host_band_dir/request.new" && mv "$host_band_dir/request.new" "$host_band_dir/request"
  wait_for "the host's band side to take '$1'" 300 test ! -e "$host_band_dir/request" || fail "host-band.sh is not answering (is run.sh's agent running?)"
}

band_side_start() {
  side_log=$1; shift
  [ -n "$relay" ] || start_relay "$(dirname "$side_log")/relay.log"
  if [ "$band_side" = host ]; then
    rm -f "$host_band_dir/exit"
    host_band_request "start ${side_log#"$RADIO_OUT"/} $*"
    side_pid=host
  else
    (cd "$RADIO_OUT" && exec "$RADIO_BIN/bandsim" serve --hci-controller "tcp:127.0.0.1:$relay_port" "$@") > "$side_log" 2>&1 &
    side_pid=$!
  fi
  wait_for "the band to listen" "${band_side_wait_tenths:-300}" band_side_settled
  grep -q "listening" "$side_log" || { cat "$side_log"; fail "the band side did not start"; }
  head -1 "$side_log"
}

# Whether the band listens, or has ended already (a band in this guest that exited).
band_side_settled() {
  grep -q "listening" "$side_log" && return 0
  if [ "$side_pid" = host ]; then test -s "$host_band_dir/exit"; else ! kill -0 "$side_pid" 2>/dev/null; fi
}

band_side_stop() {
  band_side_status=
  if [ "$side_pid" = host ]; then
    host_band_request stop
    wait_for "the host's band side to end" 300 test -s "$host_band_dir/exit" || fail "the host's band side did not end"
    band_side_status=$(cat "$host_band_dir/exit")
  elif [ -n "$side_pid" ]; then
    kill -INT "$side_pid"; wait "$side_pid"; band_side_status=$?
  fi
  side_pid=
}

band_side_cleanup() {
  if [ "$side_pid" = host ]; then host_band_request stop; elif [ -n "${side_pid:-}" ]; then kill "$side_pid" 2>/dev/null; fi
  side_pid=
  [ -n "$relay" ] && kill "$relay" 2>/dev/null
  relay=
}

band_side_hold_history() {
  kill -USR1 "$relay" || fail "the relay is gone"
  wait_for "the relay to arm its hold" 100 grep -q "armed: holding" "$relay_log" || fail "h4-relay.py did not arm its hold"
}
