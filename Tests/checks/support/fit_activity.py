#!/usr/bin/env python3
"""An activity FIT file written by hand from the protocol (independent of BandKit's encoder), and
the checks of what `health workouts export` made of it, read by gpxpy, fitdecode and ElementTree.

    fit_activity.py write FILE      # the activity: 300 records, 3 laps, 1 session
    fit_activity.py check DIR       # DIR/run.gpx, run.tcx, run.fit against the same activity
"""
import struct
import sys
import xml.etree.ElementTree as ET

START = 1_164_956_400  # 2026-11-30T07:00:00Z in FIT seconds
FIT_EPOCH = 631_065_600
COUNT = 300


def crc16(data, crc=0):
    table = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
             0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]
    for byte in data:
        tmp = table[crc & 0xF]
        crc = (crc >> 4) & 0x0FFF
        crc = crc ^ tmp ^ table[byte & 0xF]
        tmp = table[crc & 0xF]
        crc = (crc >> 4) & 0x0FFF
        crc = crc ^ tmp ^ table[(byte >> 4) & 0xF]
    return crc


def point(i):
    """Record i: the first 5 indoors (no position), then a line north-east; heart rate and cadence."""
    lat = None if i < 5 else round((48.1 + i * 0.00002) * 2**31 / 180)
    lon = None if i < 5 else round((11.5 + i * 0.00003) * 2**31 / 180)
    return dict(ts=START + i, lat=lat, lon=lon, hr=110 + i % 60, cad=85 + i % 5, dist=i * 300, alt=(520 + i % 9 + 500) * 5)


def laps():
    return [(START + k * 100, 100 * 1000, 100 * 300, 10 + k) for k in range(3)]


