# postgres-cluster.sh: a throwaway PostgreSQL cluster for tests. Source it, then call
#   postgres_cluster_start          # sets BANDKIT_TEST_POSTGRES_URL; stops the cluster on EXIT
#   postgres_cluster_down / postgres_cluster_launch  # stop (data kept), start again: an outage of any length
#   postgres_cluster_restart [SECS] # stop and start again (after SECS down), same data (a server restart mid-sync);
#                                   # a test process runs it as: bash -c 'source …/postgres-cluster.sh; postgres_cluster_restart'
#                                   # (start exports POSTGRES_CLUSTER_DIR, _BIN and _OWNER for it)
#   postgres_cluster_stop           # (also run by the EXIT trap, whatever the exit status)
# POSTGRES_CLUSTER_MAX_CONNECTIONS sets the server's max_connections [200] (a benchmark of many writers).
#
# The cluster lives in a fresh temporary directory: data directory, log, and a Unix socket
# (no TCP listener: listen_addresses=''), so nothing outside that directory can reach it. It runs
# as an unprivileged user: the caller when not root; as root (CI), the Debian package's
# `postgres` system user (created when missing), through setpriv, since PostgreSQL refuses to
# run as root. Local connections are trusted (the socket directory is 0700: only its owner
# and root can connect). Binaries: pg_config --bindir, else the newest /usr/lib/postgresql/*/bin.
#
# The URL names the database `bandkit` and user `postgres` (the cluster's superuser):
#   postgresql:///bandkit?host=DIR&port=5432&user=postgres

postgres_cluster_bindir() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do [ -x "$dir/initdb" ] && echo "$dir"; done | sort -V | tail -n 1
}

# Runs a command as the cluster's owner.
postgres_cluster_as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    setpriv --reuid="$POSTGRES_CLUSTER_OWNER" --regid="$POSTGRES_CLUSTER_OWNER" --init-groups -- "$@"
  else
    "$@"
  fi
}

postgres_cluster_start() {
  local bin
  bin="$(postgres_cluster_bindir)"
  [ -n "$bin" ] || { echo "postgres-cluster: no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (apt-get install postgresql)" >&2; return 1; }
  POSTGRES_CLUSTER_BIN="$bin"
  POSTGRES_CLUSTER_DIR="$(mktemp -d "${TMPDIR:-/tmp}/bandkit-pg.XXXXXX")"
  if [ "$(id -u)" -eq 0 ]; then
    POSTGRES_CLUSTER_OWNER=postgres
    id -u postgres >/dev/null 2>&1 || useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin postgres
    chown postgres: "$POSTGRES_CLUSTER_DIR"
  else
    POSTGRES_CLUSTER_OWNER="$(id -un)"
  fi
  chmod 700 "$POSTGRES_CLUSTER_DIR"
  trap postgres_cluster_stop EXIT
  postgres_cluster_as_owner "$bin/initdb" --pgdata="$POSTGRES_CLUSTER_DIR/data" --username=postgres --auth=trust \
    --encoding=UTF8 --locale=C.UTF-8 >"$POSTGRES_CLUSTER_DIR/initdb.log" 2>&1 \
    || { echo "postgres-cluster: initdb failed:" >&2; cat "$POSTGRES_CLUSTER_DIR/initdb.log" >&2; return 1; }
  postgres_cluster_launch || return 1
  postgres_cluster_as_owner "$bin/createdb" --host="$POSTGRES_CLUSTER_DIR" --port=5432 --username=postgres bandkit \
    || { echo "postgres-cluster: createdb failed" >&2; return 1; }
  export BANDKIT_TEST_POSTGRES_URL="postgresql:///bandkit?host=$POSTGRES_CLUSTER_DIR&port=5432&user=postgres"
  # For tests that restart the server (postgres_cluster_restart in a shell of their own).
  export POSTGRES_CLUSTER_DIR POSTGRES_CLUSTER_BIN POSTGRES_CLUSTER_OWNER
}

postgres_cluster_launch() {
  postgres_cluster_as_owner "$POSTGRES_CLUSTER_BIN/pg_ctl" --pgdata="$POSTGRES_CLUSTER_DIR/data" \
    --log="$POSTGRES_CLUSTER_DIR/server.log" --wait --timeout=60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$POSTGRES_CLUSTER_DIR' -c port=5432 -c max_connections=${POSTGRES_CLUSTER_MAX_CONNECTIONS:-200} -c fsync=on" \
    start >/dev/null \
    || { echo "postgres-cluster: the server did not start:" >&2; cat "$POSTGRES_CLUSTER_DIR/server.log" >&2; return 1; }
}

postgres_cluster_restart() {
  postgres_cluster_down
  [ -z "${1:-}" ] || sleep "$1"   # seconds the server stays down (an outage, not only a blip)
  postgres_cluster_launch
}

# Stops the server (pg_ctl stop -m fast), keeping the data: an outage until postgres_cluster_launch.
postgres_cluster_down() {
  postgres_cluster_as_owner "$POSTGRES_CLUSTER_BIN/pg_ctl" --pgdata="$POSTGRES_CLUSTER_DIR/data" --mode=fast --wait stop >/dev/null
}

postgres_cluster_stop() {
  [ -n "${POSTGRES_CLUSTER_DIR:-}" ] || return 0
  if [ -f "$POSTGRES_CLUSTER_DIR/data/postmaster.pid" ]; then
    postgres_cluster_as_owner "$POSTGRES_CLUSTER_BIN/pg_ctl" --pgdata="$POSTGRES_CLUSTER_DIR/data" --mode=immediate --wait stop >/dev/null 2>&1 || true
  fi
  rm -rf "$POSTGRES_CLUSTER_DIR"
  POSTGRES_CLUSTER_DIR=
}

# Runs `swift test --skip-build --filter FILTER` against the running cluster, its log in the
# cluster's directory; prints the failures (with the lines after them) and the summary, and
# returns swift test's status. CHECK names the calling check in its messages.
postgres_cluster_swift_test() {
  local check="$1" filter="$2" log="$POSTGRES_CLUSTER_DIR/swift-test.log" status=0
  swift test --skip-build --filter "$filter" >"$log" 2>&1 || status=$?
  grep -E -A3 "✘|error:|Fatal error|crashed" "$log" | cut -c1-6000 | head -100 || true
  grep -E "^(✔|✘) Test run with" "$log" | tail -1 || true
  [ "$status" -eq 0 ] || echo "$check: swift test --filter '$filter' failed (exit $status)" >&2
  return "$status"
}
