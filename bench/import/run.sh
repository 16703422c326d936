#!/usr/bin/env bash
# Apple Health import benchmark: one command, release build. Never run in CI (minutes of CPU, GBs of temp files).
#
#   bash bench/import/run.sh                 # 5,000,000 records (a year of a watch and a phone, ~2 GB of XML)
#   BENCH_RECORDS=1000000 bash bench/import/run.sh
#
# Measures, in one run on the same machine and the same rows:
#   1. parse only: export.xml through AppleHealthParser, items counted (records/s, peak RSS);
#   2. `health import export.xml` end to end (parse, validate, store, merged hours, commit);
#   3. `health import export.ndjson` end to end (the same samples as NDJSON);
#   4. the raw C baseline (bench/import/baseline.c): the rows import 2 stored, dumped and inserted
#      again by one prepared statement in one transaction into the same schema, indexes and pragmas;
#   5. peak RSS of parse and import at a quarter of the size, to show it does not grow with the file.
#   6. the limit: the rows 3 stored, inserted by the same C program into a minimal two-index table (rowid,
#      the store's covering (type, time) index and sync key; no uuid index, no foreign keys) and into the store's schema;
#      with BENCH_BEFORE=path/to/an/older/health, that binary's `health import export.ndjson` too, and the two
#      stores compared (bench/import/compare-stores.sh: equal but for the uuids' time and random bits);
#   7. the peer: `healthkit-to-sqlite` (PyPI, in a venv made here) on export.zip beside `health import export.zip`.
#
#   BENCH_RECORDS=518400 BENCH_BEFORE=/tmp/health-main bash bench/import/run.sh   # 360 days of minutes, before/after
# The store's write path (library) rate is rows / (CPU of 2 − CPU of 1): the import minus its parse.
# Figures go to docs/performance.md ("Apple Health import") by hand, with the machine line printed at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/packages.sh
bash scripts/ensure-packages.sh "${BUILD_PACKAGES[@]}" sqlite3 python3 time

