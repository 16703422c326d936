#!/usr/bin/env bash
# The store on PostgreSQL: starts a throwaway cluster (Tests/support/postgres-cluster.sh: initdb
# and pg_ctl as an unprivileged user, a Unix socket in a temporary directory, stopped on EXIT
# also when a test fails), then runs the store-level test suites against it: every test that
# makes its store with TemporaryStore gets a fresh schema in that database
# (BANDKIT_TEST_POSTGRES_URL). The same suites run on SQLite in the ordinary test run.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/scripts/packages.sh"
"$root/scripts/ensure-packages.sh" postgresql >/dev/null
source "$root/Tests/support/postgres-cluster.sh"
postgres_cluster_start
cd "$root"
echo "==> store suites on PostgreSQL ($BANDKIT_TEST_POSTGRES_URL)"
swift test --skip-build --filter 'HealthStoreTests|PostgresStoreTests' 2>&1 | tail -n 40
