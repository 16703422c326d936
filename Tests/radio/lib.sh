# Helpers for the in-guest scripts (POSIX sh; sourced).
uptime_seconds() { cut -d' ' -f1 /proc/uptime; }
elapsed_since() { echo "$(uptime_seconds) $1" | awk '{ printf "%.1f", $1 - $2 }'; }
step() { echo "=== [$(uptime_seconds) s] $*"; }
fail() { echo "FAIL: $*"; exit 1; }

# wait_for WHAT TENTHS COMMAND...: polls COMMAND every 0.1 s, up to TENTHS times.
wait_for() {
  what=$1; tries=$2; shift 2
  i=0
  while [ "$i" -lt "$tries" ]; do
    "$@" > /dev/null 2>&1 && return 0
    sleep 0.1
    i=$((i + 1))
  done
  echo "timed out waiting for $what"
  return 1
}

# An LE link lingers a few seconds after its last socket closes, and a new ATT listener
# created meanwhile never sees the next connection: wait until hciN has no LE link.
no_le_link() { ! hcitool -i "$1" con | grep -q LE; }
wait_link_down() { wait_for "the LE link on $1 to go down" 150 no_le_link "$1"; }

# The BD_ADDR an adapter reports (mgmt Read Controller Information through bandradio).
adapter_address() { "$RADIO_BIN/bandradio" info --hci "$1" | sed -n 's/.* address \([0-9A-F:]*\) .*/\1/p'; }

# start_serve LOG ARGS...: `bandsim serve ARGS` in the background, stdout and stderr in LOG; sets
# $server and an EXIT trap that stops it and shows LOG's tail; returns once it listens (within
# $serve_wait_tenths tenths of a second, default 200).
start_serve() {
  serve_log=$1; shift
  "$RADIO_BIN/bandsim" serve "$@" > "$serve_log" 2>&1 &
  server=$!
  trap 'kill $server 2>/dev/null; echo "--- bandsim serve log (tail)"; tail -40 "$serve_log"' EXIT
  wait_for "bandsim serve to listen" "${serve_wait_tenths:-200}" grep -q "listening" "$serve_log" || fail "bandsim serve $* did not start"
  head -1 "$serve_log"
}

# scan_for KIND JSON: `band scan` on the reader's adapter, up to three times, until a device
# `band scan` calls KIND shows; sets $address (empty when none did) and keeps the last scan in JSON.
scan_for() {
  step "band scan --hci $RADIO_READER_HCI for a $1 device"
  address=
  for attempt in 1 2 3; do
    "$RADIO_BIN/band" scan --hci "$RADIO_READER_HCI" --timeout 4 --json > "$2" 2>&1
    address=$(sed -n "s/.*\"address\":\"\([0-9A-F:]*\)\".*\"kind\":\"$1\".*/\1/p" "$2" | head -1)
    [ -n "$address" ] && break
    echo "(scan attempt $attempt did not see it)"
  done
  cat "$2"
}
