#!/usr/bin/env bash
# The store on PostgreSQL: starts a throwaway cluster (Tests/support/postgres-cluster.sh: initdb
# and pg_ctl as an unprivileged user, a Unix socket in a temporary directory, stopped on EXIT
# also when a test fails), then runs the store-level test suites against it: every test that
# makes its store with TemporaryStore gets a fresh schema in that database
# (BANDKIT_TEST_POSTGRES_URL), and the engine's own suites (HealthStorePostgreSQLTests: libpq's layer,
# batches, LISTEN/NOTIFY, and PostgresConcurrencyTests: writers of several people at once, each
# person's change feed polled meanwhile sees every change once). WorkoutFilesCommandTests run too (FIT import, GPX/TCX/FIT export).
# AppleHealthImportTests run too: `health import export.zip|xml`
# and `health export --format apple-health` as processes on a PostgreSQL store (the bulk write
# path, merged hours, the streaming export, rollback of a killed import). ServeCommandTests run
# too: `health serve --store postgresql://…` answers its pages, and its live events come from the
# change feed over LISTEN/NOTIFY on one connection per server process, however many pages listen,
# while another process writes, and a killed listener reaches pages as an error that names nothing
# of the deployment (liveEventsOnPostgreSQLComeFromOneListeningConnection, which stops the server and so
# runs alone, after the others). The same suites
# run on SQLite in the ordinary test run.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/scripts/packages.sh"
"$root/scripts/ensure-packages.sh" postgresql >/dev/null
source "$root/Tests/support/postgres-cluster.sh"
postgres_cluster_start
cd "$root"
echo "==> store suites, Apple Health import and the dashboard server on PostgreSQL ($BANDKIT_TEST_POSTGRES_URL)"
postgres_cluster_swift_test postgres 'HealthStoreTests|HealthStorePostgreSQLTests|AppleHealthImportTests|ServeCommandTests|WorkoutFilesCommandTests'
# The outage test stops the server: alone, so no other suite's connection dies under it.
echo "==> the dashboard's change feed through a server outage (alone on the cluster)"
BANDKIT_TEST_POSTGRES_OUTAGE=1 postgres_cluster_swift_test postgres-outage 'ServeCommandTests/liveEventsOnPostgreSQLComeFromOneListeningConnection'
grep -q "Test liveEventsOnPostgreSQLComeFromOneListeningConnection() passed" "$POSTGRES_CLUSTER_DIR/swift-test.log" \
  || { echo "postgres: the outage test did not run" >&2; exit 1; }