def write(path):
    out = bytearray()

    def define(local, global_number, fields, big=False):
        out.append(0x40 | local)
        out.extend(struct.pack((">" if big else "<") + "BBHB", 0, 1 if big else 0, global_number, len(fields)))
        for number, size, base in fields:
            out.extend(bytes([number, size, base]))

    define(0, 0, [(0, 1, 0x00), (1, 2, 0x84), (2, 2, 0x84), (3, 4, 0x8C), (4, 4, 0x86)])
    out.append(0)
    out.extend(struct.pack("<BHHII", 4, 1, 3113, 123456, START))
    # Records: a big-endian layout with a timestamp, and a little-endian one without it that
    # follows compressed-timestamp headers (local type 2).
    full = [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85), (3, 1, 0x02), (4, 1, 0x02), (5, 4, 0x86), (78, 4, 0x86)]
    define(1, 20, full, big=True)
    define(2, 20, full[1:])
    for i in range(COUNT):
        p = point(i)
        body = [p["lat"] if p["lat"] is not None else 0x7FFFFFFF, p["lon"] if p["lon"] is not None else 0x7FFFFFFF,
                p["hr"], p["cad"], p["dist"], p["alt"]]
        if i % 4 == 0:
            out.append(1)
            out.extend(struct.pack(">IiiBBII", p["ts"], *body))
        else:
            out.append(0x80 | (2 << 5) | (p["ts"] & 0x1F))
            out.extend(struct.pack("<iiBBII", *body))
    define(3, 19, [(253, 4, 0x86), (2, 4, 0x86), (7, 4, 0x86), (9, 4, 0x86), (11, 2, 0x84), (15, 1, 0x02), (16, 1, 0x02)])
    for start, elapsed, distance, calories in laps():
        out.append(3)
        out.extend(struct.pack("<IIIIHBB", start + elapsed // 1000, start, elapsed, distance, calories, 140, 169))
    define(4, 18, [(253, 4, 0x86), (2, 4, 0x86), (5, 1, 0x00), (7, 4, 0x86), (9, 4, 0x86), (11, 2, 0x84)])
    out.append(4)
    out.extend(struct.pack("<IIBIIH", START + COUNT, START, 1, COUNT * 1000, COUNT * 300, 33))
    header = struct.pack("<BBHI4s", 14, 0x20, 2132, len(out), b".FIT")
    header += struct.pack("<H", crc16(header))
    body = header + bytes(out)
    with open(path, "wb") as f:
        f.write(body + struct.pack("<H", crc16(body)))


def degrees(semicircles):
    return semicircles * 180 / 2**31


def check(folder):
    import gpxpy
    import fitdecode
    from datetime import datetime, timezone

    expected = [point(i) for i in range(COUNT)]
    def when(ts):
        return datetime.fromtimestamp(ts + FIT_EPOCH, tz=timezone.utc)

    # GPX: every point with a position, heart rate and cadence in the TrackPointExtension.
    with open(f"{folder}/run.gpx") as f:
        gpx = gpxpy.parse(f)
    points = [p for track in gpx.tracks for segment in track.segments for p in segment.points]
    positioned = [p for p in expected if p["lat"] is not None]
    assert len(points) == len(positioned), (len(points), len(positioned))
    ns = "{http://www.garmin.com/xmlschemas/TrackPointExtension/v1}"
    for got, want in zip(points, positioned):
        assert abs(got.latitude - degrees(want["lat"])) < 1e-8 and abs(got.longitude - degrees(want["lon"])) < 1e-8, (got, want)
        assert got.time == when(want["ts"]), (got.time, want["ts"])
        assert abs(got.elevation - (want["alt"] / 5 - 500)) < 1e-6, (got.elevation, want)
        extension = got.extensions[0]
        assert int(extension.find(ns + "hr").text) == want["hr"] and int(extension.find(ns + "cad").text) == want["cad"]
    print(f"gpxpy: {len(points)} points, positions, times, elevation, hr and cadence as written")

    # TCX: three laps, every point (those without a position too).
    tcx = ET.parse(f"{folder}/run.tcx").getroot()
    t = "{http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2}"
    tcx_laps = tcx.findall(f".//{t}Lap")
    assert len(tcx_laps) == 3, len(tcx_laps)
    trackpoints = tcx.findall(f".//{t}Trackpoint")
    assert len(trackpoints) == COUNT, len(trackpoints)
    for got, want in zip(trackpoints, expected):
        assert int(got.find(f"{t}HeartRateBpm/{t}Value").text) == want["hr"] and int(got.find(f"{t}Cadence").text) == want["cad"]
        assert (got.find(f"{t}Position") is None) == (want["lat"] is None)
    assert [int(lap.find(f"{t}Calories").text) for lap in tcx_laps] == [10, 11, 12]
    print(f"ElementTree: TCX with {len(tcx_laps)} laps and {len(trackpoints)} trackpoints, hr and cadence as written")

    # FIT: fitdecode checks both CRCs and reads the messages back.
    records, lap_frames, sessions, kinds = [], [], [], {}
    with fitdecode.FitReader(f"{folder}/run.fit", check_crc=fitdecode.CrcCheck.RAISE) as reader:
        for frame in reader:
            if frame.frame_type != fitdecode.FIT_FRAME_DATA:
                continue
            kinds[frame.name] = kinds.get(frame.name, 0) + 1
            values = {field.name: field.raw_value for field in frame.fields}
            if frame.name == "record":
                records.append(values)
            elif frame.name == "lap":
                lap_frames.append(values)
            elif frame.name == "session":
                sessions.append(values)
            elif frame.name == "file_id":
                assert frame.get_value("type") == "activity", frame.get_value("type")
    assert len(records) == COUNT and len(lap_frames) == 3 and len(sessions) == 1 and kinds.get("activity") == 1, kinds
    for got, want in zip(records, expected):
        assert got["timestamp"] == want["ts"] and got["heart_rate"] == want["hr"] and got["cadence"] == want["cad"], (got, want)
        assert got["distance"] == want["dist"] and got["enhanced_altitude"] == want["alt"], (got, want)
        assert got.get("position_lat") == want["lat"] and got.get("position_long") == want["lon"], (got, want)
    for got, (start, elapsed, distance, calories) in zip(lap_frames, laps()):
        assert (got["start_time"], got["total_elapsed_time"], got["total_distance"], got["total_calories"]) == (start, elapsed, distance, calories), got
        assert (got["avg_heart_rate"], got["max_heart_rate"]) == (140, 169), got
    session = sessions[0]
    assert (session["start_time"], session["total_distance"], session["total_calories"], session["sport"]) == (START, COUNT * 300, 33, 1), session
    print(f"fitdecode: CRCs good; {kinds}; records, laps and session field for field")


if __name__ == "__main__":
    {"write": write, "check": check}[sys.argv[1]](sys.argv[2])
