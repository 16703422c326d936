#!/usr/bin/env bash
# Compares two stores written by `health import` of the same file (before/after a change):
# every sample column but the uuid's random part (its version and variant must agree), and the
# app, device, sample_type, merged_hour, tombstone and change_counter tables. Prints
# "stores identical" and exits 0, or the count of rows that differ per table and exits 1.
#
#   bash bench/import/compare-stores.sh BEFORE.sqlite AFTER.sqlite
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: compare-stores.sh BEFORE.sqlite AFTER.sqlite" >&2; exit 64; }
sample_columns="anchor, substr(hex(uuid), 13, 1) AS version, substr(hex(uuid), 17, 1) IN ('8', '9', 'A', 'B') AS variant, type_id,
  start_us, end_us, value, app_id, app_version, device_id, zone, sync_id, sync_version, user_entered, metadata, person_id"
differences=$(sqlite3 -readonly "$1" "ATTACH '$2' AS other;
  SELECT 'sample', (SELECT count(*) FROM (SELECT $sample_columns FROM main.sample EXCEPT SELECT $sample_columns FROM other.sample))
                 + (SELECT count(*) FROM (SELECT $sample_columns FROM other.sample EXCEPT SELECT $sample_columns FROM main.sample));
  SELECT 'sample count', abs((SELECT count(*) FROM main.sample) - (SELECT count(*) FROM other.sample));
  SELECT 'app', (SELECT count(*) FROM (SELECT * FROM main.app EXCEPT SELECT * FROM other.app))
              + (SELECT count(*) FROM (SELECT * FROM other.app EXCEPT SELECT * FROM main.app));
  SELECT 'device', (SELECT count(*) FROM (SELECT * FROM main.device EXCEPT SELECT * FROM other.device))
                 + (SELECT count(*) FROM (SELECT * FROM other.device EXCEPT SELECT * FROM main.device));
  SELECT 'sample_type', (SELECT count(*) FROM (SELECT * FROM main.sample_type EXCEPT SELECT * FROM other.sample_type))
                      + (SELECT count(*) FROM (SELECT * FROM other.sample_type EXCEPT SELECT * FROM main.sample_type));
  SELECT 'merged_hour', (SELECT count(*) FROM (SELECT * FROM main.merged_hour EXCEPT SELECT * FROM other.merged_hour))
                      + (SELECT count(*) FROM (SELECT * FROM other.merged_hour EXCEPT SELECT * FROM main.merged_hour));
  SELECT 'tombstone', abs((SELECT count(*) FROM main.tombstone) - (SELECT count(*) FROM other.tombstone));
  SELECT 'change_counter', (SELECT anchor FROM main.change_counter) != (SELECT anchor FROM other.change_counter);" \
  | awk -F'|' '$2 != 0 {print "    " $1 ": " $2 " rows differ"}')
if [ -n "$differences" ]; then
  echo "stores differ ($1, $2):"
  echo "$differences"
  exit 1
fi
echo "    stores identical ($(sqlite3 -readonly "$2" "SELECT count(*) FROM sample") samples; uuids differ only in their time and random bits)"
