#!/usr/bin/env python3
"""check-unchanged.py BEFORE AFTER: a later sync changed nothing the earlier one had stored.

BEFORE and AFTER are `health export` NDJSON taken before and after a sync. Up to the last minute
BEFORE holds from the band's history (metadata bandkit.origin = history), AFTER must hold exactly
BEFORE's samples, each one unchanged (every field: identifier, value, metadata, version); later
minutes may be new. Workouts and sleep are left out: they are the reader's reading of sessions and
nights, and a later sync may close one that began earlier. Exit 0: unchanged (prints how many samples were compared); 1: the first 20
differences; 65: a line that is not JSON.
"""
import json
import sys
from datetime import datetime, timezone


def minute_of(text):
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc).timestamp())


def load(path):
    samples = []
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if not line.strip():
            continue
        try:
            samples.append(json.loads(line))
        except ValueError as error:
            print(f"check-unchanged: {path} line {number} is not JSON: {error}", file=sys.stderr)
            sys.exit(65)
    return samples


DERIVED = ("workout", "sleep-analysis")


def key_of(sample):
    return (sample.get("type"), sample.get("start"), sample.get("end"))


before, after = load(sys.argv[1]), load(sys.argv[2])
history = [minute_of(s["start"]) for s in before if "start" in s and s.get("metadata", {}).get("bandkit.origin") == "history"]
if not history:
    sys.exit("check-unchanged: nothing in BEFORE comes from the band's history")
last = max(history)
settled = lambda samples: {key_of(s): s for s in samples
                           if s.get("type") not in DERIVED and "start" in s and minute_of(s["start"]) <= last}
old, new = settled(before), settled(after)
problems = []
for key, sample in sorted(old.items(), key=lambda item: str(item[0])):
    if key not in new:
        problems.append(f"{key[0]} at {key[1]}: gone after the sync")
    elif new[key] != sample:
        fields = sorted(name for name in set(sample) | set(new[key]) if sample.get(name) != new[key].get(name))
        problems.append(f"{key[0]} at {key[1]}: changed " + ", ".join(
            f"{name} {json.dumps(sample.get(name), sort_keys=True)} → {json.dumps(new[key].get(name), sort_keys=True)}" for name in fields))
for key in sorted(set(new) - set(old), key=str):
    problems.append(f"{key[0]} at {key[1]}: new after the sync, for a minute already synced")
if problems:
    print("\n".join(problems[:20] + ([f"... and {len(problems) - 20} more"] if len(problems) > 20 else [])), file=sys.stderr)
    sys.exit(1)
print(f"check-unchanged: {len(old)} samples up to {datetime.fromtimestamp(last, timezone.utc):%Y-%m-%dT%H:%M:%SZ} unchanged by the sync")
