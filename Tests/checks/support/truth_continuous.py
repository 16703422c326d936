#!/usr/bin/env python3
"""The band's minutes are continuous across firmware resets (a reset must cost no minute): every
minute in a --truth file (one JSON object per line, `minute` its UTC start) starts where the one
before it ended — no gap, no minute twice, never back in time — and the sequence numbers count
up by one.
Usage: truth_continuous.py TRUTH.ndjson [MIN_MINUTES]. Exit 0 ok, 1 not continuous, 65 bad data."""
import datetime
import json
import sys


def main() -> int:
    path = sys.argv[1]
    least = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    previous = None
    count = 0
    with open(path) as lines:
        for number, line in enumerate(lines, 1):
            try:
                record = json.loads(line)
                start = datetime.datetime.fromisoformat(record["minute"].replace("Z", "+00:00"))
                sequence = int(record["seq"])
            except (ValueError, KeyError, TypeError) as error:
                print(f"{path}:{number}: not a truth line ({error})", file=sys.stderr)
                return 65
            if previous is not None:
                gap = (start - previous[0]).total_seconds() - 60
                if gap != 0 or sequence != previous[1] + 1:
                    what = "a gap of %d s" % gap if gap > 0 else "a minute twice or time going back (%d s)" % gap if gap < 0 else "a sequence jump"
                    print(f"{path}:{number}: minute {record['minute']} (seq {sequence}) after {previous[0].isoformat()} (seq {previous[1]}): {what}",
                          file=sys.stderr)
                    return 1
            previous = (start, sequence)
            count += 1
    if count < least:
        print(f"{path}: {count} minute(s), expected at least {least}", file=sys.stderr)
        return 1
    print(f"{count} minutes, each following the one before")
    return 0


if __name__ == "__main__":
    sys.exit(main())
