#!/usr/bin/env python3
"""check-drop.py SYNC_JSON: proves where a `band sync --json` lost its link: inside a history
transfer (a slice: Fetch → data → Transfer complete → commit → Acknowledge), not between two.

Up to the first "disconnected" event: the last "history_transfer" (first F, count C) must have a
"history_progress" with 0 < received < C after it and no "history_committed" after it — records
of that slice had arrived, the rest had not, and nothing of it was stored or acknowledged. When
band sync reconnected by itself, its next transfer must start at F again (the cursor did not
move). Exit 0 with one line saying where the link dropped, 1 with the reason otherwise.
"""
import json
import sys


def main(path):
    events = []
    for number, line in enumerate(open(path), 1):
        line = line.strip()
        if line.startswith("{"):
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError as error:
                sys.exit(f"check-drop: {path} line {number}: {error}")
    names = [event.get("event") for event in events]
    if "disconnected" not in names:
        sys.exit("check-drop: band sync never reported the link drop")
    drop = names.index("disconnected")
    transfers = [index for index in range(drop) if names[index] == "history_transfer"]
    if not transfers:
        sys.exit("check-drop: the link dropped before any history transfer started")
    start = transfers[-1]
    first, count = events[start]["first"], events[start]["count"]
    received = max((events[i]["received"] for i in range(start, drop) if names[i] == "history_progress"), default=0)
    if any(names[i] == "history_committed" for i in range(start, drop)):
        sys.exit(f"check-drop: the transfer of {count} records from {first} was committed before the drop: it landed between slices")
    if not 0 < received < count:
        sys.exit(f"check-drop: {received} of the transfer's {count} records had arrived at the drop: not inside it")
    where = f"the link dropped inside the transfer of records {first}…{first + count - 1}, after {received} of {count} records; nothing of it committed"
    later = [events[i] for i in range(drop, len(events)) if names[i] == "history_transfer"]
    if later:
        if later[0]["first"] != first:
            sys.exit(f"check-drop: after reconnecting, band sync fetched from {later[0]['first']}, not from {first}")
        where += f"; band sync reconnected and fetched from {first} again"
    print(f"check-drop: {where}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: check-drop.py SYNC_JSON")
    main(sys.argv[1])
