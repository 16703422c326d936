#!/usr/bin/env python3
"""Every live reading a gateway received before a SIGKILL is in the store after the restart:

    python3 gateway_readings_kept.py EXPORT.ndjson DEVICE KILLED_AT_MS RECEIVED TRUTH.ndjson

RECEIVED is the device's `bandkit_gateway_readings_received_total` scraped just before the kill
(a strap notifies nothing but heart rate: each reading is one heart-rate measurement). The
readings the store holds from before the kill are those of the live parts (metadata
`bandkit.live.parts`, `KEY=count,sum,min,max,without-contact;…`, KEY the reader's time in ms
of the part's first reading; a fold `K1+K2` counts when its keys all are) that started before
KILLED_AT_MS. They must be at least RECEIVED and at most RECEIVED + 3 (readings that arrived
between the scrape and the kill). A minute the strap spent wholly off the skin (its TRUTH says
`"contact": false`; the simulated wearer's shower) stores no heart rate: up to 61 readings
each of those before the kill may be missing.

Exit 0 when they are; 1 saying what differs.
"""
import json, sys

export_path, device, killed_at, received = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
import datetime
off_skin = 0
for line in open(sys.argv[5], encoding="utf-8"):
    if not line.strip(): continue
    row = json.loads(line)
    minute = datetime.datetime.fromisoformat(row["minute"].replace("Z", "+00:00")).timestamp() * 1000
    if row.get("contact") is False and minute < killed_at: off_skin += 1
kept = 0
for line in open(export_path, encoding="utf-8"):
    if not line.strip(): continue
    sample = json.loads(line)
    if sample.get("type") != "heart-rate" or not str(sample.get("sync_id", "")).startswith(device + "|"): continue
    for part in (sample.get("metadata") or {}).get("bandkit.live.parts", "").split(";"):
        if "=" not in part: continue
        key, payload = part.split("=", 1)
        fields = [int(x) for x in payload.split(",") if x]
        if all(int(k) < killed_at for k in key.split("+")) and len(fields) == 5:
            kept += fields[0] + fields[4]
print("gateway_readings_kept: %s: %d readings received before the kill, %d stored (%d minutes off the skin)" % (device, received, kept, off_skin))
if not received - 61 * off_skin <= kept <= received + 3:
    print("gateway_readings_kept: %s: the store holds %d of the readings received before the kill, not %d" % (device, kept, received), file=sys.stderr)
    sys.exit(1)
