#!/usr/bin/env python3
"""Live heart rates in the store against what each device measured (its `--truth`): for a
device that keeps no history (a strap, an InfiniTime watch), every heart-rate minute the store
holds for it (by `sync_id`, `DEVICE|type|minute`) is one the device measured in contact, within
±1 bpm (the device's minutes begin up to a second before the host's: a host minute can hold one
reading of the next), at most once per minute, and there are at least MIN (default 2). A minute
after the truth's last one was still running when the device stopped and is not compared.

    python3 gateway_live_vs_truth.py [--min N] EXPORT.ndjson DEVICE=TRUTH.ndjson...

Exit 0: all equal (prints the minutes compared per device); 1: the first 20 differences.
"""
import json, sys

arguments = sys.argv[1:]
minimum = 2
if arguments[:1] == ["--min"]:
    minimum, arguments = int(arguments[1]), arguments[2:]
export = [json.loads(line) for line in open(arguments[0], encoding="utf-8") if line.strip()]
problems = []
for pair in arguments[1:]:
    device, truth_path = pair.split("=", 1)
    truth = {}
    for line in open(truth_path, encoding="utf-8"):
        if line.strip():
            row = json.loads(line)
            truth[row["minute"].replace("+00:00", "Z")] = row.get("heart_rate")
    rates = [s for s in export if s.get("type") == "heart-rate" and str(s.get("sync_id", "")).startswith(device + "|")]
    seen = set()
    for sample in rates:
        minute = sample["start"].replace("+00:00", "Z")
        if minute in seen: problems.append("%s: heart rate at %s stored twice" % (device, minute))
        seen.add(minute)
        if minute not in truth and minute > max(truth, default=""):
            continue  # the minute was still running when the device was stopped: no truth line yet
        if minute not in truth:
            problems.append("%s: heart rate at %s, a minute the device has no truth for" % (device, minute))
        elif truth[minute] is None:
            problems.append("%s: heart rate %s at %s, but the device measured none" % (device, sample["value"], minute))
        elif abs(sample["value"] - truth[minute]) > 1:
            problems.append("%s: heart rate %s at %s, the device measured %s" % (device, sample["value"], minute, truth[minute]))
    if len(rates) < minimum: problems.append("%s: %d heart-rate minutes stored, expected at least %d" % (device, len(rates), minimum))
    print("gateway_live_vs_truth: %s: %d minutes compared" % (device, len(rates)))
for problem in problems[:20]: print("gateway_live_vs_truth: " + problem, file=sys.stderr)
sys.exit(1 if problems else 0)