records=${BENCH_RECORDS:-5000000}
work=$(mktemp -d /tmp/bandkit-import-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "==> release build"
swift build -c release --product health 2>&1 | grep -E "error|warning: unre|Build" | tail -3
swiftc -O -parse-as-library -module-name ParseBench bench/import/ParseBench.swift -o "$work/ParseBench" \
  -I .build/release/Modules -Xcc -fmodule-map-file=Sources/C/CExpat/module.modulemap -Xcc -fmodule-map-file=Sources/C/CZlib/module.modulemap \
  .build/release/AppleHealth.build/*.o .build/release/HealthModel.build/*.o .build/release/BandKitSystem.build/*.o .build/release/CivilTime.build/*.o -lexpat -lz
cc -O2 -o "$work/baseline" bench/import/baseline.c -lsqlite3
health=.build/release/health
source bench/import/common.sh

report() {  # report NAME ROWS
  local wall="${1}_wall" cpu="${1}_cpu" rss="${1}_rss"
  python3 - "${!wall}" "${!cpu}" "$2" "${!rss}" <<'PY'
import sys
wall, cpu, rows, rss = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
print(f"    wall {wall:.2f} s ({rows / wall:,.0f} rows/s), CPU {cpu:.2f} s ({rows / cpu:,.0f} rows/s), peak RSS {rss / 1024:.0f} MiB")
PY
}
ratio() {  # ratio NAME: rate relative to the C baseline, by wall and by CPU time
  local wall="${1}_wall" cpu="${1}_cpu"
  python3 -c "import sys; b_w, b_c, w, c = map(float, sys.argv[1:]); print(f'    = {100 * b_w / w:.0f}% of the raw C rate by wall time, {100 * b_c / c:.0f}% by CPU time')" \
    "$baseline_wall" "$baseline_cpu" "${!wall}" "${!cpu}"
}

echo "==> generating $records records (export.xml and the same samples as NDJSON)"
python3 bench/import/generate.py "$((records / 4))" "$work/quarter.xml" &
python3 bench/import/generate.py "$records" "$work/export.xml" "$work/export.ndjson"
wait
ls -l "$work"/export.* "$work"/quarter.xml | awk '{print "    " $5 " bytes  " $9}'

echo "==> 1. parse only"
measure parse "$work/ParseBench" "$work/export.xml"
sed 's/^/    /' "$work/parse.out"
report parse "$records"

echo "==> 2. health import export.xml"
measure xml "$health" --store "$work/xml.sqlite" import "$work/export.xml"
sed 's/^/    /' "$work/xml.out"
rows=$(sqlite3 "$work/xml.sqlite" "SELECT count(*) FROM sample")
report xml "$rows"

echo "==> 3. health import export.ndjson"
measure ndjson "$health" --store "$work/ndjson.sqlite" import "$work/export.ndjson"
sed 's/^/    /' "$work/ndjson.out"
ndjson_rows=$(sqlite3 "$work/ndjson.sqlite" "SELECT count(*) FROM sample")
report ndjson "$ndjson_rows"

echo "==> 4. raw C baseline: the $rows rows of 2, one prepared statement, one transaction"
dump_rows "$work/xml.sqlite" "$work/rows.tsv"
"$health" --store "$work/baseline.sqlite" import /dev/null >/dev/null   # the schema, empty
sqlite3 "$work/baseline.sqlite" "ATTACH '$work/xml.sqlite' AS imported; INSERT OR REPLACE INTO app SELECT * FROM imported.app; INSERT OR REPLACE INTO device SELECT * FROM imported.device;"
measure baseline "$work/baseline" "$work/baseline.sqlite" "$work/rows.tsv"
[ "$(sqlite3 "$work/baseline.sqlite" "SELECT count(*) FROM sample")" -eq "$rows" ] || { echo "baseline row count differs" >&2; exit 1; }
report baseline "$rows"

echo "==> 6. the limit: the $ndjson_rows rows of 3 by the same C program"
dump_rows "$work/ndjson.sqlite" "$work/ndjson-rows.tsv"
minimal_table "$work/minimal.sqlite"
measure minimal "$work/baseline" "$work/minimal.sqlite" "$work/ndjson-rows.tsv"
report minimal "$ndjson_rows"
"$health" --store "$work/schema.sqlite" import /dev/null >/dev/null
sqlite3 "$work/schema.sqlite" "ATTACH '$work/ndjson.sqlite' AS imported; INSERT OR REPLACE INTO app SELECT * FROM imported.app; INSERT OR REPLACE INTO device SELECT * FROM imported.device;"
measure schema "$work/baseline" "$work/schema.sqlite" "$work/ndjson-rows.tsv"
report schema "$ndjson_rows"
if [ -n "${BENCH_BEFORE:-}" ]; then
  measure before "$BENCH_BEFORE" --store "$work/before.sqlite" import "$work/export.ndjson"
  echo "    before ($BENCH_BEFORE): $(cat "$work/before.out")"
  report before "$ndjson_rows"
  bash bench/import/compare-stores.sh "$work/before.sqlite" "$work/ndjson.sqlite"
fi
python3 - "$minimal_cpu" "$schema_cpu" "$ndjson_cpu" "${before_cpu:-0}" "$minimal_wall" "$ndjson_wall" "${before_wall:-0}" <<'PY'
import sys
minimal, schema, ndjson, before, minimal_wall, ndjson_wall, before_wall = map(float, sys.argv[1:])
print(f"  health import export.ndjson = {100 * minimal / ndjson:.0f}% of the minimal two-index table by CPU "
      f"({100 * minimal_wall / ndjson_wall:.0f}% by wall), {100 * schema / ndjson:.0f}% of the store's schema by CPU (target >= 50% of minimal)")
if before:
    print(f"  before: {100 * minimal / before:.0f}% of the minimal table by CPU ({100 * minimal_wall / before_wall:.0f}% by wall)")
print(f"  the store's schema itself: {100 * minimal / schema:.0f}% of the minimal table's rate by CPU")
PY

echo "==> ratios to the raw C baseline"
echo "  health import export.xml (Apple XML end to end; target >= 30%)"; ratio xml
echo "  health import export.ndjson (NDJSON end to end; target >= 35%)"; ratio ndjson
python3 - "$xml_cpu" "$parse_cpu" "$baseline_cpu" "$rows" <<'PY'
import sys
xml, parse, baseline, rows = map(float, sys.argv[1:])
store = xml - parse
print(f"  store write path (import CPU - parse CPU = {store:.2f} s, {rows / store:,.0f} rows/s; target >= 50%)")
print(f"    = {100 * baseline / store:.0f}% of the raw C rate by CPU time")
PY

echo "==> 5. peak RSS at a quarter of the size (flat in the file size?)"
measure parse_quarter "$work/ParseBench" "$work/quarter.xml"
measure xml_quarter "$health" --store "$work/quarter.sqlite" import "$work/quarter.xml"
echo "    parse: $((parse_quarter_rss / 1024)) MiB at 1/4 size, $((parse_rss / 1024)) MiB at full size"
echo "    import: $((xml_quarter_rss / 1024)) MiB at 1/4 size, $((xml_rss / 1024)) MiB at full size"
ls -l "$work"/*.sqlite | awk '{print "    " $5 " bytes  " $9}'

echo "==> 7. the peer: healthkit-to-sqlite (PyPI) on export.zip beside health import export.zip"
python3 -c "import zipfile, sys; z = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED); z.write(sys.argv[2], 'apple_health_export/export.xml'); z.close()" \
  "$work/export.zip" "$work/export.xml"
python3 -m venv "$work/venv" && "$work/venv/bin/pip" install --quiet healthkit-to-sqlite
echo "    healthkit-to-sqlite $("$work/venv/bin/pip" show healthkit-to-sqlite | awk '/^Version/ {print $2}')"
measure zip "$health" --store "$work/zip.sqlite" import "$work/export.zip"
report zip "$rows"
measure peer "$work/venv/bin/healthkit-to-sqlite" "$work/export.zip" "$work/peer.db"
report peer "$rows"
python3 -c "import sys; z, p = map(float, sys.argv[1:]); print(f'    health import is {p / z:.1f}x faster by wall time')" "$zip_wall" "$peer_wall"

echo "==> machine (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "    $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GB RAM"
echo "    $(uname -sr), $(swift --version 2>&1 | head -1), SQLite $(sqlite3 --version | cut -d' ' -f1), expat $(dpkg-query -W -f '${Version}' libexpat1 2>/dev/null)"
