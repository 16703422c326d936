#!/usr/bin/env python3
"""The store against a band's truth, minute by minute — TruthCheck's rules (BandReaderTests)
for a shell check, over `health export` (JSON, one sample per line) and a `--truth` file:

- every truth minute up to the last minute the store holds from history is there exactly once
  with the band's steps, distance, energy and heart rate (average; min/max in metadata), stored
  from history (not the provisional live value); a minute with several truth lines (the band
  recorded it again after a clock or zone change or a boot inside it) is all of them together:
  steps, distance and energy summed, heart rate the mean of the averages, min of the minimums,
  max of the maximums;
- nothing is stored for a minute before that which the band never recorded;
- after it, at most one provisional live sample per type and minute;
- no value is negative.

    python3 store_vs_truth.py EXPORT.ndjson TRUTH.ndjson [MIN_MINUTES]

Exit 0: equal (prints the minutes compared); 1: the first 20 differences; 65: a line that is not JSON.
"""
import json, sys
from datetime import datetime, timezone

def minute_of(text):
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc).timestamp())

def load(path, what):
    rows = []
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if not line.strip(): continue
        try: rows.append(json.loads(line))
        except ValueError as error: print("store_vs_truth: %s line %d is not JSON: %s" % (what, number, error), file=sys.stderr); sys.exit(65)
    return rows

export_path, truth_path = sys.argv[1], sys.argv[2]
minimum = int(sys.argv[3]) if len(sys.argv) > 3 else 1
truth = {}
problems = []
def combine(a, b):
    """Two records of one minute as the reader stores them (SampleWriter's history parts)."""
    out = dict(a)
    for key in ("steps", "distance_m", "energy_kcal"):
        out[key] = round(a[key] + b[key], 1)
    averages = a.get("hr_avgs", [a["hr_avg"]] if a["hr_avg"] is not None else []) + ([b["hr_avg"]] if b["hr_avg"] is not None else [])
    out["hr_avgs"] = averages
    out["hr_avg"] = sum(averages) / len(averages) if averages else None
    present = [r for r in (a, b) if r["hr_min"] is not None]
    out["hr_min"] = min(r["hr_min"] for r in present) if present else None
    out["hr_max"] = max(r["hr_max"] for r in present) if present else None
    return out

seen = set()
for line in load(truth_path, "truth"):
    minute = minute_of(line["minute"])
    if line.get("seq") is not None:
        if (minute, line["seq"]) in seen: continue  # the same record twice (two runs' truth files)
        seen.add((minute, line["seq"]))
    truth[minute] = combine(truth[minute], line) if minute in truth else line
kinds = {"step-count": ("steps", lambda t: t["steps"]), "distance-walking-running": ("distance", lambda t: t["distance_m"]),
         "active-energy-burned": ("energy", lambda t: t["energy_kcal"]), "heart-rate": ("heart rate", lambda t: t["hr_avg"])}
stored = {name: {} for name, _ in kinds.values()}
for sample in load(export_path, "export"):
    kind = sample.get("type")
    if kind not in kinds: continue
    name = kinds[kind][0]
    minute = minute_of(sample["start"])
    if minute_of(sample["end"]) - minute != 60: problems.append("%s at %s is not one minute long" % (name, sample["start"]))
    if sample["value"] < 0: problems.append("%s at %s is negative: %s" % (name, sample["start"], sample["value"]))
    stored[name].setdefault(minute, []).append(sample)
history = [m for samples in stored.values() for m, s in samples.items() if any(x.get("metadata", {}).get("bandkit.origin") == "history" for x in s)]
if not history: problems.append("nothing in the store comes from the band's history")
last = max(history, default=0)
compared = 0
for minute, line in sorted(truth.items()):
    if minute > last: continue
    compared += 1
    for kind, (name, expected) in kinds.items():
        got, want = stored[name].get(minute, []), expected(line)
        if want is None:
            if got: problems.append("%s at %s: stored %s but the band measured none" % (name, line["minute"], [g["value"] for g in got]))
            continue
        if len(got) != 1: problems.append("%s at %s: %d samples, expected 1" % (name, line["minute"], len(got))); continue
        if abs(got[0]["value"] - want) > 1e-6: problems.append("%s at %s: stored %s, band recorded %s" % (name, line["minute"], got[0]["value"], want))
        elif got[0].get("metadata", {}).get("bandkit.origin") != "history": problems.append("%s at %s: still the provisional live value" % (name, line["minute"]))
        if name == "heart rate":
            metadata = got[0].get("metadata", {})
            if (metadata.get("bandkit.hr.min"), metadata.get("bandkit.hr.max")) != (str(line["hr_min"]), str(line["hr_max"])):
                problems.append("heart rate at %s: min/max %s/%s, band %s/%s" % (line["minute"], metadata.get("bandkit.hr.min"), metadata.get("bandkit.hr.max"), line["hr_min"], line["hr_max"]))
for name, samples in stored.items():
    for minute, extra in sorted(samples.items()):
        if minute in truth and minute <= last: continue
        if minute <= last: problems.append("%s at %d: %d samples for a minute the band never recorded" % (name, minute, len(extra)))
        elif len(extra) != 1 or extra[0].get("metadata", {}).get("bandkit.origin") != "live":
            problems.append("%s at %d: after the last record, expected one provisional live sample" % (name, minute))
if compared < minimum: problems.append("only %d minutes compared, expected at least %d" % (compared, minimum))
if problems:
    print("\n".join(problems[:20] + (["... and %d more" % (len(problems) - 20)] if len(problems) > 20 else [])), file=sys.stderr)
    sys.exit(1)
print("%d minutes: the store equals the band's truth" % compared)
