#!/usr/bin/env bash
# How soon `health serve --store postgresql://…` pushes a change to an open /events stream:
# a throwaway cluster (Tests/support/postgres-cluster.sh, stopped on EXIT), the debug `health` of
# `swift build`, one stream kept open, then WRITES (default 10) `health add` processes one after
# another; for each, the time from the writer's exit to `event: change` on the stream. The event
# can come before the writer has exited (it commits first), so 0 ms is a real answer. Not in CI.
#
#   bash bench/dashboard/events-postgres.sh [WRITES]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$root/.build/debug"
writes="${1:-10}"
source "$root/Tests/support/postgres-cluster.sh"
postgres_cluster_start   # its EXIT trap stops the cluster; ours below stops the server first
url="$BANDKIT_TEST_POSTGRES_URL"
work="$(mktemp -d)"
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; rm -rf "$work"; postgres_cluster_stop; }
trap cleanup EXIT
"$bin/health" --store "$url" add step-count 1 --start 2026-11-30T20:00:00Z --end 2026-11-30T20:01:00Z >/dev/null
"$bin/health" --store "$url" serve --port 0 >"$work/serve.out" 2>&1 &
server=$!
for _ in $(seq 200); do grep -q "http://" "$work/serve.out" 2>/dev/null && break; sleep 0.05; done
port="$(grep -o '127.0.0.1:[0-9]*' "$work/serve.out" | cut -d: -f2)"
[ -n "$port" ] || { echo "events-postgres: health serve printed no address" >&2; cat "$work/serve.out" >&2; exit 1; }
python3 - "$port" "$bin/health" "$url" "$writes" <<'PY'
import socket, subprocess, sys, time
port, health, url, writes = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
stream = socket.create_connection(("127.0.0.1", port))
stream.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
stream.settimeout(30)
received = b""
while b"event: hello" not in received: received += stream.recv(4096)
time.sleep(1.5)  # past the stream's first wait slice: its LISTEN connection is up
latencies = []
for i in range(writes):
    minute = "2026-11-30T%02d:%02d" % (i // 60 % 24, i % 60)
    subprocess.run([health, "--store", url, "add", "step-count", str(i + 2), "--start", minute + ":00Z", "--end", minute + ":30Z"],
                   check=True, capture_output=True)
    exited = time.monotonic()
    received = b""
    while b"event: change" not in received: received += stream.recv(4096)
    latencies.append(time.monotonic() - exited)
    time.sleep(0.3)
latencies.sort()
print("events-postgres: %d writes; event after the writer's exit: median %.1f ms, worst %.1f ms"
      % (len(latencies), latencies[len(latencies) // 2] * 1000, latencies[-1] * 1000))
PY
