#!/usr/bin/env bash
# Gateways on PostgreSQL end to end (many gateways share one server, and a server restart in the
# middle of a sync must lose nothing): starts a throwaway cluster
# (Tests/support/postgres-cluster.sh; stopped on EXIT, also when a test fails), then runs
# PostgresGatewaysTests: two `bandsim serve` bands, two
# `band` processes (a stream and a six-day sync) into one store, the cluster restarted
# (pg_ctl stop -m fast, start) in the middle of both; afterwards each band's minutes are in the
# store exactly once with the band's values, and a stale gateway's spool replayed after
# everything was synced changes nothing; and a `band sync` whose server stops mid-sync gives up
# after its store retries (BANDKIT_STORE_RETRY shortens them) with exit 1, the band keeping what was
# not committed for the next sync. Also StoreOutageMachineTests/SpoolFileTests/
# LiveSpoolTests/SpoolReplayTests (the decisions and the spool, no server needed).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/scripts/packages.sh"
"$root/scripts/ensure-packages.sh" postgresql >/dev/null
source "$root/Tests/support/postgres-cluster.sh"
postgres_cluster_start
cd "$root"
echo "==> two gateways, one PostgreSQL, a server restart mid-sync and mid-stream ($BANDKIT_TEST_POSTGRES_URL)"
status=0
postgres_cluster_swift_test postgres-gateways 'PostgresGatewaysTests|StoreOutageMachineTests|SpoolFileTests|LiveSpoolTests|SpoolReplayTests' || status=$?
grep -q "Suite PostgresGatewaysTests passed" "$POSTGRES_CLUSTER_DIR/swift-test.log" \
  || { [ "$status" -ne 0 ] || { echo "postgres-gateways: PostgresGatewaysTests did not run" >&2; status=1; }; }
[ "$status" -eq 0 ] || { echo "postgres-gateways: server log $POSTGRES_CLUSTER_DIR/server.log:" >&2; tail -20 "$POSTGRES_CLUSTER_DIR/server.log" >&2 || true; exit "$status"; }
