#!/usr/bin/env bash
# Workout files against independent readers: an activity FIT file written by hand from the protocol
# (Tests/checks/support/fit_activity.py: big-endian and compressed-timestamp records, 3 laps) goes
# through `health import`, then `health workouts export ID --format gpx|tcx|fit`; gpxpy, fitdecode
# (PyPI, in a venv under .build) and ElementTree read the files back against the same activity.
# xmllint checks the XML is well formed and, where the schemas are at hand ($BANDKIT_XSD_DIR holding
# gpx.xsd, TrainingCenterDatabasev2.xsd and optionally Garmin's TrackPointExtensionv1.xsd; no Debian
# or PyPI package ships them, and the tests may not download), validates it, and checks that a
# damaged copy fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --product health 2>&1 | grep -E "error" || true
bin="$(swift build --show-bin-path)"
source Tests/checks/support/checks-venv.sh
checks_venv gpxpy fitdecode
work="$(mktemp -d /tmp/workout-export.XXXXXX)"
trap 'rm -rf "$work"' EXIT
export BANDKIT_STORE="$work/store.sqlite" TZ=UTC

"$venv/bin/python" Tests/checks/support/fit_activity.py write "$work/run.fit"
"$bin/health" import "$work/run.fit"
id="$("$bin/health" workouts list --json | "$venv/bin/python" -c 'import json,sys; print(json.load(sys.stdin)["workouts"][0]["id"])')"
for format in gpx tcx fit; do "$bin/health" workouts export "$id" --format "$format" -o "$work/run.$format"; done
xmllint --noout "$work/run.gpx" "$work/run.tcx"
if [ -n "${BANDKIT_XSD_DIR:-}" ]; then
    gpx_schema="$BANDKIT_XSD_DIR/gpx.xsd"
    if [ -f "$BANDKIT_XSD_DIR/TrackPointExtensionv1.xsd" ]; then
        # One schema importing both, so the lax <extensions> content (hr, cad) is validated too.
        gpx_schema="$work/gpx-and-tpe.xsd"
        cat >"$gpx_schema" <<XSD
<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">
  <xsd:import namespace="http://www.topografix.com/GPX/1/1" schemaLocation="$BANDKIT_XSD_DIR/gpx.xsd"/>
  <xsd:import namespace="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" schemaLocation="$BANDKIT_XSD_DIR/TrackPointExtensionv1.xsd"/>
</xsd:schema>
XSD
    fi
    xmllint --noout --schema "$gpx_schema" "$work/run.gpx"
    xmllint --noout --schema "$BANDKIT_XSD_DIR/TrainingCenterDatabasev2.xsd" "$work/run.tcx"
    # The validation can fail: a heart rate of 0 and a trackpoint without its time are refused.
    sed '0,/<gpxtpx:hr>[0-9]*</s//<gpxtpx:hr>0</' "$work/run.gpx" >"$work/bad.gpx"
    sed '0,/<Trackpoint><Time>[^<]*<\/Time>/s//<Trackpoint>/' "$work/run.tcx" >"$work/bad.tcx"
    if [ -f "$BANDKIT_XSD_DIR/TrackPointExtensionv1.xsd" ] && xmllint --noout --schema "$gpx_schema" "$work/bad.gpx" 2>/dev/null; then
        echo "workout-export: a GPX heart rate of 0 passed validation" >&2; exit 1
    fi
    if xmllint --noout --schema "$BANDKIT_XSD_DIR/TrainingCenterDatabasev2.xsd" "$work/bad.tcx" 2>/dev/null; then
        echo "workout-export: a TCX trackpoint without time passed validation" >&2; exit 1
    fi
else
    echo "workout-export: schema validation skipped (set BANDKIT_XSD_DIR to a folder with gpx.xsd and TrainingCenterDatabasev2.xsd)"
fi
"$venv/bin/python" Tests/checks/support/fit_activity.py check "$work"
echo "workout-export: OK"
