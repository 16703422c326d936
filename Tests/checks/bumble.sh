#!/usr/bin/env bash
# The band's own Bluetooth host against an independent controller and central: two Bumble
# controllers (PyPI `bumble`, pinned, in a venv under .build) on one simulated radio; bandsim
# serve --hci-controller drives the first over TCP, Tests/bumble/central.py is the central on the
# second: legacy pairing refused, a wrong then the right passkey (LE Secure Connections), the
# history read through the activity service equal to the band's truth minute for minute, and a
# re-encryption with the stored bond after bandsim restarts. Also: an absent controller, one that
# speaks no H4, and a bad argument give their exit codes. Every process started here is stopped
# on the way out, failures included.
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --product bandsim 2>&1 | grep -E "error" || true
bin="$(swift build --show-bin-path)"
source Tests/checks/support/checks-venv.sh
checks_venv "bumble==0.0.236"

work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}" $(cat "$work/bandsim.pid" 2>/dev/null); do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

expect_exit() {  # expect_exit CODE MESSAGE-PATTERN -- ARGS…
  local code="$1" pattern="$2"; shift 3
  set +e; "$bin/bandsim" "$@" 2>"$work/err"; local got=$?; set -e
  if [ "$got" -ne "$code" ] || ! grep -qE "$pattern" "$work/err"; then
    echo "bandsim $* exited $got (expected $code) saying: $(cat "$work/err")" >&2; exit 1
  fi
}
expect_exit 64 "not a controller" -- serve --hci-controller tcp:localhost
expect_exit 64 "do not go together" -- serve --hci-controller /dev/ttyS0 --hci hci0
expect_exit 1 "cannot open the controller: open $work/none" -- serve --hci-controller "$work/none"
expect_exit 1 "not a terminal" -- serve --hci-controller /dev/null
# A TCP peer that answers HCI Reset with garbage: bring-up never ends, and bandsim says so.
"$venv/bin/python" -c '
import socket, sys, time
server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(1)
print(server.getsockname()[1], flush=True)
client, _ = server.accept(); client.recv(64); client.sendall(bytes(range(0x10, 0x60))); time.sleep(10)
' >"$work/port" &
pids+=($!)
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
expect_exit 1 "no answer to (Reset|bring-up)" -- serve --hci-controller "tcp:127.0.0.1:$(cat "$work/port")"

"$venv/bin/python" Tests/bumble/central.py "$bin/bandsim" "$work" || { echo "--- bandsim log"; cat "$work/bandsim.log"; exit 1; } >&2
echo "bumble: ok"
