#!/usr/bin/env python3
"""`band status --json` and `/metrics` of a running gateway against what the check did:

    python3 gateway_status_check.py STATUS.json METRICS.txt GONE KIND=ADDRESS...

- the devices are exactly the KIND=ADDRESS pairs (GONE, a forgotten address, is absent), all
  connected, each with its kind; BandKit bands with a history cursor, a last sync and minutes
  stored today; every device with a battery level and readings or samples counted;
- /metrics parses as Prometheus text and agrees: devices known and connected, one
  samples-committed series per device and none for GONE, a commit-latency histogram whose
  +Inf bucket equals its count and is positive.

Exit 0 when all hold; 1 naming each that does not.
"""
import json, re, sys

status = json.load(open(sys.argv[1]))
metrics_text = open(sys.argv[2]).read()
gone = sys.argv[3]
expected = dict(reversed(pair.split("=", 1)) for pair in sys.argv[4:])
problems = []
devices = {d["address"]: d for d in status["devices"]}
if set(devices) != set(expected): problems.append("status lists %s, expected %s" % (sorted(devices), sorted(expected)))
if status["devices_known"] != len(expected): problems.append("devices_known %s" % status["devices_known"])
if status["devices_connected"] != len(expected): problems.append("devices_connected %s" % status["devices_connected"])
if not status["last_commit"]: problems.append("no last_commit")
for address, kind in expected.items():
    d = devices.get(address)
    if not d: continue
    if d["kind"] != kind: problems.append("%s: kind %s, expected %s" % (address, d["kind"], kind))
    if not d["connected"]: problems.append("%s: not connected" % address)
    if d["battery"] is None: problems.append("%s: no battery level" % address)
    if d["samples_committed"] <= 0: problems.append("%s: no samples committed" % address)
    if kind == "bandkit":
        if not d["history_cursor"] or not d["last_sync"]: problems.append("%s: no history cursor or last sync" % address)
        if d["minutes_today"] <= 0: problems.append("%s: no minutes today" % address)
    elif d["readings_received"] <= 0:
        problems.append("%s: no readings received" % address)

values = {}
for line in metrics_text.splitlines():
    if not line or line.startswith("#"): continue
    match = re.fullmatch(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)', line)
    if not match: problems.append("metrics line does not parse: %r" % line); continue
    values[match.group(1) + (match.group(2) or "")] = float(match.group(3))
def metric(name): return values.get(name)
if metric("bandkit_gateway_devices_known") != len(expected): problems.append("metrics: devices_known %s" % metric("bandkit_gateway_devices_known"))
committed = {k for k in values if k.startswith("bandkit_gateway_samples_committed_total{")}
for address in expected:
    key = 'bandkit_gateway_samples_committed_total{device="%s"}' % address
    if not (values.get(key, 0) > 0): problems.append("metrics: %s is %s" % (key, values.get(key)))
if any(gone in k for k in committed): problems.append("metrics: the forgotten %s is still exported" % gone)
infinite = metric('bandkit_gateway_commit_latency_seconds_bucket{le="+Inf"}')
count = metric("bandkit_gateway_commit_latency_seconds_count")
if not infinite or infinite != count: problems.append("metrics: latency +Inf bucket %s, count %s" % (infinite, count))
for problem in problems: print("gateway_status_check: " + problem, file=sys.stderr)
print("gateway_status_check: %d devices, %d metric series" % (len(devices), len(values)))
sys.exit(1 if problems else 0)
