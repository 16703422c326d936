#!/usr/bin/env python3
"""check-store.py TRUTH EXPORT: the health store must hold exactly the band's truth minutes.

TRUTH is `bandsim serve --truth` NDJSON (one line per minute record the band wrote); EXPORT is
`health export` NDJSON. Every recorded minute must be stored exactly once per type with the
band's steps, distance, energy and heart-rate average (min/max in metadata), from history; a
minute the band recorded more than once (a restart, a clock or zone change inside it) is all its
records together: sums, heart rate the mean of the averages, min of the minimums, max of the maximums;
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

# A band restarted mid-minute records that minute once per boot, each record with its own
# sequence number: both are the band's truth, and the reader stores them as one sample each type.
truth = {}
problems = []
for number, line in enumerate(open(sys.argv[1]), 1):
    record = json.loads(line)
    minute = minute_of(record["minute"])
    earlier = truth.get(minute, [])
    if earlier and (record.get("seq") is None or any(r.get("seq") == record.get("seq") for r in earlier)):
        problems.append(f"truth line {number}: minute {record['minute']} recorded twice")
    truth[minute] = earlier + [record]
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
def combined(records, value_of):
    """The minute's value as the reader stores it: the sum, or for heart rate the mean of the averages."""
    values = [value_of(r) for r in records if value_of(r) is not None]
    if not values:
        return None
    return sum(values) / len(values) if value_of is expected["heart-rate"] else round(sum(values), 1)

for kind, value_of in expected.items():
    samples = stored.get(kind, {})
    for minute, records in truth.items():
        got = samples.get(minute, [])
        want = combined(records, value_of)
        when = records[0]["minute"]
        if want is None:
            if got:
                problems.append(f"{kind} at {when}: stored {[s['value'] for s in got]} but the band measured none")
            continue
        if len(got) != 1:
            problems.append(f"{kind} at {when}: {len(got)} samples, expected 1")
            continue
        sample = got[0]
        if abs(sample["value"] - want) > 1e-6:
            problems.append(f"{kind} at {when}: stored {sample['value']}, band recorded {want} ({len(records)} records)")
        elif sample.get("metadata", {}).get("bandkit.origin") != "history":
            problems.append(f"{kind} at {when}: still the provisional live value")
        elif kind == "heart-rate":
            metadata = sample.get("metadata", {})
            measured = [r for r in records if r["hr_min"] is not None]
            low, high = min(r["hr_min"] for r in measured), max(r["hr_max"] for r in measured)
            if metadata.get("bandkit.hr.min") != str(low) or metadata.get("bandkit.hr.max") != str(high):
                problems.append(f"heart-rate at {when}: min/max {metadata.get('bandkit.hr.min')}/{metadata.get('bandkit.hr.max')}, band {low}/{high}")
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
print(f"check-store: {sum(map(len, truth.values()))} minute records, the store holds exactly the band's truth")
