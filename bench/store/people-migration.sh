#!/usr/bin/env bash
# The people migration on a store written by the previous release (bench, not CI; ~1 min of CPU, ~500 MB of temp files).
#
#   bash bench/store/people-migration.sh OLD_HEALTH [DAYS]
#
# OLD_HEALTH is a `health` binary from before the people migration (e.g. main's .build/release/health at
# 37c7ac0). It writes DAYS (default 365) of minute data into a store: step counts from two sources and heart
# rate from one (1,576,800 samples for a year). Then the migration's SQL (extracted from
# Sources/Health/HealthStore/Schema/Migrations.swift) runs in the sqlite3 CLI on a copy and is timed, and this
# checkout's `health` reads a second copy read-only (temporary views) and again after migrating it: its daily
# step totals and weekly heart-rate maxima must be byte for byte the old binary's.
set -euo pipefail
cd "$(dirname "$0")/../.."
old=${1:?usage: people-migration.sh OLD_HEALTH [DAYS]}
days=${2:-365}
work=$(mktemp -d /tmp/bandkit-people-migration.XXXXXX)
trap 'rm -rf "$work"' EXIT
umask 077
swift build --product health 2>&1 | grep -E "error|Build" | tail -1
new=.build/debug/health
python3 bench/store/people-migration-data.py "$days" "$work/data.ndjson"
"$old" --store "$work/old.sqlite" import "$work/data.ndjson" | tail -1
python3 - "$work/people.sql" <<'PY'
import sys
s = open("Sources/Health/HealthStore/Schema/Migrations.swift").read()
body = s[s.index('static let people = Migration('):].split('sql: """', 1)[1].split('""", postgresql:', 1)[0]
open(sys.argv[1], "w").write("BEGIN;\n" + body + "\nCOMMIT;\n")
PY
cp "$work/old.sqlite" "$work/timed.sqlite"
echo "==> the migration's SQL in the sqlite3 CLI ($(sqlite3 "$work/old.sqlite" 'SELECT count(*) FROM sample') samples)"
TIMEFORMAT='    wall %R s, CPU %U s user + %S s system'
time sqlite3 "$work/timed.sqlite" <"$work/people.sql"
cp "$work/old.sqlite" "$work/new.sqlite"
range="--from 2025-12-01T00:00:00Z --to $(date -u -d "2025-12-01 + $days days" +%Y-%m-%dT00:00:00Z) --tz Europe/Berlin --json"
compare() {  # compare LABEL
  "$old" --store "$work/old.sqlite" stats step-count $range --by day >"$work/old-steps.json"
  "$new" --store "$work/new.sqlite" stats step-count $range --by day >"$work/new-steps.json"
  "$old" --store "$work/old.sqlite" stats heart-rate $range --by week --max >"$work/old-hr.json"
  "$new" --store "$work/new.sqlite" stats heart-rate $range --by week --max >"$work/new-hr.json"
  cmp "$work/old-steps.json" "$work/new-steps.json" && cmp "$work/old-hr.json" "$work/new-hr.json" && echo "    $1: identical"
}
compare "read-only, before the migration"
"$new" --store "$work/new.sqlite" people list >/dev/null   # still read-only: must not migrate
test "$(sqlite3 "$work/new.sqlite" 'SELECT count(*) FROM schema_migration')" = 2
"$new" --store "$work/new.sqlite" people add bench-second-person >/dev/null   # a writer: migrates
compare "after the migration"
