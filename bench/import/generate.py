#!/usr/bin/env python3
"""Writes a year-sized Apple Health export.xml (and optionally the same samples as NDJSON).

    generate.py RECORDS OUT.xml [OUT.ndjson]

Shape of a real export: per-minute step count, heart rate, active energy and walking distance
from a watch and a phone (two sources, two devices, interleaved), a night of sleep stages per
day, stand hours, a daily workout with statistics and events, body mass now and then,
MetadataEntry children on some records. Deterministic (no randomness), so runs compare.
"""
import sys
from datetime import datetime, timedelta, timezone

records = int(sys.argv[1])
xml_path = sys.argv[2]
ndjson_path = sys.argv[3] if len(sys.argv) > 3 else None

WATCH = ("Anna’s Apple Watch", "10.5",
         "&lt;&lt;HKDevice: 0x283c8a2b0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.5&gt;",
         "Apple Watch")
PHONE = ("iPhone\u00a0de Anna", "17.5",
         "&lt;&lt;HKDevice: 0x281b2c6e0&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,5, software:17.5&gt;",
         "iPhone")
ZONE = timezone(timedelta(hours=-7))
START = datetime(2023, 6, 1, tzinfo=ZONE)

def apple(t):
    return t.strftime("%Y-%m-%d %H:%M:%S -0700")

def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S-07:00")

xml = open(xml_path, "w", encoding="utf-8", buffering=1 << 20)
nd = open(ndjson_path, "w", encoding="utf-8", buffering=1 << 20) if ndjson_path else None
xml.write("""<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
<!ATTLIST HealthData locale CDATA #REQUIRED>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
<!ATTLIST Record type CDATA #REQUIRED unit CDATA #IMPLIED value CDATA #IMPLIED sourceName CDATA #REQUIRED sourceVersion CDATA #IMPLIED device CDATA #IMPLIED creationDate CDATA #IMPLIED startDate CDATA #REQUIRED endDate CDATA #REQUIRED>
<!ELEMENT MetadataEntry EMPTY>
<!ATTLIST MetadataEntry key CDATA #REQUIRED value CDATA #REQUIRED>
]>
<HealthData locale="en_US">
 <ExportDate value="2024-06-01 10:00:00 -0700"/>
 <Me HKCharacteristicTypeIdentifierDateOfBirth="1985-03-02" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeABPositive"/>
""")

MINUTE_TYPES = [("HKQuantityTypeIdentifierStepCount", "count", "step-count"),
                ("HKQuantityTypeIdentifierHeartRate", "count/min", "heart-rate"),
                ("HKQuantityTypeIdentifierActiveEnergyBurned", "Cal", "active-energy-burned"),
                ("HKQuantityTypeIdentifierDistanceWalkingRunning", "km", "distance-walking-running")]
SLEEP = ["InBed", "AsleepCore", "AsleepDeep", "AsleepREM", "Awake", "AsleepCore"]
SLEEP_NAMES = ["inBed", "asleepCore", "asleepDeep", "asleepREM", "awake", "asleepCore"]

def record(type_, unit, value, source, start, end, metadata=""):
    name, version, device, _ = source
    unit_attr = f' unit="{unit}"' if unit else ""
    head = (f' <Record type="{type_}" sourceName="{name}" sourceVersion="{version}" device="{device}"{unit_attr}'
            f' creationDate="{apple(end)}" startDate="{apple(start)}" endDate="{apple(end)}" value="{value}"')
    xml.write(head + (">\n" + metadata + " </Record>\n" if metadata else "/>\n"))

def ndjson(kind, value, unit, source, start, end):
    if not nd:
        return
    name, version, _, _ = source
    unit_field = f',"unit":"{unit}"' if unit else ""
    value_field = f'"{value}"' if isinstance(value, str) else value
    nd.write(f'{{"type":"{kind}","value":{value_field}{unit_field},"start":"{iso(start)}","end":"{iso(end)}",'
             f'"source":"{name}","source_version":"{version}","device":"{source[3]}","zone":"GMT-0700"}}\n')

written = 0
minute = 0
workouts = 0
while written < records:
    t = START + timedelta(minutes=minute)
    end = t + timedelta(minutes=1)
    day_minute = minute % 1440
    for source in (WATCH, PHONE):
        for type_, unit, kind in MINUTE_TYPES:
            if source is PHONE and kind == "heart-rate":
                continue
            value = {"step-count": 40 + minute % 70, "heart-rate": 55 + minute % 60,
                     "active-energy-burned": 1.5 + (minute % 7) / 10, "distance-walking-running": 0.03 + (minute % 5) / 100}[kind]
            if source is PHONE:
                value = value if kind != "step-count" else value + 3
            meta = ' <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="1"/>\n' if kind == "heart-rate" and minute % 10 == 0 else ""
            record(type_, unit, value, source, t, end, meta)
            ndjson(kind, value, {"Cal": "kcal"}.get(unit, unit), source, t, end)
            written += 1
    if day_minute == 0:
        # Last night: sleep stages from 23:00 to 07:00 the day before this midnight's morning.
        night = t - timedelta(hours=1)
        for index, stage in enumerate(SLEEP):
            s = night + timedelta(minutes=80 * index)
            e = s + timedelta(minutes=80)
            record("HKCategoryTypeIdentifierSleepAnalysis", None, "HKCategoryValueSleepAnalysis" + stage, WATCH, s, e)
            ndjson("sleep-analysis", SLEEP_NAMES[index], None, WATCH, s, e)
            written += 1
        body = f' <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Withings" sourceVersion="5" unit="lb" creationDate="{apple(t)}" startDate="{apple(t)}" endDate="{apple(t)}" value="{150 + minute % 5}"/>\n'
        xml.write(body)
        written += 1
    if day_minute % 60 == 0:
        record("HKCategoryTypeIdentifierAppleStandHour", None, "HKCategoryValueAppleStandHourStood", WATCH, t, t + timedelta(hours=1))
        ndjson("stand-hour", "stood", None, WATCH, t, t + timedelta(hours=1))
        written += 1
    if day_minute == 7 * 60:
        xml.write(f''' <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="{WATCH[0]}" sourceVersion="10.5" device="{WATCH[2]}" creationDate="{apple(t + timedelta(minutes=30))}" startDate="{apple(t)}" endDate="{apple(t + timedelta(minutes=30))}">
  <MetadataEntry key="HKIndoorWorkout" value="0"/>
  <WorkoutEvent type="HKWorkoutEventTypePause" date="{apple(t + timedelta(minutes=10))}"/>
  <WorkoutEvent type="HKWorkoutEventTypeResume" date="{apple(t + timedelta(minutes=11))}"/>
  <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="{apple(t)}" endDate="{apple(t + timedelta(minutes=30))}" sum="310" unit="kcal"/>
  <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="{apple(t)}" endDate="{apple(t + timedelta(minutes=30))}" sum="5.2" unit="km"/>
 </Workout>
''')
        workouts += 1
    if day_minute == 12 * 60:
        xml.write(f''' <ActivitySummary dateComponents="{t.strftime('%Y-%m-%d')}" activeEnergyBurned="500" activeEnergyBurnedGoal="600" activeEnergyBurnedUnit="Cal" appleExerciseTime="35" appleExerciseTimeGoal="30" appleStandHours="12" appleStandHoursGoal="12"/>
''')
    minute += 1
xml.write("</HealthData>\n")
xml.close()
if nd:
    nd.close()
print(f"{written} records, {workouts} workouts, {minute} minutes", file=sys.stderr)
