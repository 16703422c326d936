# Shared by bench/import/run.sh and limit.sh (sourced; both set $work first).

# measure NAME COMMAND...: sets NAME_wall, NAME_cpu (user + system) and NAME_rss (peak KiB).
measure() {
  local name=$1; shift
  /usr/bin/time -f '%e %U %S %M' -o "$work/$name.time" "$@" >"$work/$name.out"
  read -r wall user sys rss <"$work/$name.time"
  printf -v "${name}_wall" '%s' "$wall"
  printf -v "${name}_cpu" '%s' "$(python3 -c "print($user + $sys)")"
  printf -v "${name}_rss" '%s' "$rss"
}

# dump_rows STORE TSV: the store's samples as the C baseline (baseline.c) reads them.
dump_rows() {
  sqlite3 -separator $'\t' -cmd '.nullvalue <null>' "$1" \
    "SELECT anchor, hex(uuid), type_id, start_us, end_us, value, app_id, app_version, device_id, zone, sync_id, sync_version, user_entered, metadata FROM sample ORDER BY anchor" \
    >"$2"
}

# minimal_table DATABASE: the limit's table: rowid, the store's covering (type, time) index and sync
# key; no uuid index, no foreign keys.
minimal_table() {
  sqlite3 "$1" "PRAGMA journal_mode = WAL;
  CREATE TABLE sample (anchor INTEGER PRIMARY KEY, uuid BLOB NOT NULL, type_id INTEGER NOT NULL, start_us INTEGER NOT NULL,
    end_us INTEGER NOT NULL, value REAL NOT NULL, app_id INTEGER NOT NULL, app_version TEXT NOT NULL, device_id INTEGER,
    zone TEXT, sync_id TEXT, sync_version INTEGER NOT NULL, user_entered INTEGER NOT NULL, metadata TEXT,
    person_id INTEGER NOT NULL DEFAULT 1);
  CREATE INDEX sample_time ON sample (person_id, type_id, start_us, end_us, app_id, value);
  CREATE UNIQUE INDEX sample_sync ON sample (person_id, app_id, type_id, sync_id) WHERE sync_id IS NOT NULL;" >/dev/null
}
