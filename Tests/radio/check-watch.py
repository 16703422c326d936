#!/usr/bin/env python3
"""check-watch.py TRUTH EXPORT STREAM: the store against an InfiniTime watch's truth for a short
live stream (bandsim serve --profile infinitime --truth, health export, band stream --json).

A watch has no history: the store holds what arrived while connected, filed by the host's minute
(the watch's true time is the host's). Checks, each against the watch's truth:
- heart rate: one sample per minute with readings; its minimum and maximum are heart rates the
  watch measured in that minute or a neighbouring one (a reading notified in a minute's last half
  second may arrive in the next); in a minute with 20 readings or more the average is the
  minute's within 1 bpm; no sample in a minute the watch measured none;
- steps: never negative; the first total seen is one gap sample marked first-sight; all step
  samples together are the last total the reader received, and that total lies between the
  watch's totals at the end of the minute before the last reading and at the end of its minute.
Exit 1 with the problems otherwise.
"""
import json
import sys
from datetime import datetime

def minute_of(text):
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()) // 60 * 60

truth = {}
for line in open(sys.argv[1]):
    record = json.loads(line)
    if record.get("profile") == "infinitime":
        truth[minute_of(record["minute"])] = record
samples = [json.loads(line) for line in open(sys.argv[2])]
readings = [event for event in map(json.loads, open(sys.argv[3])) if event.get("event") == "reading"]
problems = []
if not truth:
    sys.exit("check-watch: the watch wrote no truth")
if not readings:
    sys.exit("check-watch: the stream received no readings")

def measured(minute):
    record = truth.get(minute)
    return record["heart_rate"] if record else None

rates = [s for s in samples if s["type"] == "heart-rate"]
for sample in rates:
    minute = minute_of(sample["start"])
    metadata = sample.get("metadata", {})
    count = int(metadata.get("bandkit.hr.count", "0"))
    low, high = float(metadata.get("bandkit.hr.min", "nan")), float(metadata.get("bandkit.hr.max", "nan"))
    near = {measured(m) for m in (minute - 60, minute, minute + 60)} - {None}
    if measured(minute) is None:
        problems.append(f"heart rate at {sample['start']}: stored {sample['value']} but the watch measured none")
        continue
    if low not in near or high not in near:
        problems.append(f"heart rate at {sample['start']}: readings {low}–{high} bpm, the watch measured {sorted(near)} around it")
    if count >= 20 and abs(sample["value"] - measured(minute)) > 1:
        problems.append(f"heart rate at {sample['start']}: {sample['value']} bpm from {count} readings, the watch measured {measured(minute)}")
if not rates:
    problems.append("no heart-rate sample stored")

steps = [s for s in samples if s["type"] == "step-count"]
for sample in steps:
    if sample["value"] < 0:
        problems.append(f"steps at {sample['start']}: negative ({sample['value']})")
totals = [r["steps_today"] for r in readings if r.get("steps_today") is not None]
first_sight = [s for s in steps if s.get("metadata", {}).get("bandkit.steps.gap") == "first-sight"]
if totals and totals[0] > 0 and [s["value"] for s in first_sight] != [totals[0]]:
    problems.append(f"first sight: want one gap sample of {totals[0]} steps, stored {[s['value'] for s in first_sight]}")
stored = sum(s["value"] for s in steps)
if totals and stored != totals[-1]:
    problems.append(f"steps: stored {stored} in all, the last total received was {totals[-1]}")
last_step_reading = [r for r in readings if r.get("kind") == "steps"]
if last_step_reading and totals:
    minute = minute_of(last_step_reading[-1]["time"])
    before = truth.get(minute - 60, {}).get("steps_today")
    after = truth.get(minute, {}).get("steps_today")
    if before is not None and totals[-1] < before:
        problems.append(f"steps: last total {totals[-1]} below the watch's {before} at the end of the minute before")
    if after is not None and totals[-1] > after:
        problems.append(f"steps: last total {totals[-1]} above the watch's {after} at the end of its minute")

print(f"check-watch: {len(rates)} heart-rate minute(s), {len(steps)} step sample(s) totalling {stored:g}, "
      f"{len(readings)} readings, truth {len(truth)} minute(s)")
for problem in problems:
    print("  " + problem)
sys.exit(1 if problems else 0)
