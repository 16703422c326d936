#!/usr/bin/env python3
"""check-store.py TRUTH EXPORT: the health store must hold exactly the band's truth minutes.

TRUTH is `bandsim serve --truth` NDJSON (one line per minute record the band wrote); EXPORT is
`health export` NDJSON. Every recorded minute must be stored exactly once per type with the
band's steps, distance, energy and heart-rate average (min/max in metadata), from history;
up to the last recorded minute nothing else may be stored; after it only one provisional live
sample per type and minute. No value may be negative. Exit 1 with the problems otherwise.
"""
import json
import sys
from datetime import datetime, timezone

def minute_of(text):
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())

def text_of(minute):
    return datetime.fromtimestamp(minute, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

truth = {}
problems = []
for number, line in enumerate(open(sys.argv[1]), 1):
    record = json.loads(line)
    minute = minute_of(record["minute"])
    if minute in truth:
        problems.append(f"truth line {number}: minute {record['minute']} recorded twice")
    truth[minute] = record
if not truth:
    sys.exit("check-store: the band recorded nothing")
last = max(truth)

stored = {}
for number, line in enumerate(open(sys.argv[2]), 1):
    sample = json.loads(line)
    if sample["type"] in ("sleep-analysis", "workout"):
        continue  # nights the reader scores and the band's walk/run sessions: derived, not minutes
    start, end = minute_of(sample["start"]), minute_of(sample["end"])
    if end - start != 60:
        problems.append(f"export line {number}: {sample['type']} at {sample['start']} is not one minute long")
    if sample["value"] < 0:
        problems.append(f"export line {number}: {sample['type']} at {sample['start']} is negative")
    stored.setdefault(sample["type"], {}).setdefault(start, []).append(sample)

expected = {
    "step-count": lambda r: r["steps"],
    "distance-walking-running": lambda r: r["distance_m"],
    "active-energy-burned": lambda r: r["energy_kcal"],
    "heart-rate": lambda r: r["hr_avg"],
}
for kind, value_of in expected.items():
    samples = stored.get(kind, {})
    for minute, record in truth.items():
        got = samples.get(minute, [])
        want = value_of(record)
        when = record["minute"]
        if want is None:
            if got:
                problems.append(f"{kind} at {when}: stored {[s['value'] for s in got]} but the band measured none")
            continue
        if len(got) != 1:
            problems.append(f"{kind} at {when}: {len(got)} samples, expected 1")
        elif abs(got[0]["value"] - want) > 1e-6:
            problems.append(f"{kind} at {when}: stored {got[0]['value']}, band recorded {want}")
        elif got[0].get("metadata", {}).get("bandkit.origin") != "history":
            problems.append(f"{kind} at {when}: still the provisional live value")
        elif kind == "heart-rate":
            metadata = got[0].get("metadata", {})
            if metadata.get("bandkit.hr.min") != str(record["hr_min"]) or metadata.get("bandkit.hr.max") != str(record["hr_max"]):
                problems.append(f"heart-rate at {when}: min/max {metadata.get('bandkit.hr.min')}/{metadata.get('bandkit.hr.max')}, band {record['hr_min']}/{record['hr_max']}")
    for minute, extra in samples.items():
        if minute in truth:
            continue
        if minute <= last:
            problems.append(f"{kind} at {text_of(minute)}: {len(extra)} sample(s) for a minute the band never recorded")
        elif len(extra) != 1 or extra[0].get("metadata", {}).get("bandkit.origin") != "live":
            problems.append(f"{kind} at {text_of(minute)}: after the last record, expected one provisional live sample")

if problems:
    print(f"check-store: store and truth disagree ({len(problems)} problems):", file=sys.stderr)
    for problem in problems[:25]:
        print("  " + problem, file=sys.stderr)
    sys.exit(1)
print(f"check-store: {len(truth)} minutes, the store holds exactly the band's truth")
